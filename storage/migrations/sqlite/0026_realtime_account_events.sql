-- The realtime channel resumes a player's stream: it reads one account's events after a relay
-- position, its own and those whose payload names it (a match report's players, a clan
-- invite's invitee), through indexes however large the outbox grows.

-- An account's own events, in id order, which is their position order (an account's events
-- commit one after another, its row locked). The position is not in the index: the relay's
-- sequencing, which sets it, then leaves this index alone (SQLite updates only the indexes of
-- the columns an update changes).
CREATE INDEX events_account ON events (account_id);

-- The accounts an event names besides its own, one row each, written by the trigger below in
-- the transaction that appends the event. Kept exactly as long as the event: the retention
-- that deletes delivered events deletes their rows too (the foreign key's cascade).
CREATE TABLE event_mentions (
    account_id BIGINT NOT NULL,
    event_id   BIGINT NOT NULL REFERENCES events (id) ON DELETE CASCADE,
    PRIMARY KEY (account_id, event_id)
) WITHOUT ROWID;

-- What the cascade of a deleted event finds.
CREATE INDEX event_mentions_event ON event_mentions (event_id);

CREATE TRIGGER events_mentions AFTER INSERT ON events
WHEN NEW.kind IN ('match_reported', 'clan_invited')
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
END;

-- The events already in the outbox.
INSERT OR IGNORE INTO event_mentions (account_id, event_id)
SELECT json_extract(player.value, '$.account'), events.id
FROM events, json_each(events.payload, '$.players') AS player
WHERE events.kind = 'match_reported'
  AND json_extract(player.value, '$.account') IS NOT events.account_id;
