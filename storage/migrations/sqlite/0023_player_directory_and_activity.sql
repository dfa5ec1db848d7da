-- The operator console's pages over many players: players found by the start of their friend
-- code or display name and listed newest, banned or by last sign-in; a player's ledger paged
-- and filtered; the activity rollup's hourly counters and the accounts' last sign-ins. Every
-- page reads one index range from the last row of the page before. Friend codes are found by
-- `accounts_friend_code` (lower(friend_name), friend_digits): SQLite compares text byte by
-- byte, so a start's range holds exactly the names that have it.

-- Display names found by their start, letter case aside.
CREATE INDEX accounts_name_search ON accounts (lower(name), id);
-- The banned players, newest first.
CREATE INDEX accounts_banned ON accounts (id) WHERE is_banned;

-- A player's ledger newest first (by creation time, then id), each currency's rows apart (a
-- page merges the two), and each reason's.
CREATE INDEX ledger_account_currency ON ledger (account_id, currency, created, id);
CREATE INDEX ledger_account_reason ON ledger (account_id, reason, currency, created, id);

-- The activity rollup: what the domain events told, summed per hour (unix time / 3600),
-- metric and subject (an item, a mode, a provider; '' when none), by a follower of the outbox
-- whose cursor is the `event_consumers` row `activity rollup`. Rows older than 61 days are
-- deleted by the retention sweep (by `activity_hours_hour`).
CREATE TABLE activity_hours (
    metric  TEXT   NOT NULL,
    hour    BIGINT NOT NULL,
    subject TEXT   NOT NULL,
    value   BIGINT NOT NULL,
    PRIMARY KEY (metric, hour, subject)
);
CREATE INDEX activity_hours_hour ON activity_hours (hour);

-- Each account's last sign-in as the rollup read it from the `signed_in` events (the sign-in
-- itself writes nothing more). One row per account that signed in since the rollup began; the
-- rollup deletes it when it reads the account's `deleted` event. No foreign key: the rollup
-- writes behind the accounts' changes, and a listing joins the accounts that remain.
CREATE TABLE account_last_sign_in (
    account_id BIGINT PRIMARY KEY,
    at         BIGINT NOT NULL
);
CREATE INDEX account_last_sign_in_at ON account_last_sign_in (at, account_id);
