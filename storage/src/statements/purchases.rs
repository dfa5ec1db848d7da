//! The statements of purchases applied together ([`crate::purchases`]) beside those they share
//! with match reports. A statement that reads a batch of rows is written in two parts around
//! them ([`crate::bulk`]), which it calls `u`.

/// The start of the statement recording the purchases' idempotency keys, with no grants yet,
/// answering the accounts whose key is recorded now; the rows (`account`, `idem_key`,
/// `fingerprint`, `created`) and then [`RECORD_KEYS_END`] follow.
pub(crate) const RECORD_KEYS: &str = "\
    INSERT INTO idempotency_keys (account_id, idem_key, fingerprint, granted, created) \
    SELECT account, idem_key, fingerprint, '[]', created FROM ";

/// The end of the statement recording idempotency keys: a key used before is left as it is.
pub(crate) const RECORD_KEYS_END: &str = " AS u WHERE true \
    ON CONFLICT (account_id, idem_key) DO NOTHING RETURNING account_id";

/// The start of the statement saving what the purchases with a key granted; the rows
/// (`account`, `idem_key`, `granted` as JSON) and then [`SAVE_GRANTED_END`] follow.
pub(crate) const SAVE_GRANTED: &str = "UPDATE idempotency_keys SET granted = u.granted FROM ";

/// The end of the statement saving grants.
pub(crate) const SAVE_GRANTED_END: &str = " AS u \
    WHERE idempotency_keys.account_id = u.account AND idempotency_keys.idem_key = u.idem_key";
