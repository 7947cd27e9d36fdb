-- Every mobile number a verification ever had can be erased by its redaction (issue 37, defect 9):
-- the dev outbox records which verification a message was about (a message to a number the
-- verification no longer has is found by it), and rate-limit buckets name a number only by a
-- keyed hash of it (HMAC under a key derived from the secret key, which the database never
-- holds). Buckets written before this migration named the number in clear: they are dropped
-- (each allows a full burst again, which is what a pruned bucket does anyway).
ALTER TABLE sms_outbox ADD COLUMN verification_id TEXT;
CREATE INDEX sms_outbox_verification ON sms_outbox (verification_id);
DELETE FROM rate_limits WHERE bucket LIKE 'otp-number:+%';
