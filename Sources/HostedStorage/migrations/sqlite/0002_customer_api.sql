-- Workflows (versioned), verifications (one open per account + user + workflow),
-- idempotency keys and rate-limit buckets. Times are Unix milliseconds.
CREATE TABLE workflows (
    account_id  TEXT NOT NULL REFERENCES accounts (id),
    key         TEXT NOT NULL,
    version     INTEGER NOT NULL,
    name        TEXT NOT NULL,
    steps       TEXT NOT NULL,              -- JSON array of steps
    created_at  BIGINT NOT NULL,
    PRIMARY KEY (account_id, key, version)
);

CREATE TABLE verifications (
    id                TEXT PRIMARY KEY,
    account_id        TEXT NOT NULL REFERENCES accounts (id),
    user_id           TEXT NOT NULL,
    workflow_key      TEXT NOT NULL,
    workflow_version  INTEGER NOT NULL,
    status            TEXT NOT NULL,
    mobile            TEXT NOT NULL,
    return_url        TEXT,
    metadata          TEXT NOT NULL,        -- JSON object of strings
    steps             TEXT NOT NULL,        -- JSON array of step states
    created_at        BIGINT NOT NULL,
    updated_at        BIGINT NOT NULL,
    submitted_at      BIGINT,
    decided_at        BIGINT,
    decision          TEXT,
    revision          BIGINT NOT NULL
);
-- The idempotency rule, enforced by the database: one open verification per user and workflow.
CREATE UNIQUE INDEX verifications_open ON verifications (account_id, user_id, workflow_key)
    WHERE status NOT IN ('canceled', 'expired');
CREATE INDEX verifications_list ON verifications (account_id, created_at DESC, id DESC);

CREATE TABLE idempotency_keys (
    account_id    TEXT NOT NULL,
    key           TEXT NOT NULL,
    request_hash  TEXT NOT NULL,
    status        INTEGER,                  -- NULL while the first request is running
    content_type  TEXT,
    body          BLOB,
    created_at    BIGINT NOT NULL,
    PRIMARY KEY (account_id, key)
);

-- Generic cell-rate buckets: `tat` is the theoretical arrival time in ms.
CREATE TABLE rate_limits (
    bucket   TEXT PRIMARY KEY,
    tat      BIGINT NOT NULL,
    allowed  INTEGER NOT NULL
);
