-- A verification sent back for steps again (`resubmission_requested`) has the workflow's time
-- again and is expired by the sweeper when it runs out, like one never submitted: the expiry
-- index covers that status too (reads expired it already; the sweep did not look).
DROP INDEX verifications_expiry;
CREATE INDEX verifications_expiry ON verifications (expires_at)
    WHERE status IN ('created', 'in_progress', 'resubmission_requested');
