-- pgbench script (bench/run.sh): the reference for polling — the one primary-key SELECT of
-- the polled verification's row, nothing else. The poll's goal is a fraction of this rate.
SELECT id, account_id, user_id, workflow_key, workflow_version, status, mobile, return_url, metadata, steps,
       created_at, updated_at, submitted_at, decided_at, revision, decision_reason,
       expires_at, expired_reason, last_step, redacted_at, redact_after_seconds, redact_at, approvals_required, approvals,
       resubmissions, resubmission_reason, resubmission_message, flags, livemode, user_key, personal, data_key
FROM verifications WHERE id = :verification_id AND account_id = :account_id \gset v_
