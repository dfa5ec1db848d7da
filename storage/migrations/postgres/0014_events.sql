-- The domain events' outbox: one row per event, written in the transaction of the change it
-- tells (so a rolled-back change leaves none), relayed to the sinks and then marked relayed.
-- No foreign key on the account: a deleted account's events (its deletion last) stay. No
-- appender lock: ids may commit out of order across accounts, and the relay finds every row
-- not yet relayed whatever its id.
CREATE TABLE events (
    id         BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id BIGINT,
    kind       TEXT    NOT NULL,
    payload    TEXT    NOT NULL,
    created    BIGINT  NOT NULL,
    relayed    BOOLEAN NOT NULL DEFAULT FALSE
);

-- The rows the relay reads, in id order; it stays small however long the table grows.
CREATE INDEX events_unrelayed ON events (id) WHERE NOT relayed;

-- Every webhook delivery attempt of a batch of events: delivered, failed (tried again) or
-- dead (the last attempt failed; the batch is given up, for operators to see).
CREATE TABLE webhook_deliveries (
    id          BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    url         TEXT    NOT NULL,
    first_event BIGINT  NOT NULL,
    last_event  BIGINT  NOT NULL,
    events      BIGINT  NOT NULL,
    attempt     INTEGER NOT NULL,
    outcome     TEXT    NOT NULL CHECK (outcome IN ('delivered', 'failed', 'dead')),
    status      INTEGER,
    error       TEXT,
    created     BIGINT  NOT NULL
);

CREATE INDEX webhook_deliveries_outcome ON webhook_deliveries (outcome, id);
