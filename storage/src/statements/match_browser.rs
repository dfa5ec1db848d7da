//! The statements of the match browser: the recorded matches newest reported first, each page
//! from the last match of the page before (a keyset over `matches_reported`, never an offset),
//! one match's results (over `match_log_match`), and one result's removal.

/// The columns of a match as a list shows it, in the shape of
/// [`MatchSummaryRow`](crate::match_browser::MatchSummaryRow): its players counted over
/// `match_log_match`.
macro_rules! match_summary {
    () => {
        "SELECT m.id, m.mode, m.started, m.ended, m.reported, \
         (SELECT COUNT(*) FROM match_log l WHERE l.match_id = m.id) AS players \
         FROM matches m "
    };
}

/// A page of matches before a position, newest reported first. Binds: before (reported and id,
/// the bound excluded), limit.
pub(crate) const RECENT_MATCHES: &str = concat!(
    match_summary!(),
    "WHERE (m.reported, m.id) < ($1, $2) ORDER BY m.reported DESC, m.id DESC LIMIT $3"
);

/// One match. Binds: match id.
pub(crate) const MATCH_SUMMARY: &str = concat!(match_summary!(), "WHERE m.id = $1");

/// Every result of a match with the player's friend code, best placement first, in the shape
/// of [`MatchResultRow`](crate::match_browser::MatchResultRow). Binds: match id.
pub(crate) const MATCH_RESULTS: &str = "\
    SELECT l.account_id, a.friend_name, a.friend_digits, l.placement, l.kills, l.time_alive \
    FROM match_log l JOIN accounts a ON a.id = l.account_id \
    WHERE l.match_id = $1 ORDER BY l.placement, l.account_id";

/// Deletes an account's result in a match. Binds: match id, account id.
pub(crate) const DELETE_RESULT: &str =
    "DELETE FROM match_log WHERE match_id = $1 AND account_id = $2";
