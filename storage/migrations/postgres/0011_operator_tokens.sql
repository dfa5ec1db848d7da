-- The operator API's tokens (only the SHA-256 of each secret is kept; a token is revoked,
-- never deleted) and the audit of what each did: append only, which the trigger enforces.
CREATE TABLE operator_tokens (
    id          BIGSERIAL PRIMARY KEY,
    name        TEXT      NOT NULL UNIQUE,
    role        TEXT      NOT NULL CHECK (role IN ('read', 'full')),
    secret_hash TEXT      NOT NULL UNIQUE,
    created_at  BIGINT    NOT NULL,
    revoked_at  BIGINT
);

CREATE TABLE operator_audit (
    id       BIGSERIAL PRIMARY KEY,
    token_id BIGINT    NOT NULL REFERENCES operator_tokens (id),
    at       BIGINT    NOT NULL,
    action   TEXT      NOT NULL,
    target   TEXT      NOT NULL,
    reason   TEXT      NOT NULL,
    result   TEXT      NOT NULL
);

CREATE INDEX operator_audit_target ON operator_audit (target, id);

CREATE FUNCTION operator_audit_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'operator_audit is append only';
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER operator_audit_append_only BEFORE UPDATE OR DELETE ON operator_audit
    FOR EACH ROW EXECUTE FUNCTION operator_audit_append_only();
