//! The economy's statements: changes of money and holdings, idempotency keys, claims, the
//! ledger.

/// Locks the account row for the rest of the transaction and answers whether it is banned.
/// Binds: account id, now.
pub(crate) const LOCK_ACCOUNT: &str =
    "UPDATE accounts SET updated = $2 WHERE id = $1 RETURNING is_banned";

/// Records an idempotency key unless the account used it before. Binds: account id, key,
/// fingerprint, now.
pub(crate) const INSERT_IDEMPOTENCY: &str = "\
    INSERT INTO idempotency_keys (account_id, idem_key, fingerprint, granted, created) \
    VALUES ($1, $2, $3, '[]', $4) \
    ON CONFLICT (account_id, idem_key) DO NOTHING";

/// A used idempotency key's fingerprint and grants. Binds: account id, key.
pub(crate) const IDEMPOTENCY: &str =
    "SELECT fingerprint, granted FROM idempotency_keys WHERE account_id = $1 AND idem_key = $2";

/// Forgets up to a number of idempotency keys recorded before a time. The subquery bounds the
/// batch (the `idempotency_keys_created` index finds it); a key another transaction deleted
/// meanwhile is skipped. Binds: the time, the most keys.
pub(crate) const FORGET_IDEMPOTENCY: &str = "\
    DELETE FROM idempotency_keys WHERE (account_id, idem_key) IN \
        (SELECT account_id, idem_key FROM idempotency_keys WHERE created < $1 LIMIT $2)";

/// Stores what the change under an idempotency key granted. Binds: account id, key, grants.
pub(crate) const SAVE_GRANTED: &str =
    "UPDATE idempotency_keys SET granted = $3 WHERE account_id = $1 AND idem_key = $2";

/// Takes coins when the balance covers them; returns the new balance. Binds: account id, amount.
pub(crate) const DEBIT_COINS: &str =
    "UPDATE accounts SET coins = coins - $2 WHERE id = $1 AND coins >= $2 RETURNING coins";

/// Takes gems when the balance covers them; returns the new balance. Binds: account id, amount.
pub(crate) const DEBIT_GEMS: &str =
    "UPDATE accounts SET gems = gems - $2 WHERE id = $1 AND gems >= $2 RETURNING gems";

/// Gives coins up to a maximum balance; returns the new balance. Binds: account id, amount,
/// maximum.
pub(crate) const CREDIT_COINS: &str =
    "UPDATE accounts SET coins = coins + $2 WHERE id = $1 AND coins <= $3 - $2 RETURNING coins";

/// Gives gems up to a maximum balance; returns the new balance. Binds: account id, amount,
/// maximum.
pub(crate) const CREDIT_GEMS: &str =
    "UPDATE accounts SET gems = gems + $2 WHERE id = $1 AND gems <= $3 - $2 RETURNING gems";

/// The coin balance. Binds: account id.
pub(crate) const COINS: &str = "SELECT coins FROM accounts WHERE id = $1";

/// The gem balance. Binds: account id.
pub(crate) const GEMS: &str = "SELECT gems FROM accounts WHERE id = $1";

/// Writes a ledger row. Binds: account id, currency, delta, balance after, reason, reference,
/// now.
pub(crate) const INSERT_LEDGER: &str = "\
    INSERT INTO ledger (account_id, currency, delta, balance_after, reason, reference, created) \
    VALUES ($1, $2, $3, $4, $5, $6, $7)";

/// Adds experience. Binds: account id, amount.
pub(crate) const ADD_EXPERIENCE: &str =
    "UPDATE accounts SET experience = experience + $2 WHERE id = $1";

/// Moves the progress version on if it is still the expected one. Binds: account id, expected
/// version.
pub(crate) const REQUIRE_PROGRESS_VERSION: &str = "\
    UPDATE accounts SET progress_version = progress_version + 1 \
    WHERE id = $1 AND progress_version = $2";

/// Sets a progress counter. Binds: account id, counter key, value.
pub(crate) const SET_PROGRESS: &str = "\
    INSERT INTO progress (account_id, counter, value) VALUES ($1, $2, $3) \
    ON CONFLICT (account_id, counter) DO UPDATE SET value = excluded.value";

/// Sets the level. Binds: account id, level.
pub(crate) const SET_LEVEL: &str = "UPDATE accounts SET level = $2 WHERE id = $1";

/// Gives a reward track's pass unless the account owns it. Binds: account id, track id, now.
pub(crate) const INSERT_TRACK_PASS: &str = "\
    INSERT INTO track_passes (account_id, track_id, created) VALUES ($1, $2, $3) \
    ON CONFLICT (account_id, track_id) DO NOTHING";

/// Gives an item unless the account owns it. Binds: account id, item id, now.
pub(crate) const INSERT_LICENSE: &str = "\
    INSERT INTO licenses (account_id, item_id, quantity, created) VALUES ($1, $2, 1, $3) \
    ON CONFLICT (account_id, item_id) DO NOTHING";

/// Adds unopened packs up to a maximum. Binds: account id, pack id, quantity, maximum.
pub(crate) const GRANT_PACKS: &str = "\
    INSERT INTO pack_stock (account_id, pack_id, quantity) VALUES ($1, $2, $3) \
    ON CONFLICT (account_id, pack_id) DO UPDATE \
    SET quantity = pack_stock.quantity + excluded.quantity \
    WHERE pack_stock.quantity + excluded.quantity <= $4";

