-- Artifacts in object storage (issue 41). Each artifact row says where its bytes are
-- (`storage`: 'database', in `content` as before, or 's3', in the object `object_key`), with
-- the SHA-256 and size of the bytes as stored (the sealed object for 's3'), checked on every
-- read. Rows written before this migration are 'database' rows without a hash.
ALTER TABLE artifacts ADD COLUMN storage TEXT NOT NULL DEFAULT 'database';
ALTER TABLE artifacts ADD COLUMN object_key TEXT;
ALTER TABLE artifacts ADD COLUMN sha256 TEXT;
ALTER TABLE artifacts ADD COLUMN bytes BIGINT;
-- `hosted artifacts migrate` walks what is still in the database, by id.
CREATE INDEX artifacts_in_database ON artifacts (id) WHERE storage = 'database' AND redacted_at IS NULL;
CREATE INDEX artifacts_object_key ON artifacts (object_key) WHERE object_key IS NOT NULL;

-- Each verification's 256-bit data key, sealed (AES-256-GCM) with a key derived from the
-- secret key, created on first need. Redaction deletes the key (`sealed_key` NULL,
-- `shredded_at` set) in its transaction: every object sealed with it is unreadable from then
-- on, wherever a copy is. No foreign key: a row may outlive its verification's deletion.
CREATE TABLE verification_keys (
    verification_id  TEXT PRIMARY KEY,
    sealed_key       BYTEA,
    created_at       BIGINT NOT NULL,
    shredded_at      BIGINT
);

-- An object about to be written, recorded (in its own committed transaction) before the PUT
-- and deleted with the commit of its artifact row: an intent older than
-- HOSTED_ORPHAN_GRACE_SECONDS is an object with no row (a crash or a failed commit between
-- the two), which the sweeper deletes. No bucket listing is needed.
CREATE TABLE artifact_object_intents (
    object_key  TEXT PRIMARY KEY,
    created_at  BIGINT NOT NULL
);
CREATE INDEX artifact_object_intents_age ON artifact_object_intents (created_at);

-- Objects to delete (a redacted verification's, orphans past their grace), claimed by the
-- sweeper with a lease (FOR UPDATE SKIP LOCKED on PostgreSQL), removed once the DELETE succeeded.
CREATE TABLE artifact_object_deletions (
    object_key    TEXT PRIMARY KEY,
    available_at  BIGINT NOT NULL,
    attempts      INTEGER NOT NULL DEFAULT 0,
    created_at    BIGINT NOT NULL
);
CREATE INDEX artifact_object_deletions_due ON artifact_object_deletions (available_at);
