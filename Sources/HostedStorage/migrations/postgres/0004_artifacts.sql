-- Captured images and forms, stored with their verification (written in the same transaction
-- as the step that lists them); the reason given with a decision.
CREATE TABLE artifacts (
    id               TEXT PRIMARY KEY,
    verification_id  TEXT NOT NULL REFERENCES verifications (id),
    step_id          TEXT NOT NULL,
    content_type     TEXT NOT NULL,
    content          BYTEA NOT NULL,
    created_at       BIGINT NOT NULL
);
CREATE INDEX artifacts_verification ON artifacts (verification_id, step_id);

ALTER TABLE verifications ADD COLUMN decision_reason TEXT;
