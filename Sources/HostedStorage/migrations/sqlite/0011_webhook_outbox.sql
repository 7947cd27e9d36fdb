-- SQLite: nothing to change. Its webhook outbox is written from Swift (`EventStore.insert`) on
-- the event's own connection and transaction; PostgreSQL's is a trigger on `events` (see
-- migrations/postgres/0011_webhook_outbox.sql). Kept so both dialects list the same migrations.
SELECT 1;
