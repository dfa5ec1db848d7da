-- Community: polls with one vote per account, tournaments with their entrants and whitelists,
-- and clans with their members and invitations. Uniqueness here is what makes concurrent
-- double votes, double joins and double memberships impossible. Times are unix microseconds.

CREATE TABLE polls (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    question  TEXT    NOT NULL,
    opens     BIGINT  NOT NULL,
    closes    BIGINT  NOT NULL,
    closed_at BIGINT,
    created   BIGINT  NOT NULL,
    CHECK (opens < closes)
);

CREATE TABLE poll_options (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    poll_id    INTEGER NOT NULL REFERENCES polls (id) ON DELETE CASCADE,
    position   INTEGER NOT NULL,
    name       TEXT    NOT NULL,
    color_code TEXT    NOT NULL,
    UNIQUE (poll_id, position),
    UNIQUE (poll_id, id)
);

-- One vote per account and poll, for an option of that poll.
CREATE TABLE poll_votes (
    poll_id    INTEGER NOT NULL REFERENCES polls (id) ON DELETE CASCADE,
    account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    option_id  INTEGER NOT NULL,
    created    BIGINT  NOT NULL,
    PRIMARY KEY (poll_id, account_id),
    FOREIGN KEY (poll_id, option_id) REFERENCES poll_options (poll_id, id) ON DELETE CASCADE
);

CREATE INDEX poll_votes_option ON poll_votes (option_id);

-- Codes are kept in lower case. `entrants` counts the entries; the update that raises it
-- refuses to pass `capacity`, so concurrent joins never exceed it.
CREATE TABLE tournaments (
    code           TEXT    PRIMARY KEY,
    mode           TEXT    NOT NULL CHECK (mode IN ('solo', 'duo', 'squad', 'limited')),
    opens          BIGINT  NOT NULL,
    closes         BIGINT  NOT NULL,
    capacity       BIGINT  NOT NULL CHECK (capacity > 0),
    whitelist_only BOOLEAN NOT NULL,
    entrants       BIGINT  NOT NULL DEFAULT 0 CHECK (entrants >= 0 AND entrants <= capacity),
    closed_at      BIGINT,
    created        BIGINT  NOT NULL,
    CHECK (opens < closes)
);

CREATE TABLE tournament_entries (
    code       TEXT    NOT NULL REFERENCES tournaments (code) ON DELETE CASCADE,
    account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    created    BIGINT  NOT NULL,
    PRIMARY KEY (code, account_id)
);

CREATE TABLE tournament_whitelist (
    code       TEXT    NOT NULL REFERENCES tournaments (code) ON DELETE CASCADE,
    account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    added      BIGINT  NOT NULL,
    PRIMARY KEY (code, account_id)
);

-- `creator_id` is the clan's leader; the trigger below keeps it a member.
CREATE TABLE clans (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    tag         TEXT    NOT NULL,
    name        TEXT    NOT NULL,
    description TEXT,
    creator_id  INTEGER NOT NULL,
    max_members BIGINT  NOT NULL CHECK (max_members > 0),
    created     BIGINT  NOT NULL,
    updated     BIGINT  NOT NULL
);

-- Tags are unique regardless of letter case.
CREATE UNIQUE INDEX clans_tag ON clans (lower(tag));

-- One clan per account; `id` orders members from the longest-standing.
CREATE TABLE clan_members (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    clan_id    INTEGER NOT NULL REFERENCES clans (id) ON DELETE CASCADE,
    account_id INTEGER NOT NULL UNIQUE REFERENCES accounts (id) ON DELETE CASCADE,
    joined     BIGINT  NOT NULL
);

CREATE INDEX clan_members_clan ON clan_members (clan_id, id);

CREATE TABLE clan_invites (
    clan_id    INTEGER NOT NULL REFERENCES clans (id) ON DELETE CASCADE,
    account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    invited_by INTEGER NOT NULL,
    created    BIGINT  NOT NULL,
    PRIMARY KEY (clan_id, account_id)
);

CREATE INDEX clan_invites_account ON clan_invites (account_id);

-- Whenever a member goes (leaving, or with a deleted account): the last member's going
-- dissolves the clan, and the leader's going hands the clan to the longest-standing member.
CREATE TRIGGER clan_member_left AFTER DELETE ON clan_members
BEGIN
    DELETE FROM clans
    WHERE id = OLD.clan_id
      AND NOT EXISTS (SELECT 1 FROM clan_members WHERE clan_id = OLD.clan_id);
    UPDATE clans
    SET creator_id = (
        SELECT account_id FROM clan_members WHERE clan_id = OLD.clan_id ORDER BY id LIMIT 1
    )
    WHERE id = OLD.clan_id AND creator_id = OLD.account_id;
END;
