-- The per-verification poll limit's buckets, apart from the other rate limits: they are
-- written on every poll. On PostgreSQL the table is UNLOGGED (migrations/postgres/0014), so a
-- poll costs no WAL flush; after a crash PostgreSQL empties it, which only gives every
-- verification a fresh burst. Same shape and algorithm as `rate_limits`.
CREATE TABLE poll_limits (
    bucket   TEXT PRIMARY KEY,
    tat      BIGINT NOT NULL,
    allowed  INTEGER NOT NULL
);
