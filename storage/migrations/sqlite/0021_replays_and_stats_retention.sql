-- Dead letters replayed on an operator's request, and old hourly statistics deleted.

-- The relay positions a webhook delivery attempt's batch spans, so that a dead-lettered batch
-- can be read again exactly (its event ids alone may interleave with a neighbouring batch's).
-- Rows logged before this migration have none and cannot be replayed.
ALTER TABLE webhook_deliveries ADD COLUMN first_position BIGINT;
ALTER TABLE webhook_deliveries ADD COLUMN last_position BIGINT;

-- An operator's request to deliver a dead-lettered batch (the delivery row `delivery_id`) again
-- to its URL: taken by the URL's sink on some node (`holder`, until `lease_until`), tried with
-- the webhook's retries (`failures`, `retry_at`), and ended `delivered`, `dead` (every attempt
-- failed again; the new dead letter can be replayed in turn) or `expired` (its events were no
-- longer stored). While pending it keeps its events from the retention sweep. No foreign key
-- on the delivery row: the delivery log's retention deletes it on its own schedule.
CREATE TABLE webhook_replays (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    delivery_id    BIGINT  NOT NULL,
    url            TEXT    NOT NULL,
    first_position BIGINT  NOT NULL,
    last_position  BIGINT  NOT NULL,
    state          TEXT    NOT NULL
                   CHECK (state IN ('pending', 'delivered', 'dead', 'expired')),
    failures       INTEGER NOT NULL DEFAULT 0,
    retry_at       BIGINT,
    error          TEXT,
    holder         TEXT,
    lease_until    BIGINT,
    requested      BIGINT  NOT NULL,
    updated        BIGINT  NOT NULL
);

-- One pending replay per dead letter: a second request while one is pending is refused.
CREATE UNIQUE INDEX webhook_replays_pending ON webhook_replays (delivery_id)
    WHERE state = 'pending';
-- What the retention sweep deletes: finished replays, oldest first.
CREATE INDEX webhook_replays_updated ON webhook_replays (updated);

-- What the retention sweep deletes: the hourly buckets before a given hour, oldest first.
CREATE INDEX stat_hours_hour ON stat_hours (hour);
