-- The operator console. Operators belong to one account and sign in by email (unique across
-- the service: sign-in has no account to choose), an Argon2id password hash and a TOTP seed
-- sealed with AES-256-GCM under a key derived from the service's secret key (base64), never in
-- clear. A setup link's secret and a console session's token are kept only as SHA-256 hashes.
-- `failed_attempts` counts sign-ins in a row that did not succeed; at 5, `locked_until` is set.
-- `totp_last_step` is the time step of the last code accepted: no code works twice.
-- Times are Unix milliseconds.
CREATE TABLE operators (
    id               TEXT PRIMARY KEY,
    account_id       TEXT NOT NULL,
    email            TEXT NOT NULL UNIQUE,
    role             TEXT NOT NULL,
    status           TEXT NOT NULL,
    password_hash    TEXT,
    totp_sealed      TEXT,
    totp_pending     TEXT,
    totp_last_step   BIGINT,
    failed_attempts  INTEGER NOT NULL DEFAULT 0,
    locked_until     BIGINT,
    setup_hash       TEXT UNIQUE,
    setup_expires_at BIGINT,
    created_at       BIGINT NOT NULL,
    last_sign_in_at  BIGINT,
    disabled_at      BIGINT
);
CREATE INDEX operators_account ON operators (account_id, created_at);

CREATE TABLE console_sessions (
    token_hash   TEXT PRIMARY KEY,
    operator_id  TEXT NOT NULL,
    created_at   BIGINT NOT NULL,
    last_seen_at BIGINT NOT NULL,
    revoked_at   BIGINT
);
CREATE INDEX console_sessions_operator ON console_sessions (operator_id);

-- What happens to operators themselves (created, set up, signed in, failed, locked, disabled):
-- the account's console audit trail beside the verifications' event log. No secret, no password.
CREATE TABLE operator_events (
    id          TEXT PRIMARY KEY,
    account_id  TEXT NOT NULL,
    operator_id TEXT,
    type        TEXT NOT NULL,
    actor_id    TEXT,
    created_at  BIGINT NOT NULL
);
CREATE INDEX operator_events_account ON operator_events (account_id, created_at);

-- Internal notes of reviewers: free text, so kept out of the event log (which records only
-- that a note was written) and erased when the verification is redacted.
CREATE TABLE review_notes (
    id              TEXT PRIMARY KEY,
    verification_id TEXT NOT NULL,
    operator_id     TEXT NOT NULL,
    body            TEXT NOT NULL,
    created_at      BIGINT NOT NULL
);
CREATE INDEX review_notes_verification ON review_notes (verification_id, created_at);

-- Four eyes: how many approvals a workflow's decision needs, pinned on each verification with
-- the approvals given so far (a JSON array of actor references).
ALTER TABLE workflows ADD COLUMN approvals_required INTEGER NOT NULL DEFAULT 1;
ALTER TABLE verifications ADD COLUMN approvals_required INTEGER NOT NULL DEFAULT 1;
ALTER TABLE verifications ADD COLUMN approvals TEXT NOT NULL DEFAULT '[]';
-- The console's queue: an account's verifications by status, oldest submitted first.
CREATE INDEX verifications_queue ON verifications (account_id, status, submitted_at);
