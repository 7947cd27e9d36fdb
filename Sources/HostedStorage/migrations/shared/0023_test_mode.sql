-- Test mode (issue 40). Every API key, verification, event and webhook endpoint belongs to one
-- mode: 1 live (everything before this migration), 0 test. Deliveries belong to their
-- endpoint's mode. Lists and the idempotent create look in one mode only, so their indexes
-- lead with it; workflows, return URLs and branding are shared by both modes.
ALTER TABLE api_keys ADD COLUMN livemode INTEGER NOT NULL DEFAULT 1;
ALTER TABLE verifications ADD COLUMN livemode INTEGER NOT NULL DEFAULT 1;
ALTER TABLE events ADD COLUMN livemode INTEGER NOT NULL DEFAULT 1;
ALTER TABLE webhook_endpoints ADD COLUMN livemode INTEGER NOT NULL DEFAULT 1;

-- One open verification per account, mode, user and workflow.
DROP INDEX verifications_open;
CREATE UNIQUE INDEX verifications_open ON verifications (account_id, livemode, user_id, workflow_key)
    WHERE status NOT IN ('canceled', 'expired');
DROP INDEX verifications_list;
CREATE INDEX verifications_list ON verifications (account_id, livemode, created_at DESC, id DESC);
DROP INDEX verifications_queue;
CREATE INDEX verifications_queue ON verifications (account_id, livemode, status, submitted_at);
DROP INDEX events_feed;
CREATE INDEX events_feed ON events (account_id, livemode, created_at, verification_id, sequence);
DROP INDEX webhook_endpoints_account;
CREATE INDEX webhook_endpoints_account ON webhook_endpoints (account_id, livemode, created_at);
-- Test verifications are deleted seven days after they were made (the sweeper).
CREATE INDEX verifications_test_data ON verifications (created_at) WHERE livemode = 0;
