-- An account's branding (issue 44): the name, accent colour and support URL its users see on
-- the journey, the console and in SMS texts; and its logo, a PNG re-encoded by libvips (at most
-- 256 px high), one per account, served under its SHA-256 so a new logo gets a new URL.
ALTER TABLE accounts ADD COLUMN brand_display_name TEXT;
ALTER TABLE accounts ADD COLUMN brand_accent_color TEXT;
ALTER TABLE accounts ADD COLUMN brand_support_url TEXT;
CREATE TABLE account_logos (
    account_id  TEXT PRIMARY KEY REFERENCES accounts (id),
    sha256      TEXT NOT NULL,
    content     BYTEA NOT NULL,
    width       INTEGER NOT NULL,
    height      INTEGER NOT NULL,
    created_at  BIGINT NOT NULL
);
