-- bench/scale.sh: clones one real verification (made through the API) and its first event into
-- verifications :from to :to of :n, five events each, in bulk SQL (bench/scale.sh runs two
-- sessions at once, each with its own range). Every column not named below is copied
-- from the template rows, so the load follows the schema as it is. The events form valid hash
-- chains (DESIGN: hash = SHA-256 hex of previous_hash, "\n" and the event's canonical JSON, keys
-- sorted, no spaces: Event.canonicalJSON), and the rule is first checked on the template's own
-- event. One in :submitted_every is submitted (for the console queue). Expiry is 30 days out.
-- :lookup is the hex of the user-id lookup key (HMAC-SHA-256 of the secret key and
-- "hosted/lookup-keys/v1"), for the clones' `user_key` (pgcrypto's hmac).
-- psql -v tpl=ver_… -v n=1000000 -v from=1 -v to=1000000 -v submitted_every=20 -v lookup=HEX -f bench/scale-load.sql
\set ON_ERROR_STOP 1
SET synchronous_commit = off;
SET temp_buffers = '512MB';
-- Triggers (the webhook outbox: the account has no endpoint) and foreign keys are not needed
-- for rows copied from valid ones.
SET session_replication_role = replica;

CREATE FUNCTION pg_temp.canon(id text, vid text, seq int, type text, data text, created bigint,
                              actor_type text, actor_id text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT '{"actor":{"id":' || COALESCE(to_json(actor_id)::text, 'null') || ',"type":' || to_json(actor_type)::text || '}'
        || ',"created_at":"' || to_char(to_timestamp(created / 1000) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS')
        || '.' || lpad((created % 1000)::text, 3, '0') || 'Z"'
        || ',"data":' || data || ',"id":' || to_json(id)::text || ',"object":"event","sequence":' || seq
        || ',"type":' || to_json(type)::text || ',"verification_id":' || to_json(vid)::text || '}'
$$;
CREATE FUNCTION pg_temp.link(previous text, canonical text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT encode(sha256(convert_to(COALESCE(previous, '') || E'\n' || canonical, 'UTF8')), 'hex')
$$;
CREATE FUNCTION pg_temp.oid(kind text, seed text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT kind || '_' || substr(translate(md5(seed), '0189', 'wxyz'), 1, 26)
$$;

-- The rule must reproduce the template's real first event (live: no livemode member).
SELECT count(*) = 1 AS rule_ok FROM events e
WHERE e.verification_id = :'tpl' AND e.sequence = 1
  AND pg_temp.link(e.previous_hash, pg_temp.canon(e.id, e.verification_id, 1, e.type, e.data, e.created_at,
                                                  e.actor_type, e.actor_id)) = e.hash \gset
\if :rule_ok
\else
\echo 'scale-load: the SQL hash rule does not reproduce the template event''s hash'
SELECT 1 / 0 AS hash_rule_mismatch;
\endif

SELECT set_config('bench.tpl', :'tpl', false), set_config('bench.submitted_every', :'submitted_every', false),
       set_config('bench.lookup', :'lookup', false);

CREATE TEMP TABLE bench_c AS
WITH a AS (SELECT actor_type, actor_id, data AS d1, created_at AS t0 FROM events WHERE verification_id = :'tpl' AND sequence = 1),
b AS (
    SELECT g, pg_temp.oid('ver', 'v' || g || :'tpl') AS vid, a.t0 - (:n - g) * 1000 AS t,
           pg_temp.oid('evt', 'e1.' || g || :'tpl') AS i1, pg_temp.oid('evt', 'e2.' || g || :'tpl') AS i2,
           pg_temp.oid('evt', 'e3.' || g || :'tpl') AS i3, pg_temp.oid('evt', 'e4.' || g || :'tpl') AS i4,
           pg_temp.oid('evt', 'e5.' || g || :'tpl') AS i5, a.*
    FROM generate_series(:from, :to) g, a
)
SELECT b.g, b.vid, b.t, b.i1, b.i2, b.i3, b.i4, b.i5, b.d1, h1, h2, h3, h4, h5
FROM b
CROSS JOIN LATERAL (SELECT pg_temp.link(NULL, pg_temp.canon(b.i1, b.vid, 1, 'verification.created', b.d1, b.t, b.actor_type, b.actor_id)) AS h1) s1
CROSS JOIN LATERAL (SELECT pg_temp.link(h1, pg_temp.canon(b.i2, b.vid, 2, 'verification.handoff_created', '{}', b.t + 10, b.actor_type, b.actor_id)) AS h2) s2
CROSS JOIN LATERAL (SELECT pg_temp.link(h2, pg_temp.canon(b.i3, b.vid, 3, 'verification.signed_in', '{"method":"handoff"}', b.t + 20, b.actor_type, b.actor_id)) AS h3) s3
CROSS JOIN LATERAL (SELECT pg_temp.link(h3, pg_temp.canon(b.i4, b.vid, 4, 'verification.step_completed', '{"step":"selfie"}', b.t + 30, b.actor_type, b.actor_id)) AS h4) s4
CROSS JOIN LATERAL (SELECT pg_temp.link(h4, pg_temp.canon(b.i5, b.vid, 5, 'verification.updated', '{}', b.t + 40, b.actor_type, b.actor_id)) AS h5) s5;

DO $load$
DECLARE
    tpl text := current_setting('bench.tpl');
    every int := current_setting('bench.submitted_every')::int;
    cols text;
    exprs text;
BEGIN
    SELECT string_agg(quote_ident(column_name), ', ' ORDER BY ordinal_position),
           string_agg(CASE column_name
                          WHEN 'id' THEN 'c.vid'
                          WHEN 'user_id' THEN '''scale-user-'' || c.g'
                          -- Looked up by its keyed hash (migration 0029); the clone's personal
                          -- fields are its clear columns, as a row written before 0029, and it
                          -- has no data key yet (the template's blob and key open only for the
                          -- template; a key is made when the clone is first changed).
                          WHEN 'user_key' THEN 'encode(hmac(convert_to(t.account_id, ''UTF8'') || ''\x00''::bytea || convert_to(''scale-user-'' || c.g, ''UTF8''), decode(current_setting(''bench.lookup''), ''hex''), ''sha256''), ''hex'')'
                          WHEN 'personal' THEN 'NULL'
                          WHEN 'data_key' THEN 'NULL'
                          WHEN 'created_at' THEN 'c.t'
                          WHEN 'updated_at' THEN 'c.t + 40'
                          WHEN 'status' THEN format('CASE WHEN c.g %% %s = 0 THEN ''submitted'' ELSE t.status END', every)
                          WHEN 'submitted_at' THEN format('CASE WHEN c.g %% %s = 0 THEN c.t + 40 END', every)
                          WHEN 'expires_at' THEN 't.created_at + 2592000000'
                          WHEN 'event_sequence' THEN '5'
                          WHEN 'event_hash' THEN 'c.h5'
                          ELSE 't.' || quote_ident(column_name) END, ', ' ORDER BY ordinal_position)
    INTO cols, exprs
    FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'verifications';
    EXECUTE format('INSERT INTO verifications (%s) SELECT %s FROM bench_c c, (SELECT * FROM verifications WHERE id = %L) t',
                   cols, exprs, tpl);

    SELECT string_agg(quote_ident(column_name), ', ' ORDER BY ordinal_position),
           string_agg(CASE column_name
                          WHEN 'id' THEN 'x.id'
                          WHEN 'verification_id' THEN 'c.vid'
                          WHEN 'sequence' THEN 'x.seq'
                          WHEN 'type' THEN 'x.type'
                          WHEN 'data' THEN 'x.data'
                          WHEN 'created_at' THEN 'c.t + (x.seq - 1) * 10'
                          WHEN 'previous_hash' THEN 'x.previous'
                          WHEN 'hash' THEN 'x.hash'
                          ELSE 't.' || quote_ident(column_name) END, ', ' ORDER BY ordinal_position)
    INTO cols, exprs
    FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'events';
    EXECUTE format($sql$
        INSERT INTO events (%s) SELECT %s
        FROM bench_c c
        CROSS JOIN LATERAL (VALUES (1, c.i1, 'verification.created', c.d1, NULL, c.h1),
                                   (2, c.i2, 'verification.handoff_created', '{}', c.h1, c.h2),
                                   (3, c.i3, 'verification.signed_in', '{"method":"handoff"}', c.h2, c.h3),
                                   (4, c.i4, 'verification.step_completed', '{"step":"selfie"}', c.h3, c.h4),
                                   (5, c.i5, 'verification.updated', '{}', c.h4, c.h5)) x(seq, id, type, data, previous, hash),
             (SELECT * FROM events WHERE verification_id = %L AND sequence = 1) t
        $sql$, cols, exprs, tpl);
END
$load$;
DROP TABLE bench_c;
SET session_replication_role = origin;
