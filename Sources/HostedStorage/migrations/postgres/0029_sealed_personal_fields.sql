-- Redaction that reaches every copy (issue 41), part 1: the columns that hold sealed bytes,
-- whose type is the dialect's (BYTEA). The rest (the keyed hash, the indexes, the data keys copied
-- into the rows) is 0030_sealed_personal_lookups.sql, the same for both dialects.
-- `personal`: the verification's personal fields sealed together with its data key;
-- `data_key`: that key, sealed with a key derived from the secret key;
-- `review_notes.sealed_body`: a reviewer's note sealed with it (`body` keeps '' then).
ALTER TABLE verifications ADD COLUMN personal BYTEA;
ALTER TABLE verifications ADD COLUMN data_key BYTEA;
ALTER TABLE review_notes ADD COLUMN sealed_body BYTEA;
