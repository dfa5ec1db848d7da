//! The statements of sign-in, keys, sessions, account views, roles, bans, the chat link and
//! deletion.

/// Locks an identity's account row for the rest of the transaction (a no-op update) and
/// returns its id and key generation; no row without the account. Locked, the account cannot
/// be deleted before the sign-in's events are written. Binds: provider, identifier.
pub(crate) const LOCK_ACCOUNT_OF_IDENTITY: &str = "\
    UPDATE accounts SET is_banned = is_banned WHERE provider = $1 AND identifier = $2 \
    RETURNING id, key_generation";

/// The sign-ins of existing accounts in one statement: appends each one's event whose account
/// still exists, and answers the account id and its key generation per event written; no row
/// for an account gone. The rows (`account`, `kind`, `payload`, `created`) and then
/// [`SIGN_INS_EXISTING_END`] follow.
pub(crate) const SIGN_INS_EXISTING: &str = "\
    INSERT INTO events (account_id, kind, payload, created) \
    SELECT accounts.id, r.kind, r.payload, r.created FROM ";

/// The end of [`SIGN_INS_EXISTING`].
pub(crate) const SIGN_INS_EXISTING_END: &str = " AS r JOIN accounts ON accounts.id = r.account \
    WHERE true \
    RETURNING account_id, \
        (SELECT key_generation FROM accounts WHERE accounts.id = events.account_id)";

/// The columns of an account in the shape of [`AccountRow`](crate::accounts::AccountRow).
macro_rules! account_columns {
    () => {
        concat!(
            "accounts.id, accounts.provider, accounts.identifier, accounts.name, ",
            "accounts.avatar, accounts.email, accounts.friend_name, accounts.friend_digits, ",
            "accounts.status, accounts.experience, accounts.level, accounts.coins, ",
            "accounts.gems, accounts.role, accounts.is_banned, accounts.created, ",
            "accounts.updated"
        )
    };
}

/// The select of an account in the shape of [`AccountRow`](crate::accounts::AccountRow) with a
/// condition; the longer form adds columns and joins to `accounts`.
macro_rules! select_account {
    ($condition:literal) => {
        select_account!("", "accounts", $condition)
    };
    ($extra_columns:literal, $from:literal, $condition:literal) => {
        concat!(
            "SELECT ",
            account_columns!(),
            $extra_columns,
            " FROM ",
            $from,
            " WHERE ",
            $condition
        )
    };
}

/// The account view of the account a condition finds: one row per holding (one row with null
/// holding columns when it holds nothing), each with the account's columns in the shape of
/// [`ViewedAccountRow`](crate::accounts::ViewedAccountRow) (the account, its clan's id, the key's
/// expiry from the extra column) and the holding's in the shape of
/// [`HeldRow`](crate::accounts::HeldRow), in the order of
/// [`HOLDINGS`](crate::statements::economy::HOLDINGS).
macro_rules! select_account_view {
    ($key_expires:literal, $from:literal, $condition:literal) => {
        concat!(
            viewed_accounts!($key_expires, $from),
            $condition,
            held_by_viewed!(),
            crate::statements::economy::holdings_of!("= (SELECT viewed.id FROM viewed)"),
            ") held ON 1 = 1 ORDER BY held.kind, held.position"
        )
    };
}

/// The start of an account view's query (see `select_account_view!`) up to its condition:
/// the accounts `viewed` from `$from` with their clan's id and `$key_expires`, `WHERE` last.
macro_rules! viewed_accounts {
    ($key_expires:literal, $from:literal) => {
        concat!(
            "WITH viewed AS (SELECT ",
            account_columns!(),
            ", (SELECT clan_members.clan_id FROM clan_members ",
            "WHERE clan_members.account_id = accounts.id) AS clan_id, ",
            $key_expires,
            " AS key_expires FROM ",
            $from,
            " WHERE "
        )
    };
}

/// The middle of an account view's query (see `select_account_view!`) after its condition:
/// every `viewed` column and the holding's, joined to the holdings that follow.
macro_rules! held_by_viewed {
    () => {
        concat!(
            ") SELECT viewed.*, held.kind AS held_kind, held.id AS held_id, ",
            "held.thing AS held_thing, held.amount AS held_amount, held.expires AS held_expires ",
            "FROM viewed LEFT JOIN ("
        )
    };
}

