-- An operator's removal of a player's results from every leaderboard, as an account log entry
-- that every node follows: kind `results_removed`, with `results_through`, the match log
-- position of the last result removed (the removal deletes the account's match log rows up to
-- it in the same transaction).

ALTER TABLE account_log ADD COLUMN results_through BIGINT;

ALTER TABLE account_log DROP CONSTRAINT account_log_kind_check;

ALTER TABLE account_log ADD CONSTRAINT account_log_kind_check
    CHECK (kind IN ('renamed', 'banned', 'deleted', 'results_removed'));

ALTER TABLE account_log ADD CONSTRAINT account_log_results_through_check
    CHECK ((kind = 'results_removed') = (results_through IS NOT NULL));
