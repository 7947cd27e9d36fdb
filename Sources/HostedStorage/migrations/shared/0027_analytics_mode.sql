-- Test mode reaches the journey funnel (issue 40; the plan in docs/decisions.md, "Journey
-- analytics"): a count belongs to one mode, so `livemode` joins `journey_counts`'s key. SQLite
-- cannot change a primary key, so the table is made again and the counts copied over (every
-- count so far is live: test verifications did not exist before migration 0023's day, and
-- none was counted apart).
CREATE TABLE journey_counts_by_mode (
    account_id        TEXT NOT NULL,
    livemode          INTEGER NOT NULL,
    workflow_key      TEXT NOT NULL,
    workflow_version  INTEGER NOT NULL,
    step              TEXT NOT NULL,
    signal            TEXT NOT NULL,
    reason            TEXT NOT NULL,
    device_class      TEXT NOT NULL,
    day               BIGINT NOT NULL,
    count             BIGINT NOT NULL,
    PRIMARY KEY (account_id, livemode, workflow_key, workflow_version, step, signal, reason, device_class, day)
);
INSERT INTO journey_counts_by_mode (account_id, livemode, workflow_key, workflow_version, step, signal, reason, device_class, day, count)
    SELECT account_id, 1, workflow_key, workflow_version, step, signal, reason, device_class, day, count FROM journey_counts;
DROP TABLE journey_counts;
ALTER TABLE journey_counts_by_mode RENAME TO journey_counts;
CREATE INDEX journey_counts_day ON journey_counts (day);
