-- Signed user keys: a key carries its account, expiry and the account's key generation under
-- an HMAC, so a sign-in records no key. "Revoke all keys" moves the generation on; one
-- signed key revoked (a sign-out) is remembered by its hash until it expires. Keys recorded
-- in `user_keys` before keep working until they expire. The secret that signs keys lives here
-- only when no secret is configured (`--user-key-secret`).
ALTER TABLE accounts ADD COLUMN key_generation BIGINT NOT NULL DEFAULT 0;

CREATE TABLE revoked_user_keys (
    key_hash TEXT   PRIMARY KEY,
    expires  BIGINT NOT NULL
);

CREATE INDEX revoked_user_keys_expires ON revoked_user_keys (expires);

CREATE TABLE server_secrets (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
