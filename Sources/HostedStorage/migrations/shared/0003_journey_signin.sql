-- Handoffs (single-use, hashed secrets), journey sessions (hashed tokens), SMS codes (keyed
-- HMAC, counted tries), the dev SMS outbox. Times are Unix milliseconds.
CREATE TABLE handoffs (
    id               TEXT PRIMARY KEY,
    verification_id  TEXT NOT NULL REFERENCES verifications (id),
    account_id       TEXT NOT NULL,
    secret_hash      TEXT NOT NULL UNIQUE,
    return_url       TEXT,
    created_at       BIGINT NOT NULL,
    expires_at       BIGINT NOT NULL,
    used_at          BIGINT,
    revoked_at       BIGINT
);
CREATE INDEX handoffs_verification ON handoffs (verification_id);

CREATE TABLE journey_sessions (
    token_hash       TEXT PRIMARY KEY,
    verification_id  TEXT NOT NULL REFERENCES verifications (id),
    return_url       TEXT,
    created_at       BIGINT NOT NULL,
    expires_at       BIGINT NOT NULL,
    revoked_at       BIGINT
);
CREATE INDEX journey_sessions_verification ON journey_sessions (verification_id);

-- One live code per verification: a new code replaces the old one.
CREATE TABLE otp_codes (
    verification_id  TEXT PRIMARY KEY REFERENCES verifications (id),
    code_hmac        TEXT NOT NULL,
    created_at       BIGINT NOT NULL,
    expires_at       BIGINT NOT NULL,
    attempts         INTEGER NOT NULL,
    used_at          BIGINT
);

CREATE TABLE sms_outbox (
    id          TEXT PRIMARY KEY,
    to_number   TEXT NOT NULL,
    body        TEXT NOT NULL,
    created_at  BIGINT NOT NULL
);
CREATE INDEX sms_outbox_to ON sms_outbox (to_number, created_at DESC);
