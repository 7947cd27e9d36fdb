-- DigiLocker round trips: each `state` handed to the provider, stored as a hash, bound to its
-- verification and step and to the browser that started it (a hash of the nonce in that
-- browser's cookie); used once. The PKCE verifier is derived from the state with the secret
-- key, so it is never stored. `language` is the page's, to come back in it.
CREATE TABLE digilocker_states (
    state_hash       TEXT PRIMARY KEY,
    verification_id  TEXT NOT NULL REFERENCES verifications (id),
    step_id          TEXT NOT NULL,
    nonce_hash       TEXT NOT NULL,
    language         TEXT,
    created_at       BIGINT NOT NULL,
    expires_at       BIGINT NOT NULL,
    used_at          BIGINT
);
CREATE INDEX digilocker_states_verification ON digilocker_states (verification_id);

-- The dev-mode DigiLocker simulator's authorization codes and access tokens (hashes only).
CREATE TABLE digilocker_sim_codes (
    code_hash       TEXT PRIMARY KEY,
    client_id       TEXT NOT NULL,
    redirect_uri    TEXT NOT NULL,
    code_challenge  TEXT NOT NULL,
    created_at      BIGINT NOT NULL,
    expires_at      BIGINT NOT NULL,
    used_at         BIGINT
);
CREATE TABLE digilocker_sim_tokens (
    token_hash  TEXT PRIMARY KEY,
    created_at  BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL
);
