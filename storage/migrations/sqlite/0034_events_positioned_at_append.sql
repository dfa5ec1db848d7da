-- Events take their relay positions as they are appended (one writer at a time commits in the
-- order it writes) instead of from the relay's sequencing round, which wrote each event's row
-- and its `events_position` entry a second time. The events appended before this upgrade and
-- not yet sequenced take theirs here, in id order, before any appended after it.
UPDATE events SET position = sequenced.position
FROM (SELECT waiting.id,
             (SELECT COALESCE(MAX(position), 0) FROM events)
             + ROW_NUMBER() OVER (ORDER BY waiting.id) AS position
      FROM (SELECT id FROM events WHERE position IS NULL) AS waiting
     ) AS sequenced
WHERE events.id = sequenced.id;

-- An account's own events are found by block of 256 positions: a new event's entry goes to the
-- pages of the last block, which every commit shares, instead of to a page of its account's,
-- each written whole to the write-ahead log by the commit (a page more per purchase).
DROP INDEX events_account;
CREATE INDEX events_account_block ON events (position >> 8, account_id);
