-- pgbench script (bench/run.sh): the SQL hosted runs for one POST /v1/verifications that
-- repeats the open verification's body (no Idempotency-Key header, no return_url): one read of
-- the open verification (VerificationStore.openVerification), which answers the repeat before
-- any workflow lookup or insert (VerificationService.create). The API key is remembered for a
-- second, so it is not looked up per request. One pgbench "transaction" = one API request.
-- The literal values come in as variables (pgbench -D; \set cannot hold text):
--   :account_id :user_key (the user id's keyed hash, docs/personal-data.md) :workflow_key
-- (bench/run.sh passes the insert's values too; a request that found nothing open would go on to
-- the workflow lookup and the insert, which a repeat never reaches.)
-- \gset fails the transaction when the read finds no row.
SELECT id, account_id, user_id, workflow_key, workflow_version, status, mobile, return_url, metadata, steps,
       created_at, updated_at, submitted_at, decided_at, revision, decision_reason,
       expires_at, expired_reason, last_step, redacted_at, redact_after_seconds, redact_at, approvals_required, approvals,
       resubmissions, resubmission_reason, resubmission_message, flags, livemode, user_key, personal, data_key
FROM verifications
WHERE account_id = :account_id AND livemode = 1 AND user_key = :user_key AND workflow_key = :workflow_key AND status NOT IN ('canceled', 'expired') \gset open_
