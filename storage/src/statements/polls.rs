//! The statements of polls and votes.

/// Creates a poll; returns its id. Binds: question, opens, closes, now.
pub(crate) const INSERT_POLL: &str = "\
    INSERT INTO polls (question, opens, closes, created) VALUES ($1, $2, $3, $4) RETURNING id";

/// Creates an option of a poll; returns its id. Binds: poll id, position, name, colour.
pub(crate) const INSERT_POLL_OPTION: &str = "\
    INSERT INTO poll_options (poll_id, position, name, color_code) VALUES ($1, $2, $3, $4) \
    RETURNING id";

/// Closes a poll unless it is closed. Binds: poll id, now.
pub(crate) const CLOSE_POLL: &str =
    "UPDATE polls SET closed_at = $2 WHERE id = $1 AND closed_at IS NULL";

/// Whether a poll exists. Binds: poll id.
pub(crate) const POLL_EXISTS: &str = "SELECT id FROM polls WHERE id = $1";

/// The select of polls with their options and votes per option, one row per option, in the
/// shape of [`PollRow`](crate::polls::PollRow); a condition and an order follow.
macro_rules! select_polls {
    ($condition:literal) => {
        concat!(
            "SELECT p.id AS poll_id, p.question, p.opens, p.closes, p.closed_at, ",
            "o.id AS option_id, o.name, o.color_code, ",
            "o.votes ",
            "FROM polls p JOIN poll_options o ON o.poll_id = p.id WHERE ",
            $condition,
            " ORDER BY p.id, o.position"
        )
    };
}

/// One poll, in the shape of [`PollRow`](crate::polls::PollRow). Binds: poll id.
pub(crate) const POLL: &str = select_polls!("p.id = $1");

/// The newest polls, in the shape of [`PollRow`](crate::polls::PollRow) (oldest first).
/// Binds: the most polls.
pub(crate) const NEWEST_POLLS: &str =
    select_polls!("p.id IN (SELECT id FROM polls ORDER BY id DESC LIMIT $1)");

/// Locks a poll's row for the rest of the transaction (a no-op update); returns its id, no row
/// without the poll. Binds: poll id.
pub(crate) const LOCK_POLL: &str =
    "UPDATE polls SET question = question WHERE id = $1 RETURNING id";

/// Sets a poll's question and closing time. Binds: poll id, question, closes.
pub(crate) const UPDATE_POLL: &str = "UPDATE polls SET question = $2, closes = $3 WHERE id = $1";

/// The polls open at an instant in which an account has not voted, in the shape of
/// [`PollRow`](crate::polls::PollRow). Binds: account id, now.
pub(crate) const POLLS_TO_VOTE: &str = select_polls!(
    "p.closed_at IS NULL AND p.opens <= $2 AND p.closes > $2 \
     AND NOT EXISTS (SELECT 1 FROM poll_votes v WHERE v.poll_id = p.id AND v.account_id = $1)"
);

/// A poll's window, in the shape of [`WindowRow`](crate::polls::WindowRow). Binds: poll id.
pub(crate) const POLL_WINDOW: &str = "SELECT opens, closes, closed_at FROM polls WHERE id = $1";

/// Whether an option belongs to a poll. Binds: poll id, option id.
pub(crate) const POLL_HAS_OPTION: &str =
    "SELECT id FROM poll_options WHERE poll_id = $1 AND id = $2";

/// Counts a vote recorded for an option. Binds: poll id, option id.
pub(crate) const COUNT_VOTE: &str =
    "UPDATE poll_options SET votes = votes + 1 WHERE poll_id = $1 AND id = $2";

/// The options an account voted for, in id order. Binds: account id.
pub(crate) const OPTIONS_VOTED: &str =
    "SELECT option_id FROM poll_votes WHERE account_id = $1 ORDER BY option_id";

/// Takes a vote of an account about to go off its option's count. Binds: option id.
pub(crate) const UNCOUNT_VOTE: &str = "UPDATE poll_options SET votes = votes - 1 WHERE id = $1";

/// Records a vote unless the account voted in the poll. Binds: poll id, account id, option id,
/// now.
pub(crate) const INSERT_VOTE: &str = "\
    INSERT INTO poll_votes (poll_id, account_id, option_id, created) VALUES ($1, $2, $3, $4) \
    ON CONFLICT (poll_id, account_id) DO NOTHING";
