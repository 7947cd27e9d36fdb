-- pgbench script (bench/run.sh): the statement hosted runs when a GET /v1/verifications/{id}
-- on PostgreSQL takes a poll lease (VerificationStore.polled; once per 100 polls at the bench's
-- raised limit, the other polls run bench/pgbench-select.sql's read alone): the poll bucket's
-- upsert in the unlogged `poll_limits` table and the verification's read, in one round trip. The API key is
-- not looked up per request (AccountService keeps a key that authenticated for one second).
-- One pgbench "transaction" = one API request. The literal values come in as variables
-- (pgbench -D; \set cannot hold text):
--   :bucket           poll:ACCOUNT_ID:VERIFICATION_ID
--   :now              Unix ms, fixed for the run (pgbench has no clock function)
--   :step :tolerance  the limiter's ms per request and burst tolerance, as hosted derives
--                     them from HOSTED_POLL_RATE / HOSTED_POLL_BURST
--   :verification_id :account_id
-- \gset fails the transaction when the read finds no row, so a wrong value shows up as errors.
WITH cell AS (
    INSERT INTO poll_limits (bucket, tat, allowed) VALUES (:bucket, CAST(:now AS BIGINT) + CAST(:step AS BIGINT), 1)
    ON CONFLICT (bucket) DO UPDATE SET
        tat = CASE WHEN (CASE WHEN poll_limits.tat > CAST(:now AS BIGINT) THEN poll_limits.tat ELSE CAST(:now AS BIGINT) END + CAST(:step AS BIGINT)) - CAST(:now AS BIGINT) <= CAST(:tolerance AS BIGINT) THEN (CASE WHEN poll_limits.tat > CAST(:now AS BIGINT) THEN poll_limits.tat ELSE CAST(:now AS BIGINT) END + CAST(:step AS BIGINT)) ELSE poll_limits.tat END,
        allowed = CASE WHEN (CASE WHEN poll_limits.tat > CAST(:now AS BIGINT) THEN poll_limits.tat ELSE CAST(:now AS BIGINT) END + CAST(:step AS BIGINT)) - CAST(:now AS BIGINT) <= CAST(:tolerance AS BIGINT) THEN 1 ELSE 0 END
    RETURNING tat, allowed)
SELECT cell.tat AS cell_tat, cell.allowed AS cell_allowed, v.id, v.status, v.revision FROM cell
LEFT JOIN (SELECT id, account_id, user_id, workflow_key, workflow_version, status, mobile, return_url, metadata, steps,
                  created_at, updated_at, submitted_at, decided_at, revision, decision_reason,
                  expires_at, expired_reason, last_step, redacted_at, redact_after_seconds, redact_at, approvals_required, approvals,
       resubmissions, resubmission_reason, resubmission_message, flags, livemode, user_key, personal, data_key
           FROM verifications WHERE id = :verification_id AND account_id = :account_id) v ON true \gset v_
