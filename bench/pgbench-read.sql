-- pgbench script (bench/run.sh): the SQL hosted runs for one GET /v1/verifications/{id},
-- statement for statement, each in its own implicit transaction as hosted runs them
-- (autocommit, prepared statements). One pgbench "transaction" = one API request.
-- The literal values come in as variables (pgbench -D; \set cannot hold text):
--   :key_hash         sha256 hex of the API key
--   :bucket           poll:ACCOUNT_ID:VERIFICATION_ID
--   :now              Unix ms, fixed for the run (pgbench has no clock function)
--   :step :tolerance  the limiter's ms per request and burst tolerance, as hosted derives
--                     them from HOSTED_POLL_RATE / HOSTED_POLL_BURST
--   :verification_id :account_id
-- \gset fails the transaction when a lookup finds no row, so a wrong value shows up as
-- errors rather than as fast empty reads.

-- AccountStore.account(forKeyHash:)
SELECT a.id, a.name, a.created_at FROM api_keys k JOIN accounts a ON a.id = k.account_id
WHERE k.secret_hash = :key_hash AND k.revoked_at IS NULL \gset acct_

-- RateLimitStore.take
INSERT INTO rate_limits (bucket, tat, allowed) VALUES (:bucket, CAST(:now AS BIGINT) + CAST(:step AS BIGINT), 1)
ON CONFLICT (bucket) DO UPDATE SET
    tat = CASE WHEN (CASE WHEN rate_limits.tat > CAST(:now AS BIGINT) THEN rate_limits.tat ELSE CAST(:now AS BIGINT) END + CAST(:step AS BIGINT)) - CAST(:now AS BIGINT) <= CAST(:tolerance AS BIGINT) THEN (CASE WHEN rate_limits.tat > CAST(:now AS BIGINT) THEN rate_limits.tat ELSE CAST(:now AS BIGINT) END + CAST(:step AS BIGINT)) ELSE rate_limits.tat END,
    allowed = CASE WHEN (CASE WHEN rate_limits.tat > CAST(:now AS BIGINT) THEN rate_limits.tat ELSE CAST(:now AS BIGINT) END + CAST(:step AS BIGINT)) - CAST(:now AS BIGINT) <= CAST(:tolerance AS BIGINT) THEN 1 ELSE 0 END
RETURNING tat, allowed \gset rl_

-- VerificationStore.verification(accountID:id:)
SELECT id, account_id, user_id, workflow_key, workflow_version, status, mobile, return_url, metadata, steps,
created_at, updated_at, submitted_at, decided_at, decision, revision FROM verifications WHERE id = :verification_id AND account_id = :account_id \gset v_
