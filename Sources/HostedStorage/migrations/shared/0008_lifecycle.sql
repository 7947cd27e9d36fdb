-- The verification lifecycle. `events` is append-only: one row per change to a verification,
-- written in the change's transaction, numbered 1, 2, 3 … per verification (the unique key
-- refuses a duplicate) and hash-chained (`hash` covers `previous_hash` and the event's canonical
-- JSON). Events hold no personal data, so they outlive redaction. Times are Unix milliseconds.
CREATE TABLE events (
    id               TEXT PRIMARY KEY,
    account_id       TEXT NOT NULL,
    verification_id  TEXT NOT NULL,
    sequence         BIGINT NOT NULL,
    type             TEXT NOT NULL,
    actor_type       TEXT NOT NULL,
    actor_id         TEXT,
    data             TEXT NOT NULL,
    created_at       BIGINT NOT NULL,
    previous_hash    TEXT,
    hash             TEXT NOT NULL,
    UNIQUE (verification_id, sequence)
);
-- The account's feed, oldest first.
CREATE INDEX events_feed ON events (account_id, created_at, verification_id, sequence);

-- Expiry (`expires_at` pinned from the workflow at creation), redaction, retention.
ALTER TABLE verifications ADD COLUMN expires_at BIGINT;
ALTER TABLE verifications ADD COLUMN expired_reason TEXT;
ALTER TABLE verifications ADD COLUMN last_step TEXT;
ALTER TABLE verifications ADD COLUMN redacted_at BIGINT;
ALTER TABLE verifications ADD COLUMN redact_after_seconds BIGINT;
ALTER TABLE verifications ADD COLUMN redact_at BIGINT;
UPDATE verifications SET expires_at = created_at + 604800000;
CREATE INDEX verifications_expiry ON verifications (expires_at) WHERE status IN ('created', 'in_progress');
CREATE INDEX verifications_retention ON verifications (redact_at) WHERE redact_at IS NOT NULL;

ALTER TABLE workflows ADD COLUMN expires_after_seconds BIGINT;
ALTER TABLE workflows ADD COLUMN redact_after_seconds BIGINT;

-- A redacted artifact keeps its row (a download answers 410) but not its bytes.
ALTER TABLE artifacts ADD COLUMN redacted_at BIGINT;
