-- Sign-in codes waiting to be sent: the request that asks for a code only queues it (in the
-- same transaction as the code's HMAC), so its answer and timing never depend on the SMS relay.
-- The message (number and text, with the code) is sealed with AES-256-GCM under a key derived
-- from the service's secret key; a row is deleted once sent or given up. Times are Unix ms.
CREATE TABLE sms_queue (
    id               TEXT PRIMARY KEY,
    verification_id  TEXT NOT NULL,
    sealed           BYTEA NOT NULL,
    attempts         INTEGER NOT NULL DEFAULT 0,
    available_at     BIGINT NOT NULL,
    claimed_until    BIGINT,
    created_at       BIGINT NOT NULL
);
CREATE INDEX sms_queue_available ON sms_queue (available_at);
