-- Redaction that reaches every copy (issue 41), part 2 (0029 added the sealed columns). A
-- verification's personal fields (user id, mobile number, metadata, decision reason, the message of a resubmission request, where its
-- photos were taken) are sealed together in `personal` with the verification's data key, which
-- moves into the verification's own row (`data_key`, sealed with a key derived from the secret
-- key as in `verification_keys` since migration 0025, which it replaces: one read, no lookup
-- whose plan depends on another table's statistics); `user_key` is a keyed hash of the user id (HMAC
-- under a key derived from the secret key, which the database never holds), and every lookup
-- by user goes through it. Deleting the data key at redaction makes every copy of the sealed
-- values unreadable at once: heap files before VACUUM, the WAL, replicas, earlier backups.
-- Rows written before this migration keep their clear columns until `serve` (or
-- `hosted migrate`) seals them, in batches, before it answers anything; a sealed row keeps
-- '' / '{}' / NULL in the old columns.
ALTER TABLE verifications ADD COLUMN user_key TEXT;
UPDATE verifications SET data_key = (SELECT sealed_key FROM verification_keys k WHERE k.verification_id = verifications.id)
    WHERE id IN (SELECT verification_id FROM verification_keys WHERE sealed_key IS NOT NULL);
DROP TABLE verification_keys;
DROP INDEX verifications_open;
CREATE UNIQUE INDEX verifications_open ON verifications (account_id, livemode, user_key, workflow_key)
    WHERE status NOT IN ('canceled', 'expired');
DROP INDEX verifications_user_list;
CREATE INDEX verifications_user_list ON verifications (account_id, livemode, user_key, created_at DESC, id DESC);
-- The upgrade's batches find the rows still in clear.
CREATE INDEX verifications_unsealed ON verifications (id) WHERE user_key IS NULL;

-- Artifacts kept in the database (profile forms, DigiLocker documents, and photos unless they
-- are in object storage) are sealed with the same data key: 1 = `content` is sealed.
ALTER TABLE artifacts ADD COLUMN content_sealed INTEGER NOT NULL DEFAULT 0;

-- A stored idempotent reply that shows a verification is sealed with that verification's data
-- key; `shows` lists the verification ids it shows (' ver_a ver_b '), so redaction finds it
-- without reading it. `sealed_for`: whose key sealed `body` (NULL: in clear, as before).
ALTER TABLE idempotency_keys ADD COLUMN shows TEXT;
ALTER TABLE idempotency_keys ADD COLUMN sealed_for TEXT;
