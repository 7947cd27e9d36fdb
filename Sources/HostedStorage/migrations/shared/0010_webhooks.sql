-- Webhooks. An endpoint's signing secrets are kept sealed (AES-256-GCM under a key derived
-- from the service's secret key, base64), never in clear. `webhook_endpoint_events` is its
-- `events` filter, one row per entry, for matching in SQL. `webhook_deliveries` is the outbox
-- and the attempt log at once: one row per attempt, `pending` while due or in flight (leased
-- through `claimed_until`), then `succeeded` or `failed`; a failed attempt that is retried is
-- followed by a new pending row. Times are Unix milliseconds.
CREATE TABLE webhook_endpoints (
    id                    TEXT PRIMARY KEY,
    account_id            TEXT NOT NULL,
    url                   TEXT NOT NULL,
    events                TEXT NOT NULL,
    description           TEXT,
    status                TEXT NOT NULL,
    disabled_reason       TEXT,
    secret                TEXT NOT NULL,
    previous_secret       TEXT,
    previous_secret_until BIGINT,
    failing_since         BIGINT,
    created_at            BIGINT NOT NULL,
    updated_at            BIGINT NOT NULL
);
CREATE INDEX webhook_endpoints_account ON webhook_endpoints (account_id, created_at);

CREATE TABLE webhook_endpoint_events (
    endpoint_id TEXT NOT NULL,
    event_type  TEXT NOT NULL,
    PRIMARY KEY (endpoint_id, event_type)
);

CREATE TABLE webhook_deliveries (
    id              TEXT PRIMARY KEY,
    endpoint_id     TEXT NOT NULL,
    account_id      TEXT NOT NULL,
    event_id        TEXT NOT NULL,
    event_type      TEXT NOT NULL,
    attempt         INTEGER NOT NULL,
    status          TEXT NOT NULL,
    payload         TEXT NOT NULL,
    response_status INTEGER,
    error           TEXT,
    duration_ms     BIGINT,
    created_at      BIGINT NOT NULL,
    next_attempt_at BIGINT,
    claimed_until   BIGINT,
    UNIQUE (endpoint_id, event_id, attempt)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_log ON webhook_deliveries (endpoint_id, created_at, id);
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (endpoint_id, event_id);

-- The verification's status right after each event, for the webhook message's `data.status`
-- when an event is sent again later (recovery). Not part of the hash chain.
ALTER TABLE events ADD COLUMN status TEXT;
