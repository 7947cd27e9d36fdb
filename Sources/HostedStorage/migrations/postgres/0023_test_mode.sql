-- Test mode (issue 40), PostgreSQL: as migrations/shared/0023, and the webhook outbox's trigger
-- (migration 0011) now queues an event only to endpoints of its own mode and says the mode in
-- the body (`WebhookMessage.body` writes the same text).
-- Every API key, verification, event and webhook endpoint belongs to one
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

CREATE OR REPLACE FUNCTION hosted_webhook_outbox() RETURNS trigger LANGUAGE plpgsql AS $outbox$
BEGIN
    -- Most accounts have no endpoint: this cheap look keeps their events from paying for the
    -- INSERT's executor (measured: about 100 µs of PostgreSQL time per event).
    PERFORM 1 FROM webhook_endpoints w WHERE w.account_id = NEW.account_id AND w.livemode = NEW.livemode AND w.status = 'enabled' LIMIT 1;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    INSERT INTO webhook_deliveries (id, endpoint_id, account_id, event_id, event_type, attempt, status, payload, created_at, next_attempt_at)
    SELECT 'whd_' || md5(gen_random_uuid()::text || gen_random_uuid()::text), w.id, w.account_id, NEW.id, NEW.type, 1, 'pending',
           '{"type":' || to_json(NEW.type)::text
           || ',"timestamp":"' || to_char(to_timestamp(NEW.created_at / 1000) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS')
           || '.' || lpad((NEW.created_at % 1000)::text, 3, '0') || 'Z"'
           || ',"data":{"object":"event","id":' || to_json(NEW.id)::text
           || ',"verification_id":' || to_json(NEW.verification_id)::text
           || ',"sequence":' || NEW.sequence::text
           || ',"status":' || COALESCE(to_json(NEW.status)::text, 'null')
           || ',"livemode":' || CASE WHEN NEW.livemode = 0 THEN 'false' ELSE 'true' END || '}}',
           NEW.created_at, NEW.created_at
    FROM webhook_endpoints w
    WHERE w.account_id = NEW.account_id AND w.livemode = NEW.livemode AND w.status = 'enabled'
      AND EXISTS (SELECT 1 FROM webhook_endpoint_events f
                  WHERE f.endpoint_id = w.id AND f.event_type IN (NEW.type, '*', 'verification.*'));
    IF FOUND THEN
        PERFORM pg_notify('hosted_changes', 'webhooks');
    END IF;
    RETURN NULL;
END
$outbox$;

