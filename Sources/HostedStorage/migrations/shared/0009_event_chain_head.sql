-- Each verification keeps the head of its event chain (the newest event's sequence and hash) on
-- its own row. A change reads it with the row it locks, so appending an event costs no extra
-- query, and `hosted audit verify` can tell a chain whose newest events were deleted.
ALTER TABLE verifications ADD COLUMN event_sequence BIGINT NOT NULL DEFAULT 0;
ALTER TABLE verifications ADD COLUMN event_hash TEXT;
UPDATE verifications SET
    event_sequence = COALESCE((SELECT max(sequence) FROM events WHERE events.verification_id = verifications.id), 0),
    event_hash = (SELECT hash FROM events WHERE events.verification_id = verifications.id ORDER BY sequence DESC LIMIT 1);