/// The start of the query of many accounts' views (each as `select_account_view!` reads one,
/// its holdings' rows beside it): the condition that `accounts.id` is one of a list follows,
/// then [`ACCOUNT_VIEWS_END`].
pub(crate) const ACCOUNT_VIEWS: &str = concat!(
    viewed_accounts!("CAST(NULL AS BIGINT)", "accounts"),
    "accounts.id"
);

/// The end of [`ACCOUNT_VIEWS`]: the rows of one account follow each other, in account order.
pub(crate) const ACCOUNT_VIEWS_END: &str = concat!(
    held_by_viewed!(),
    crate::statements::economy::holdings_of!("IN (SELECT viewed.id FROM viewed)"),
    ") held ON held.account_id = viewed.id ORDER BY viewed.id, held.kind, held.position"
);

/// An unexpired key's account view (see `select_account_view!`), its expiry as `key_expires`;
/// no row for an unknown or expired key. Binds: key hash, now.
pub(crate) const SESSION_VIEW: &str = select_account_view!(
    "user_keys.expires",
    "accounts JOIN user_keys ON user_keys.account_id = accounts.id",
    "user_keys.key_hash = $1 AND user_keys.expires > $2"
);

/// An account's view (see `select_account_view!`), with a null `key_expires`; no row without
/// the account. Binds: account id.
pub(crate) const ACCOUNT_VIEW: &str =
    select_account_view!("CAST(NULL AS BIGINT)", "accounts", "accounts.id = $1");

/// The view of an identity's account (see `select_account_view!`), with a null
/// `key_expires`; no row without the account. Binds: provider, identifier.
pub(crate) const ACCOUNT_VIEW_OF_IDENTITY: &str = select_account_view!(
    "CAST(NULL AS BIGINT)",
    "accounts",
    "accounts.provider = $1 AND accounts.identifier = $2"
);

/// Creates the account of an identity unless it exists; returns the new account in the shape
/// of [`AccountRow`](crate::accounts::AccountRow), or no row.
///
/// Binds: provider, identifier, name, avatar, email, friend name, friend digits, now.
pub(crate) const INSERT_ACCOUNT: &str = concat!(
    "INSERT INTO accounts ",
    "(provider, identifier, name, avatar, email, friend_name, friend_digits, created, updated) ",
    "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) ",
    "ON CONFLICT (provider, identifier) DO NOTHING RETURNING ",
    account_columns!()
);

/// A new account with its two events (`account_created`, then `signed_in`) in one statement,
/// where the database can (PostgreSQL): the account of an identity unless it exists, in the
/// shape of [`AccountRow`](crate::accounts::AccountRow), or no row (nothing written) when it does;
/// a taken friend code fails the statement (a unique violation), writing nothing.
///
/// Binds: provider, identifier, name, avatar, email, friend name, friend digits, now, then
/// the two events' kinds and payloads.
pub(crate) const CREATE_ACCOUNT_SIGNED_IN: &str = concat!(
    "WITH created AS (",
    "INSERT INTO accounts ",
    "(provider, identifier, name, avatar, email, friend_name, friend_digits, created, updated) ",
    "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) ",
    "ON CONFLICT (provider, identifier) DO NOTHING RETURNING ",
    account_columns!(),
    "), logged AS (",
    "INSERT INTO events (account_id, kind, payload, created) ",
    "SELECT created.id, e.kind, e.payload, $8 FROM created ",
    "CROSS JOIN (VALUES (1, $9, $10), (2, $11, $12)) AS e (at, kind, payload) ORDER BY e.at ",
    "RETURNING id) ",
    "SELECT * FROM created"
);

/// New accounts with their two events each (`account_created`, then `signed_in`) in one
/// statement, where the database can (PostgreSQL): the rows (`at`, `provider`, `identifier`,
/// `name`, `avatar`, `email`, `friend_name`, `friend_digits`, `created`, `created_kind`,
/// `created_payload`, `signed_in_kind`, `signed_in_payload`) and then [`CREATE_ACCOUNTS_END`]
/// follow. Answers each account created, in the shape of [`AccountRow`](crate::accounts::AccountRow);
/// a row whose identity has an account (or comes again later in the batch) or whose friend
/// code is taken creates nothing.
pub(crate) const CREATE_ACCOUNTS: &str = "WITH r AS ";

