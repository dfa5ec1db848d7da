//! The statements finding and listing players for the operator console. Each reads one page in
//! the order of an index, from the last row of the page before (a keyset, never an offset).

/// What a listing shows of a player, from `accounts a` and its last sign-in
/// `account_last_sign_in s`, in the shape of
/// [`PlayerRow`](crate::player_directory::PlayerRow) but for its sort key, which follows.
macro_rules! player_columns {
    () => {
        "SELECT a.id, a.friend_name, a.friend_digits, a.name, a.level, a.coins, a.gems, \
         a.is_banned, a.created, s.at AS last_sign_in, "
    };
}

/// Every player, newest first, before an id. Binds: id, limit.
pub(crate) const NEWEST: &str = concat!(
    player_columns!(),
    "CAST(NULL AS TEXT) AS sort_key \
     FROM accounts a LEFT JOIN account_last_sign_in s ON s.account_id = a.id \
     WHERE a.id < $1 ORDER BY a.id DESC LIMIT $2"
);

/// The banned players, newest first, before an id (index `accounts_banned`). Binds: id,
/// limit.
pub(crate) const BANNED: &str = concat!(
    player_columns!(),
    "CAST(NULL AS TEXT) AS sort_key \
     FROM accounts a LEFT JOIN account_last_sign_in s ON s.account_id = a.id \
     WHERE a.is_banned AND a.id < $1 ORDER BY a.id DESC LIMIT $2"
);

/// The players by last sign-in, most recent first, before a sign-in and account (index
/// `account_last_sign_in_at`). Binds: at (microseconds), account id, limit.
pub(crate) const LAST_SIGN_IN: &str = concat!(
    player_columns!(),
    "CAST(NULL AS TEXT) AS sort_key \
     FROM account_last_sign_in s JOIN accounts a ON a.id = s.account_id \
     WHERE (s.at, s.account_id) < ($1, $2) \
     ORDER BY s.at DESC, s.account_id DESC LIMIT $3"
);

/// The players whose lowered friend-code name is in a range and digits in another, by lowered
/// name and digits, after a name and digits (on the first page, the range's first name and -1:
/// one lower bound, where the index scan starts). `$collate` makes the lowered name compare byte
/// by byte (PostgreSQL's `COLLATE "C"`; SQLite's default), as its index does; `$from` repeats
/// the lower bound on the name alone for SQLite, whose index scan starts only from such a bound
/// (PostgreSQL's would then start from the wider of the two). Binds: after name, after digits,
/// name until, digits from, digits to, limit.
macro_rules! friend_code_prefix {
    ($collate:literal, $from:literal) => {
        concat!(
            player_columns!(),
            "lower(a.friend_name) AS sort_key \
             FROM accounts a LEFT JOIN account_last_sign_in s ON s.account_id = a.id \
             WHERE (lower(a.friend_name)",
            $collate,
            ", a.friend_digits) > ($1, $2) AND lower(a.friend_name)",
            $collate,
            " < $3",
            $from,
            " AND a.friend_digits BETWEEN $4 AND $5 ORDER BY lower(a.friend_name)",
            $collate,
            ", a.friend_digits LIMIT $6"
        )
    };
}

/// The players whose lowered display name starts with a lowered text, by lowered name and id,
/// after a name and id (on the first page, no name: the lowered text itself, and the lowest
/// id; one lower bound, where the index scan starts). `$collate` and `$from` as for
/// [`friend_code_prefix`]. Binds: the text, the highest character (U+10FFFF, which closes the
/// range of names starting with the text), after name (or null), after id, limit.
macro_rules! name_prefix {
    ($collate:literal, $from:literal) => {
        concat!(
            player_columns!(),
            "lower(a.name) AS sort_key \
             FROM accounts a LEFT JOIN account_last_sign_in s ON s.account_id = a.id \
             WHERE (lower(a.name)",
            $collate,
            ", a.id) > (COALESCE($3, lower($1)), $4) AND lower(a.name)",
            $collate,
            " < lower($1) || $2",
            $from,
            " ORDER BY lower(a.name)",
            $collate,
            ", a.id LIMIT $5"
        )
    };
}

/// [`friend_code_prefix`] on PostgreSQL (index `accounts_friend_name_search`).
pub(crate) const FRIEND_CODE_PREFIX_POSTGRES: &str = friend_code_prefix!(" COLLATE \"C\"", "");
/// [`friend_code_prefix`] on SQLite (index `accounts_friend_code`).
pub(crate) const FRIEND_CODE_PREFIX_SQLITE: &str =
    friend_code_prefix!("", " AND lower(a.friend_name) >= $1");
/// [`name_prefix`] on PostgreSQL (index `accounts_name_search`).
pub(crate) const NAME_PREFIX_POSTGRES: &str = name_prefix!(" COLLATE \"C\"", "");
/// [`name_prefix`] on SQLite (index `accounts_name_search`).
pub(crate) const NAME_PREFIX_SQLITE: &str =
    name_prefix!("", " AND lower(a.name) >= COALESCE($3, lower($1))");
