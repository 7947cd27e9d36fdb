-- Continue in your app, report, typed numbers (issue 42).
-- A workflow's continuation options: the phone picks the number among three or types it, and
-- what a "this wasn't me" report does besides flagging (flag, or cancel too).
ALTER TABLE workflows ADD COLUMN continuation_matching TEXT NOT NULL DEFAULT 'choose';
ALTER TABLE workflows ADD COLUMN continuation_on_report TEXT NOT NULL DEFAULT 'flag';
-- What a reviewer should know first (a JSON array of flag codes, e.g. continuation_reported).
ALTER TABLE verifications ADD COLUMN flags TEXT NOT NULL DEFAULT '[]';
-- Where a continuation was asked for, coarse (browser and OS family, never the User-Agent), for
-- the phone's "requested from Chrome on Windows"; when the computer asked to continue in the
-- customer's app (once per link).
ALTER TABLE continuations ADD COLUMN origin_browser TEXT;
ALTER TABLE continuations ADD COLUMN origin_os TEXT;
ALTER TABLE continuations ADD COLUMN app_requested_at BIGINT;
-- A handoff minted for the customer's app to join the computer's live continuation: it opens
-- that continuation (number matching first) instead of signing in.
ALTER TABLE handoffs ADD COLUMN continuation_id TEXT;
