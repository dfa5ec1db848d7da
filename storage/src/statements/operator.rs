//! The statements of the operator tokens and their audit.

/// Creates a token unless its name or secret hash is taken. Binds: name, role, secret hash,
/// now (microseconds); answers its id, or no row.
pub(crate) const CREATE_TOKEN: &str = "\
    INSERT INTO operator_tokens (name, role, secret_hash, created_at) VALUES ($1, $2, $3, $4) \
    ON CONFLICT DO NOTHING RETURNING id";

/// The unrevoked token with a secret hash. Binds: the hash.
pub(crate) const TOKEN_BY_HASH: &str = "\
    SELECT id, name, role, created_at, revoked_at FROM operator_tokens \
    WHERE secret_hash = $1 AND revoked_at IS NULL";

/// Revokes the unrevoked token with a name. Binds: the name, now (microseconds).
pub(crate) const REVOKE_TOKEN: &str = "\
    UPDATE operator_tokens SET revoked_at = $2 WHERE name = $1 AND revoked_at IS NULL";

/// Every token, in the order created.
pub(crate) const TOKENS: &str = "\
    SELECT id, name, role, created_at, revoked_at FROM operator_tokens ORDER BY id";

/// Appends an audit row. Binds: token id, at (microseconds), action, target, reason, result;
/// answers its id.
pub(crate) const APPEND_AUDIT: &str = "\
    INSERT INTO operator_audit (token_id, at, action, target, reason, result) \
    VALUES ($1, $2, $3, $4, $5, $6) RETURNING id";

/// The audit rows, newest first, each filter applying when given. Binds: token name, action,
/// target (each text or null), the limit.
pub(crate) const AUDIT: &str = "\
    SELECT a.id, t.name, a.token_id, a.at, a.action, a.target, a.reason, a.result \
    FROM operator_audit a JOIN operator_tokens t ON t.id = a.token_id \
    WHERE (CAST($1 AS TEXT) IS NULL OR t.name = CAST($1 AS TEXT)) \
    AND (CAST($2 AS TEXT) IS NULL OR a.action = CAST($2 AS TEXT)) \
    AND (CAST($3 AS TEXT) IS NULL OR a.target = CAST($3 AS TEXT)) \
    ORDER BY a.id DESC LIMIT $4";