/// The end of [`CREATE_ACCOUNTS`].
pub(crate) const CREATE_ACCOUNTS_END: &str = concat!(
    ", first AS (SELECT DISTINCT ON (provider, identifier) * FROM r ",
    "ORDER BY provider, identifier, at), ",
    "made AS (INSERT INTO accounts ",
    "(provider, identifier, name, avatar, email, friend_name, friend_digits, created, updated) ",
    "SELECT provider, identifier, name, avatar, email, friend_name, friend_digits, created, ",
    "created FROM first ORDER BY at ON CONFLICT DO NOTHING RETURNING ",
    account_columns!(),
    "), logged AS (",
    "INSERT INTO events (account_id, kind, payload, created) ",
    "SELECT made.id, e.kind, e.payload, made.created FROM made ",
    "JOIN first ON first.provider = made.provider AND first.identifier = made.identifier ",
    "CROSS JOIN LATERAL (VALUES (1, first.created_kind, first.created_payload), ",
    "(2, first.signed_in_kind, first.signed_in_payload)) AS e (at, kind, payload) ",
    "ORDER BY made.id, e.at RETURNING id) ",
    "SELECT * FROM made"
);

/// The start of the statement creating the accounts of many first sign-ins where a statement
/// writes one table (SQLite; their events follow in a statement of their own), answering those
/// created in the shape of [`AccountRow`](crate::accounts::AccountRow); the rows (those of
/// [`CREATE_ACCOUNTS`]) and then [`INSERT_ACCOUNTS_END`] follow.
pub(crate) const INSERT_ACCOUNTS: &str = concat!(
    "INSERT INTO accounts ",
    "(provider, identifier, name, avatar, email, friend_name, friend_digits, created, updated) ",
    "SELECT provider, identifier, name, avatar, email, friend_name, friend_digits, created, ",
    "created FROM "
);

/// The end of [`INSERT_ACCOUNTS`]: a row whose identity has an account (one made by an earlier
/// row of the batch too) or whose friend code is taken writes nothing.
pub(crate) const INSERT_ACCOUNTS_END: &str = concat!(
    " AS r WHERE true ORDER BY at ON CONFLICT DO NOTHING RETURNING ",
    account_columns!()
);

/// An account, in the shape of [`AccountRow`](crate::accounts::AccountRow). Binds: id.
pub(crate) const ACCOUNT_BY_ID: &str = select_account!("id = $1");

/// The account of a friend code (the name in any letter case), in the shape of
/// [`AccountRow`](crate::accounts::AccountRow). Binds: name, digits.
pub(crate) const ACCOUNT_BY_FRIEND_CODE: &str =
    select_account!("lower(friend_name) = lower($1) AND friend_digits = $2");

/// The account of a sign-in identity, in the shape of [`AccountRow`](crate::accounts::AccountRow).
/// Binds: provider, identifier.
pub(crate) const ACCOUNT_BY_IDENTITY: &str = select_account!("provider = $1 AND identifier = $2");

/// An account's key generation. Binds: account id.
pub(crate) const KEY_GENERATION: &str = "SELECT key_generation FROM accounts WHERE id = $1";

/// An unexpired stored key's account and expiry in one query, in the shape of
/// [`SessionRow`](crate::accounts::SessionRow). Binds: key hash, now.
pub(crate) const SESSION: &str = select_account!(
    ", user_keys.expires AS key_expires",
    "accounts JOIN user_keys ON user_keys.account_id = accounts.id",
    "user_keys.key_hash = $1 AND user_keys.expires > $2"
);

/// A working signed key's account with the key's expiry, in the shape of
/// [`SessionRow`](crate::accounts::SessionRow): the account exists, the key was issued under its
/// key generation and was not revoked on its own. Binds: account id, generation, expiry, key
/// hash.
pub(crate) const SIGNED_SESSION: &str = select_account!(
    ", CAST($3 AS BIGINT) AS key_expires",
    "accounts",
    "accounts.id = $1 AND accounts.key_generation = $2 AND NOT EXISTS \
     (SELECT 1 FROM revoked_user_keys WHERE revoked_user_keys.key_hash = $4)"
);

