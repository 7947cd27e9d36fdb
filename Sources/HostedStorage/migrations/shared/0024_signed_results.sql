-- Signed results on return (issue 40, docs/results.md). `signing_keys` holds the ES256 keys
-- that sign the return URL's result and the evidence bundle: `generation` counts them (the first
-- key is generation 1, each rotation adds the next one), and its UNIQUE constraint is what lets
-- any number of nodes starting at once create the first key exactly once. The newest key
-- (`retired_at` NULL) signs; a rotated-out key keeps its public JWK, published for 7 days after
-- `retired_at`, and loses its private key at rotation. `private_key_sealed` is the DER key
-- sealed with AES-256-GCM under a key derived from the service's secret key (base64), never
-- clear. `public_jwk` is the JWKS entry as served.
CREATE TABLE signing_keys (
    id                  TEXT PRIMARY KEY,
    generation          INTEGER NOT NULL UNIQUE,
    created_at          BIGINT NOT NULL,
    retired_at          BIGINT,
    private_key_sealed  TEXT,
    public_jwk          TEXT NOT NULL
);

-- The `nonce` a customer gives when creating a handoff, carried to the session it opens, so the
-- signed result of that visit's submit echoes it (at most 128 printable ASCII characters).
ALTER TABLE handoffs ADD COLUMN nonce TEXT;
ALTER TABLE journey_sessions ADD COLUMN nonce TEXT;
