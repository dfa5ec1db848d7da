-- An operator's removal of a player's results from every leaderboard, as an account log entry
-- that every node follows: kind `results_removed`, with `results_through`, the match log
-- position of the last result removed (the removal deletes the account's match log rows up to
-- it in the same transaction). SQLite cannot change a table's checks in place: the log is
-- copied, positions and all, into a table with the new kind and column.

CREATE TABLE account_log_next (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id      INTEGER NOT NULL,
    kind            TEXT    NOT NULL
                    CHECK (kind IN ('renamed', 'banned', 'deleted', 'results_removed')),
    friend_name     TEXT,
    friend_digits   INTEGER CHECK (friend_digits BETWEEN 0 AND 9999),
    banned          BOOLEAN,
    results_through BIGINT,
    CHECK ((friend_name IS NULL) = (friend_digits IS NULL)),
    CHECK ((kind = 'renamed') = (friend_name IS NOT NULL)),
    CHECK ((kind = 'banned') = (banned IS NOT NULL)),
    CHECK ((kind = 'results_removed') = (results_through IS NOT NULL))
);

INSERT INTO account_log_next (seq, account_id, kind, friend_name, friend_digits, banned)
SELECT seq, account_id, kind, friend_name, friend_digits, banned FROM account_log ORDER BY seq;

DROP TABLE account_log;

ALTER TABLE account_log_next RENAME TO account_log;
