-- Each sink advances on its own. The relay no longer marks events `relayed` once every sink
-- took them: it only sequences them, giving each committed event a relay `position` (in id
-- order among the events it finds, one relay at a time), and each sink keeps its own cursor
-- over positions in `event_consumers`. A cursor over ids could skip an event that commits
-- after one with a larger id; positions are given only to committed rows, in increasing order.
DROP INDEX events_unrelayed;
ALTER TABLE events ADD COLUMN position BIGINT;
-- What was relayed counts as delivered to every sink: it takes its id as position, and a sink
-- starts from the highest position when it first runs.
UPDATE events SET position = id WHERE relayed;
ALTER TABLE events DROP COLUMN relayed;

-- The rows the relay sequences, in id order; it stays small however long the table grows.
CREATE INDEX events_unsequenced ON events (id) WHERE position IS NULL;
-- What sinks read: the events after a position, in position order.
CREATE UNIQUE INDEX events_position ON events (position);

-- One row per sink (`webhook <url>`, `nats <prefix>`): the position it has delivered up to,
-- its failures since its last delivery and when it tries again, and which node delivers for
-- it until when (one node at a time; another takes over once the lease has run out).
CREATE TABLE event_consumers (
    name        TEXT    PRIMARY KEY,
    position    BIGINT  NOT NULL,
    failures    INTEGER NOT NULL DEFAULT 0,
    retry_at    BIGINT,
    error       TEXT,
    holder      TEXT,
    lease_until BIGINT,
    updated     BIGINT  NOT NULL
);
