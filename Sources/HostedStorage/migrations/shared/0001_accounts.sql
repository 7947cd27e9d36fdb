-- Accounts, their API keys (SHA-256 hash and display prefix only) and registered return URLs.
-- Times are Unix milliseconds (BIGINT) in both dialects, so both stores compare them alike.
CREATE TABLE accounts (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    created_at  BIGINT NOT NULL
);

CREATE TABLE api_keys (
    id              TEXT PRIMARY KEY,
    account_id      TEXT NOT NULL REFERENCES accounts (id),
    secret_hash     TEXT NOT NULL UNIQUE,
    display_prefix  TEXT NOT NULL,
    created_at      BIGINT NOT NULL,
    revoked_at      BIGINT
);
CREATE INDEX api_keys_account ON api_keys (account_id);

CREATE TABLE return_urls (
    id          TEXT PRIMARY KEY,
    account_id  TEXT NOT NULL REFERENCES accounts (id),
    url         TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    UNIQUE (account_id, url)
);

-- Service-wide settings such as the generated secret key (pepper for OTP hashes).
CREATE TABLE settings (
    key    TEXT PRIMARY KEY,
    value  TEXT NOT NULL
);
