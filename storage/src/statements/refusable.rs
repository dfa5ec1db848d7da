//! The statement every refusable change of polls, tournaments and clans begins with.

/// Locks an account's row for the rest of the transaction (a no-op update) and answers whether
/// it is banned; no row without the account. The clan transactions, whitelist edits, votes,
/// tournament joins and account deletion lock account rows first, in id order, and only then a
/// clan or tournament row (deletion: its clan's, then its tournaments' in code order): so they
/// never deadlock, and while an account's row is locked no clan gains it as a member or an
/// invitee, no whitelist, poll or tournament gains it, and no deletion takes it away.
/// Binds: account id.
pub(crate) const LOCK_ACCOUNT: &str =
    "UPDATE accounts SET is_banned = is_banned WHERE id = $1 RETURNING is_banned";
