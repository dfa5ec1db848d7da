-- Snapshots of the leaderboards' state, so that a node starts from the newest one and reads only
-- the logs' tail after it instead of the whole match log.

-- One row per snapshot: the log positions it covers (every entry up to them counted, none after)
-- and, once every part is stored, how many parts its bytes are cut into. A snapshot without
-- `parts` is being written, or its writer stopped: nobody reads it. Ids are never reused.
CREATE TABLE board_snapshots (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    match_seq   BIGINT  NOT NULL,
    account_seq BIGINT  NOT NULL,
    taken_at    BIGINT  NOT NULL,
    parts       INTEGER CHECK (parts >= 0)
);

-- A snapshot's bytes, in parts of a few MiB read in order.
CREATE TABLE board_snapshot_parts (
    snapshot_id INTEGER NOT NULL REFERENCES board_snapshots (id),
    part        INTEGER NOT NULL CHECK (part >= 0),
    bytes       BLOB    NOT NULL,
    PRIMARY KEY (snapshot_id, part)
);

-- The single row a node updates to take its turn writing a snapshot: the update succeeds for one
-- node only when no snapshot was begun recently.
CREATE TABLE board_snapshot_claim (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    claimed_at BIGINT  NOT NULL
);

INSERT INTO board_snapshot_claim (id, claimed_at) VALUES (1, 0);
