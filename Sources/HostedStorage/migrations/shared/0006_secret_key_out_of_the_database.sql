-- The secret key now lives outside the database it protects (HOSTED_SECRET_KEY or its key
-- file): a dump must not hold both the key and what it protects. The old generated copy goes.
DELETE FROM settings WHERE key = 'secret_key';
