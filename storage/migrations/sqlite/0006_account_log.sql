-- The append-only account log that leaderboards follow next to the match log, so that every
-- node learns renames, bans and deletions: one row per friend-code rename, ban or unban, and
-- deletion, written in the transaction of the change itself.

-- One row per change of an account, in the order the changes committed. No foreign key on the
-- account: a deleted account's entries (its deletion last) stay in the log. A rename holds the
-- new friend code's name and digits, a ban the new state, a deletion neither.
CREATE TABLE account_log (
    seq           INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id    INTEGER NOT NULL,
    kind          TEXT    NOT NULL CHECK (kind IN ('renamed', 'banned', 'deleted')),
    friend_name   TEXT,
    friend_digits INTEGER CHECK (friend_digits BETWEEN 0 AND 9999),
    banned        BOOLEAN,
    CHECK ((friend_name IS NULL) = (friend_digits IS NULL)),
    CHECK ((kind = 'renamed') = (friend_name IS NOT NULL)),
    CHECK ((kind = 'banned') = (banned IS NOT NULL))
);

-- The single row a change updates just before it appends to the account log, holding its lock
-- until it commits: log positions are then handed out in commit order, so a reader never sees
-- a smaller position appear after a larger one. Its own row rather than the match log's: renames
-- and bans then never wait for match reports (nor these for them); a transaction that appends
-- to both logs (a match report renaming a player) takes this lock first, with its account
-- locks, and the match log's last.
CREATE TABLE account_log_appender (
    id       INTEGER PRIMARY KEY CHECK (id = 1),
    appended BIGINT  NOT NULL
);

INSERT INTO account_log_appender (id, appended) VALUES (1, 0);
