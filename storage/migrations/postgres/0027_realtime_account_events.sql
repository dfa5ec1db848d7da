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
);

-- What the cascade of a deleted event finds.
CREATE INDEX event_mentions_event ON event_mentions (event_id);

CREATE FUNCTION event_mentions_named() RETURNS trigger AS $$
BEGIN
    INSERT INTO event_mentions (account_id, event_id)
    SELECT DISTINCT named.account, NEW.id FROM (
        SELECT (player ->> 'account')::BIGINT AS account
        FROM jsonb_array_elements(
            CASE WHEN NEW.kind = 'match_reported' THEN NEW.payload::jsonb -> 'players'
                 ELSE '[]'::jsonb END
        ) AS player
        UNION ALL
        SELECT (NEW.payload::jsonb ->> 'invitee')::BIGINT WHERE NEW.kind = 'clan_invited'
    ) AS named
    WHERE named.account IS NOT NULL AND named.account IS DISTINCT FROM NEW.account_id;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER events_mentions AFTER INSERT ON events
    FOR EACH ROW WHEN (NEW.kind IN ('match_reported', 'clan_invited'))
    EXECUTE FUNCTION event_mentions_named();

-- The events already in the outbox.
INSERT INTO event_mentions (account_id, event_id)
SELECT DISTINCT (player ->> 'account')::BIGINT, events.id
FROM events, jsonb_array_elements(events.payload::jsonb -> 'players') AS player
WHERE events.kind = 'match_reported'
  AND (player ->> 'account')::BIGINT IS DISTINCT FROM events.account_id;
