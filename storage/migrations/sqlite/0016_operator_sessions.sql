-- The operator console's sessions: a signed-in browser holds a random session id instead of
-- the operator token's secret; only the id's SHA-256 is kept, with its token and lifetime. A
-- session works until it is ended (signing out), expires, or its token is revoked (looked up
-- joined to its token); the retention sweep deletes the rows that no longer work.
CREATE TABLE operator_sessions (
    id_hash    TEXT   PRIMARY KEY,
    token_id   BIGINT NOT NULL REFERENCES operator_tokens (id),
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    ended_at   BIGINT
);
