-- PostgreSQL: the webhook outbox is written by a trigger on `events`, in the inserting
-- statement's own transaction: one message per enabled endpoint of the account whose filter
-- matches, and a NOTIFY that every process's delivery workers hear at commit. (A rolled-back
-- event takes its messages and its NOTIFY with it.) The body is the same text
-- `WebhookMessage.body` writes (the store's contract tests compare them byte for byte); the
-- time is built from integer milliseconds, so it never rounds. SQLite, with one process and no
-- round trips, queues the same rows from Swift (`EventStore.insert`).
CREATE FUNCTION hosted_webhook_outbox() RETURNS trigger LANGUAGE plpgsql AS $outbox$
BEGIN
    -- Most accounts have no endpoint: this cheap look keeps their events from paying for the
    -- INSERT's executor (measured: about 100 µs of PostgreSQL time per event).
    PERFORM 1 FROM webhook_endpoints w WHERE w.account_id = NEW.account_id AND w.status = 'enabled' LIMIT 1;
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
           || ',"status":' || COALESCE(to_json(NEW.status)::text, 'null') || '}}',
           NEW.created_at, NEW.created_at
    FROM webhook_endpoints w
    WHERE w.account_id = NEW.account_id AND w.status = 'enabled'
      AND EXISTS (SELECT 1 FROM webhook_endpoint_events f
                  WHERE f.endpoint_id = w.id AND f.event_type IN (NEW.type, '*', 'verification.*'));
    IF FOUND THEN
        PERFORM pg_notify('hosted_changes', 'webhooks');
    END IF;
    RETURN NULL;
END
$outbox$;

CREATE TRIGGER events_webhook_outbox AFTER INSERT ON events
    FOR EACH ROW EXECUTE FUNCTION hosted_webhook_outbox();