/// A working signed key's account view (see `select_account_view!`), its expiry as
/// `key_expires`, by the rule of [`SIGNED_SESSION`]. Binds: account id, generation, expiry,
/// key hash.
pub(crate) const SIGNED_SESSION_VIEW: &str = select_account_view!(
    "CAST($3 AS BIGINT)",
    "accounts",
    "accounts.id = $1 AND accounts.key_generation = $2 AND NOT EXISTS \
     (SELECT 1 FROM revoked_user_keys WHERE revoked_user_keys.key_hash = $4)"
);

/// Revokes one stored key. Binds: key hash.
pub(crate) const DELETE_KEY: &str = "DELETE FROM user_keys WHERE key_hash = $1";

/// Revokes one signed key until its expiry, when it still works but for its expiry (its
/// account exists under its key generation) and is not revoked yet. Binds: key hash, expiry,
/// account id, generation.
pub(crate) const REVOKE_SIGNED_KEY: &str = "\
    INSERT INTO revoked_user_keys (key_hash, expires) SELECT $1, $2 \
    WHERE EXISTS (SELECT 1 FROM accounts WHERE id = $3 AND key_generation = $4) \
    ON CONFLICT (key_hash) DO NOTHING";

/// Moves an account's key generation on, modulo
/// [`KEY_GENERATIONS`](safezone_core::domain::KEY_GENERATIONS): every signed key issued
/// before stops working. Binds: account id.
pub(crate) const NEXT_KEY_GENERATION: &str = "\
    UPDATE accounts SET key_generation = (key_generation + 1) % 16777216 WHERE id = $1";

/// Revokes every stored key of an account. Binds: account id.
pub(crate) const DELETE_KEYS_OF_ACCOUNT: &str = "DELETE FROM user_keys WHERE account_id = $1";

/// Deletes up to a number of revocations of signed keys that expired at or before a time.
/// Binds: now, the most rows.
pub(crate) const DELETE_EXPIRED_REVOCATIONS: &str = "\
    DELETE FROM revoked_user_keys WHERE key_hash IN \
        (SELECT key_hash FROM revoked_user_keys WHERE expires <= $1 LIMIT $2)";

/// Stores the user-key secret unless one is stored. Binds: the secret.
pub(crate) const STORE_KEY_SECRET: &str = "\
    INSERT INTO server_secrets (name, value) VALUES ('user_keys', $1) \
    ON CONFLICT (name) DO NOTHING";

/// The stored user-key secret.
pub(crate) const KEY_SECRET: &str = "SELECT value FROM server_secrets WHERE name = 'user_keys'";

/// Deletes up to a number of keys that expired at or before a time. The subquery bounds the
/// batch (the `user_keys_expires` index finds it); a key another transaction deleted meanwhile
/// is skipped. Binds: now, the most keys.
pub(crate) const DELETE_EXPIRED_KEYS: &str = "\
    DELETE FROM user_keys WHERE key_hash IN \
        (SELECT key_hash FROM user_keys WHERE expires <= $1 LIMIT $2)";

/// Deletes an account; its keys go by cascade. Binds: account id.
pub(crate) const DELETE_ACCOUNT: &str = "DELETE FROM accounts WHERE id = $1";

/// The events of an account whose payloads tell personal data (its friend code): account
/// creations and renames (the partial index `events_personal` finds them). Binds: account id;
/// answers id and payload.
pub(crate) const PERSONAL_EVENTS: &str = "\
    SELECT id, payload FROM events \
    WHERE account_id = $1 AND kind IN ('account_created', 'renamed')";

/// Replaces an event's payload. Binds: event id, payload.
pub(crate) const SET_EVENT_PAYLOAD: &str = "UPDATE events SET payload = $2 WHERE id = $1";

/// Sets an account's role. Binds: account id, role.
pub(crate) const SET_ROLE: &str = "UPDATE accounts SET role = $2 WHERE id = $1";

/// Bans or unbans an account. Binds: account id, banned.
pub(crate) const SET_BANNED: &str = "UPDATE accounts SET is_banned = $2 WHERE id = $1";

/// Links a chat-platform account, replacing an earlier link. Binds: account id, chat user,
/// premium, now.
pub(crate) const LINK_CHAT: &str = "\
    INSERT INTO chat_links (account_id, chat_user, premium, checked) VALUES ($1, $2, $3, $4) \
    ON CONFLICT (account_id) DO UPDATE \
    SET chat_user = excluded.chat_user, premium = excluded.premium, checked = excluded.checked";
