-- Figures at scale (issue 41; docs/performance.md, "Figures at scale"). Lists whose cost grew
-- with the table now read one page of an index each.
-- The customer API's list by user: newest first within one user's verifications (it read the
-- account's rows newest first until it found the user's: 617 ms at 222,732 verifications).
CREATE INDEX verifications_user_list ON verifications (account_id, livemode, user_id, created_at DESC, id DESC);
-- The console queue in its own order (submitted, else created; then id) within one status: it
-- sorted every verification of the status for each page.
DROP INDEX verifications_queue;
CREATE INDEX verifications_queue ON verifications (account_id, livemode, status, (COALESCE(submitted_at, created_at)), id);
