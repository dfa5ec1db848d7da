-- Finished matches and the progress planned from them: progress counters, reward-track passes,
-- the matches recorded once per id, the append-only match log that leaderboards follow, and
-- per-player statistics in hourly buckets. Times are unix microseconds (BIGINT).

-- Moved on by every change planned from the account's progress; a plan made from an older
-- version is refused as stale.
ALTER TABLE accounts ADD COLUMN progress_version BIGINT NOT NULL DEFAULT 0;

CREATE TABLE progress (
    account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    counter    TEXT    NOT NULL,
    value      BIGINT  NOT NULL,
    PRIMARY KEY (account_id, counter)
);

CREATE TABLE track_passes (
    account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    track_id   BIGINT  NOT NULL,
    created    BIGINT  NOT NULL,
    PRIMARY KEY (account_id, track_id)
);

-- One row per reported match id: a repeated report finds it and answers the stored summary
-- and grants (a JSON list of each change's grants).
CREATE TABLE matches (
    id       TEXT   PRIMARY KEY,
    mode     TEXT   NOT NULL CHECK (mode IN ('solo', 'duo', 'squad', 'limited')),
    started  BIGINT NOT NULL,
    ended    BIGINT NOT NULL,
    reported BIGINT NOT NULL,
    summary  TEXT   NOT NULL,
    granted  TEXT   NOT NULL
);

-- One row per player and match, in the order the reports committed.
CREATE TABLE match_log (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    match_id   TEXT    NOT NULL REFERENCES matches (id),
    account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    mode       TEXT    NOT NULL CHECK (mode IN ('solo', 'duo', 'squad', 'limited')),
    ended      BIGINT  NOT NULL,
    placement  BIGINT  NOT NULL,
    kills      BIGINT  NOT NULL,
    time_alive BIGINT  NOT NULL
);

CREATE INDEX match_log_account ON match_log (account_id);

-- The single row a report updates just before it appends to the match log, holding its lock
-- until it commits: log positions are then handed out in commit order, so a reader never sees
-- a smaller position appear after a larger one.
CREATE TABLE match_log_appender (
    id       INTEGER PRIMARY KEY CHECK (id = 1),
    appended BIGINT  NOT NULL
);

INSERT INTO match_log_appender (id, appended) VALUES (1, 0);

-- Statistics summed per account, mode, hour (unix time / 3600, the hour the match ended) and
-- stat key.
CREATE TABLE stat_hours (
    account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    mode       TEXT    NOT NULL CHECK (mode IN ('solo', 'duo', 'squad', 'limited')),
    hour       BIGINT  NOT NULL,
    stat_key   TEXT    NOT NULL,
    value      BIGINT  NOT NULL,
    PRIMARY KEY (account_id, mode, hour, stat_key)
);
