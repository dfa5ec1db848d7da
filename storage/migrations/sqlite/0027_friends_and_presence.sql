-- Friends and presence. Requests, friendships and blocks name two accounts each and go with
-- either account (ON DELETE CASCADE). Friendships and blocks are kept while both accounts
-- exist; a request not answered expires after 30 days (the retention sweep deletes it). Times
-- are unix microseconds.

-- A friend request from one account to another: one per direction (the primary key).
CREATE TABLE friend_requests (
    from_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    to_id   INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    created BIGINT NOT NULL,
    PRIMARY KEY (from_id, to_id),
    CHECK (from_id <> to_id)
);

CREATE INDEX friend_requests_to ON friend_requests (to_id);
CREATE INDEX friend_requests_created ON friend_requests (created);

-- A friendship, its two accounts as an ordered pair: however the two came to it, one row.
CREATE TABLE friendships (
    low_id  INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    high_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    since   BIGINT NOT NULL,
    PRIMARY KEY (low_id, high_id),
    CHECK (low_id < high_id)
);

CREATE INDEX friendships_high ON friendships (high_id);

-- A block: `blocker_id` refuses `blocked_id`'s requests and clan invitations.
CREATE TABLE blocks (
    blocker_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    blocked_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    created    BIGINT NOT NULL,
    PRIMARY KEY (blocker_id, blocked_id),
    CHECK (blocker_id <> blocked_id)
);

CREATE INDEX blocks_blocked ON blocks (blocked_id);

-- Each node's heartbeat: its presence rows count while it beats (the sweep deletes a node
-- silent for a day, with its rows, folding them into `last_seen`).
CREATE TABLE presence_nodes (
    node      TEXT   PRIMARY KEY,
    heartbeat BIGINT NOT NULL
);

CREATE INDEX presence_nodes_heartbeat ON presence_nodes (heartbeat);

-- An account with a realtime channel open on a node: one row per account and node.
CREATE TABLE presence (
    account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    node       TEXT   NOT NULL,
    opened_at  BIGINT NOT NULL,
    PRIMARY KEY (account_id, node)
);

CREATE INDEX presence_node ON presence (node);

-- When each account was last seen online (its last channel closing); one row per account.
CREATE TABLE last_seen (
    account_id INTEGER PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
    seen       BIGINT NOT NULL
);

-- The friend events name the other account (`friend`): it is told too (see 0026), so the
-- mentions' trigger writes their rows as well.
DROP TRIGGER events_mentions;

CREATE TRIGGER events_mentions AFTER INSERT ON events
WHEN NEW.kind IN ('match_reported', 'clan_invited', 'friend_requested', 'friend_accepted',
                  'friend_request_declined', 'friend_request_cancelled', 'friend_removed')
BEGIN
    INSERT OR IGNORE INTO event_mentions (account_id, event_id)
    SELECT json_extract(player.value, '$.account'), NEW.id
    FROM json_each(NEW.payload, '$.players') AS player
    WHERE NEW.kind = 'match_reported'
      AND json_extract(player.value, '$.account') IS NOT NULL
      AND json_extract(player.value, '$.account') IS NOT NEW.account_id;
    INSERT OR IGNORE INTO event_mentions (account_id, event_id)
    SELECT json_extract(NEW.payload, '$.invitee'), NEW.id
    WHERE NEW.kind = 'clan_invited'
      AND json_extract(NEW.payload, '$.invitee') IS NOT NEW.account_id;
    INSERT OR IGNORE INTO event_mentions (account_id, event_id)
    SELECT json_extract(NEW.payload, '$.friend'), NEW.id
    WHERE NEW.kind IN ('friend_requested', 'friend_accepted', 'friend_request_declined',
                       'friend_request_cancelled', 'friend_removed')
      AND json_extract(NEW.payload, '$.friend') IS NOT NEW.account_id;
END;
