-- pgbench script (bench/run.sh): the SQL hosted runs for one POST /v1/verifications that
-- repeats the open verification's body (no Idempotency-Key header, no return_url), statement
-- for statement, each in its own implicit transaction as hosted runs them (autocommit,
-- prepared statements). One pgbench "transaction" = one API request.
-- The literal values come in as variables (pgbench -D; \set cannot hold text):
--   :key_hash :account_id :user_id :workflow_key
--   :new_id                      an unused verification id (hosted draws a fresh one per
--                                request; the insert never stores it, the open one conflicts)
--   :workflow_version :status :mobile :metadata :steps :revision
--                                the values hosted would insert (copied from the open row)
--   :now                         Unix ms, fixed for the run
-- SQL NULLs are written inline: a pgbench variable cannot carry NULL (it would send 'NULL').
-- \gset fails the transaction when a lookup finds no row.

-- AccountStore.account(forKeyHash:)
SELECT a.id, a.name, a.created_at FROM api_keys k JOIN accounts a ON a.id = k.account_id
WHERE k.secret_hash = :key_hash AND k.revoked_at IS NULL \gset acct_

-- WorkflowStore.workflow(accountID:key:) (VerificationService.create resolves the workflow)
SELECT * FROM workflows WHERE account_id = :account_id AND key = :workflow_key ORDER BY version DESC LIMIT 1 \gset wf_

-- VerificationStore.createOrFetchOpen: the insert, which meets the open one and returns no row
INSERT INTO verifications (id, account_id, user_id, workflow_key, workflow_version, status, mobile, return_url, metadata, steps,
created_at, updated_at, submitted_at, decided_at, decision, revision)
VALUES (:new_id, :account_id, :user_id, :workflow_key, :workflow_version, :status, :mobile, NULL, :metadata, :steps, :now, :now, NULL, NULL, NULL, :revision)
ON CONFLICT (account_id, user_id, workflow_key) WHERE status NOT IN ('canceled', 'expired') DO NOTHING
RETURNING id;

-- ... then the open one
SELECT id, account_id, user_id, workflow_key, workflow_version, status, mobile, return_url, metadata, steps,
created_at, updated_at, submitted_at, decided_at, decision, revision FROM verifications
WHERE account_id = :account_id AND user_id = :user_id AND workflow_key = :workflow_key AND status NOT IN ('canceled', 'expired') \gset open_
