-- Journey analytics (docs/analytics.md). `journey_counts` holds aggregates only: one row per
-- account, workflow, version, step, signal, reason, device class and UTC day (days since
-- 1970-01-01), its `count` raised by one upsert per signal; no row per page view, no user id,
-- number, address or User-Agent. `step` and `reason` are '' where a signal has none.
-- Test mode will add `livemode` to the key (docs/decisions.md).
CREATE TABLE journey_counts (
    account_id        TEXT NOT NULL,
    workflow_key      TEXT NOT NULL,
    workflow_version  INTEGER NOT NULL,
    step              TEXT NOT NULL,
    signal            TEXT NOT NULL,
    reason            TEXT NOT NULL,
    device_class      TEXT NOT NULL,
    day               BIGINT NOT NULL,
    count             BIGINT NOT NULL,
    PRIMARY KEY (account_id, workflow_key, workflow_version, step, signal, reason, device_class, day)
);
CREATE INDEX journey_counts_day ON journey_counts (day);

-- When a verification's journey was first opened (step '') and each step first viewed, per
-- device class: times only, the facts the funnel's "opened" stage and the steps' median times
-- need and the verification row does not hold. At most one row per verification, step and
-- device class; pruned with the counts.
CREATE TABLE journey_firsts (
    verification_id  TEXT NOT NULL,
    step             TEXT NOT NULL,
    device_class     TEXT NOT NULL,
    at               BIGINT NOT NULL,
    PRIMARY KEY (verification_id, step, device_class)
);
CREATE INDEX journey_firsts_at ON journey_firsts (at);
