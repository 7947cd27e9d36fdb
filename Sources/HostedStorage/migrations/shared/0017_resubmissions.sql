-- A reviewer may send a submitted verification back for some steps again (issue 39): how many
-- times it was, the latest reason code and message to the user (erased by redaction), and the
-- workflow's cap (review.max_resubmissions, default 2).
ALTER TABLE verifications ADD COLUMN resubmissions INTEGER NOT NULL DEFAULT 0;
ALTER TABLE verifications ADD COLUMN resubmission_reason TEXT;
ALTER TABLE verifications ADD COLUMN resubmission_message TEXT;
ALTER TABLE workflows ADD COLUMN max_resubmissions INTEGER NOT NULL DEFAULT 2;
