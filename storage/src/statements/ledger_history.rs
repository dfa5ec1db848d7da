//! The statements paging through an account's ledger, newest first (by creation time, then id),
//! each page from the last row of the page before (a keyset, never an offset).

/// One page of an account's ledger rows of two currencies (the same twice, or one and one no
/// row has, for one currency), each currency's rows read in the order of the index
/// `ledger_account_currency` (with `$reason`, the other reasons' rows passed over) and the two
/// merged.
/// Binds: account id, first currency, second currency, from (microseconds, included), before
/// (created and id, the bound excluded), limit, then `$reason`'s binds.
macro_rules! ledger_page {
    ($reason:literal) => {
        concat!(
            "SELECT id, account_id, currency, delta, balance_after, reason, reference, created \
             FROM (SELECT * FROM (SELECT * FROM ledger WHERE account_id = $1 AND currency = $2",
            $reason,
            " AND created >= $4 AND (created, id) < ($5, $6) \
             ORDER BY created DESC, id DESC LIMIT $7) AS first_currency \
             UNION ALL \
             SELECT * FROM (SELECT * FROM ledger WHERE account_id = $1 AND currency = $3",
            $reason,
            " AND created >= $4 AND (created, id) < ($5, $6) \
             ORDER BY created DESC, id DESC LIMIT $7) AS second_currency) AS page \
             ORDER BY created DESC, id DESC LIMIT $7"
        )
    };
}

/// [`ledger_page`] of every reason.
pub(crate) const LEDGER_PAGE: &str = ledger_page!("");

/// [`ledger_page`] of one reason. Binds also: the reason.
pub(crate) const LEDGER_PAGE_OF_REASON: &str = ledger_page!(" AND reason = $8");
