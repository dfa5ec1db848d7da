-- Snapshots of the leaderboards' state, so that a node starts from the newest one and reads only
-- the logs' tail after it instead of the whole match log.

-- One row per snapshot: the log positions it covers (every entry up to them counted, none after)
-- and, once every part is stored, how many parts its bytes are cut into. A snapshot without
-- `parts` is being written, or its writer stopped: nobody reads it.
CREATE TABLE board_snapshots (
    id          BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    match_seq   BIGINT  NOT NULL,
    account_seq BIGINT  NOT NULL,
    taken_at    BIGINT  NOT NULL,
    parts       INTEGER CHECK (parts >= 0)
);

-- A snapshot's bytes, in parts of a few MiB read in order.
CREATE TABLE board_snapshot_parts (
    snapshot_id BIGINT  NOT NULL REFERENCES board_snapshots (id),
    part        INTEGER NOT NULL CHECK (part >= 0),
    bytes       BYTEA   NOT NULL,
    PRIMARY KEY (snapshot_id, part)
);

-- The bytes are dense already: stored as they are, without trying to compress them.
ALTER TABLE board_snapshot_parts ALTER COLUMN bytes SET STORAGE EXTERNAL;

-- The single row a node updates to take its turn writing a snapshot: the update succeeds for one
-- node only when no snapshot was begun recently.
CREATE TABLE board_snapshot_claim (
    id         BIGINT PRIMARY KEY CHECK (id = 1),
    claimed_at BIGINT NOT NULL
);

INSERT INTO board_snapshot_claim (id, claimed_at) VALUES (1, 0);
