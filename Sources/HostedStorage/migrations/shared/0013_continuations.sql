-- Continuing on another device. A continuation's secret (in the URL fragment) and the claim
-- token of the one device that opened it are kept only as SHA-256 hashes. `number` is the two
-- digits the first screen shows and the phone must pick. `status`: pending (not opened yet),
-- opened (one device holds the claim), matched (that device picked right and signed in), failed
-- (a wrong pick burned it), revoked (replaced, or "continue here instead"). Times are Unix ms.
CREATE TABLE continuations (
    id              TEXT PRIMARY KEY,
    verification_id TEXT NOT NULL,
    secret_hash     TEXT NOT NULL UNIQUE,
    claim_hash      TEXT UNIQUE,
    number          TEXT NOT NULL,
    status          TEXT NOT NULL,
    created_at      BIGINT NOT NULL,
    expires_at      BIGINT NOT NULL,
    opened_at       BIGINT,
    finished_at     BIGINT
);
CREATE INDEX continuations_verification ON continuations (verification_id, created_at);

-- How a journey session began; a session that began by continuation is the phone's, which
-- sends the user back to the first device instead of to the return URL.
ALTER TABLE journey_sessions ADD COLUMN method TEXT;
