//! The statements of the operator console's sessions.

/// Opens a session of an unrevoked token. Binds: the id's hash, token id, created at, expires
/// at (microseconds); inserts nothing when the token is revoked or unknown, or the hash taken.
pub(crate) const OPEN_SESSION: &str = "\
    INSERT INTO operator_sessions (id_hash, token_id, created_at, expires_at) \
    SELECT $1, id, $3, $4 FROM operator_tokens WHERE id = $2 AND revoked_at IS NULL \
    ON CONFLICT DO NOTHING";

/// The token of a session that works: not ended, not expired, its token not revoked. Binds:
/// the id's hash, now (microseconds).
pub(crate) const SESSION_TOKEN: &str = "\
    SELECT t.id, t.name, t.role, t.created_at, t.revoked_at \
    FROM operator_sessions s JOIN operator_tokens t ON t.id = s.token_id \
    WHERE s.id_hash = $1 AND s.ended_at IS NULL AND s.expires_at > $2 \
    AND t.revoked_at IS NULL";

/// Ends a session that has neither ended nor expired. Binds: the id's hash, now
/// (microseconds).
pub(crate) const END_SESSION: &str = "\
    UPDATE operator_sessions SET ended_at = $2 \
    WHERE id_hash = $1 AND ended_at IS NULL AND expires_at > $2";

/// Deletes a batch of sessions that no longer work: ended, expired, or of a revoked token.
/// Binds: now (microseconds), the batch's size.
pub(crate) const DELETE_FINISHED: &str = "\
    DELETE FROM operator_sessions WHERE id_hash IN \
        (SELECT s.id_hash FROM operator_sessions s JOIN operator_tokens t ON t.id = s.token_id \
         WHERE s.ended_at IS NOT NULL OR s.expires_at <= $1 OR t.revoked_at IS NOT NULL \
         LIMIT $2)";