/// Consumes one unopened pack if there is one. Binds: account id, pack id.
pub(crate) const OPEN_PACK: &str = "\
    UPDATE pack_stock SET quantity = quantity - 1 \
    WHERE account_id = $1 AND pack_id = $2 AND quantity >= 1";

/// Takes an item away. Binds: account id, item id.
pub(crate) const DELETE_LICENSE: &str =
    "DELETE FROM licenses WHERE account_id = $1 AND item_id = $2";

/// Takes unopened packs away if there are that many. Binds: account id, pack id, quantity.
pub(crate) const REMOVE_PACKS: &str = "\
    UPDATE pack_stock SET quantity = quantity - $3 \
    WHERE account_id = $1 AND pack_id = $2 AND quantity >= $3";

/// Records a claim unless it is recorded. Binds: account id, claim key, now.
pub(crate) const INSERT_CLAIM: &str = "\
    INSERT INTO claims (account_id, claim_key, created) VALUES ($1, $2, $3) \
    ON CONFLICT (account_id, claim_key) DO NOTHING";

/// Whether the linked chat-platform account is premium; no row without a link.
/// Binds: account id.
pub(crate) const CHAT_PREMIUM: &str = "SELECT premium FROM chat_links WHERE account_id = $1";

/// The digits other accounts use with a name (any letter case). Binds: name, account id.
pub(crate) const TAKEN_DIGITS: &str =
    "SELECT friend_digits FROM accounts WHERE lower(friend_name) = lower($1) AND id <> $2";

/// Renames the friend code unless it has exactly this name. Binds: account id, name, digits.
pub(crate) const RENAME: &str = "\
    UPDATE accounts SET friend_name = $2, friend_digits = $3 WHERE id = $1 AND friend_name <> $2";

/// The holdings of the accounts whose `account_id` meets the SQL condition `$accounts` (such
/// as `= $1`), as one union in the shape of [`HoldingRow`](crate::economy::HoldingRow) plus
/// `account_id` and `position`, unordered: owned items, unopened packs (kinds with at least
/// one), in-app purchases, subscriptions.
macro_rules! holdings_of {
    ($accounts:literal) => {
        concat!(
            "SELECT 'license' AS kind, id, item_id AS thing, quantity AS amount, ",
            "CAST(NULL AS BIGINT) AS expires, item_id AS position, account_id ",
            "FROM licenses WHERE account_id ",
            $accounts,
            " UNION ALL ",
            "SELECT 'pack', id, pack_id, quantity, NULL, pack_id, account_id ",
            "FROM pack_stock WHERE account_id ",
            $accounts,
            " AND quantity > 0",
            " UNION ALL ",
            "SELECT 'iap', id, iap_id, cost_cents, NULL, id, account_id ",
            "FROM iap_purchases WHERE account_id ",
            $accounts,
            " UNION ALL ",
            "SELECT 'subscription', id, iap_id, 0, expires, iap_id, account_id ",
            "FROM subscriptions WHERE account_id ",
            $accounts
        )
    };
}

pub(crate) use holdings_of;

/// Everything an account holds, in one query, in the shape of
/// [`HoldingRow`](crate::economy::HoldingRow): owned items by item id, unopened packs (kinds with at
/// least one) by pack id, in-app purchases oldest first, subscriptions by product.
/// Binds: account id.
pub(crate) const HOLDINGS: &str = concat!(holdings_of!("= $1"), " ORDER BY kind, position");

/// The start of the query for recorded claims, built with a `QueryBuilder`: the account id
/// follows, then [`CLAIM_KEY_IN`] and the list of keys.
pub(crate) const CLAIMED_OF_ACCOUNT: &str = "SELECT claim_key FROM claims WHERE account_id = ";

/// The middle of the query for recorded claims: the keys' list follows.
pub(crate) const CLAIM_KEY_IN: &str = " AND claim_key IN (";

/// The ledger, oldest first, in the shape of [`LedgerRow`](crate::economy::LedgerRow).
/// Binds: account id.
pub(crate) const LEDGER: &str = "\
    SELECT id, account_id, currency, delta, balance_after, reason, reference, created \
    FROM ledger WHERE account_id = $1 ORDER BY id";

/// Records an in-app purchase unless its store transaction is recorded. Binds: account id,
/// store, transaction id, product id, cost in cents, now.
pub(crate) const INSERT_PURCHASE: &str = "\
    INSERT INTO iap_purchases (account_id, store, transaction_id, iap_id, cost_cents, created) \
    VALUES ($1, $2, $3, $4, $5, $6) \
    ON CONFLICT (store, transaction_id) DO NOTHING";

/// Starts or extends a subscription. Binds: account id, product id, expiry (or null).
pub(crate) const UPSERT_SUBSCRIPTION: &str = "\
    INSERT INTO subscriptions (account_id, iap_id, expires) VALUES ($1, $2, $3) \
    ON CONFLICT (account_id, iap_id) DO UPDATE SET expires = excluded.expires";
