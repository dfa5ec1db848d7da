//! The statements of the domain events' outbox (sequenced by the relay), the sinks' cursors
//! and the webhooks' delivery log.

/// The start of the statement appending events; the rows (`account`, `kind`, `payload`,
/// `created`) and then [`FROM_ROWS_END`](super::matches::FROM_ROWS_END) follow.
pub(crate) const INSERT_EVENTS: &str = "\
    INSERT INTO events (account_id, kind, payload, created) \
    SELECT account, kind, payload, created FROM ";

/// The end of [`INSERT_EVENTS`] answering the ids it gave (in no particular order).
pub(crate) const APPENDED_IDS_END: &str = " AS u WHERE true RETURNING id";

/// Writes the `event_mentions` rows of the events appended from an id on, on SQLite (where
/// no trigger does): the players of a match report, the invitee of a clan invite and the other
/// account of a friend event, each unless it is the event's own account, as PostgreSQL's
/// trigger `events_mentions` does. Binds: the first id appended.
pub(crate) const SQLITE_APPENDED_MENTIONS: &str = "\
    INSERT OR IGNORE INTO event_mentions (account_id, event_id) \
    SELECT named.account, named.event FROM ( \
        SELECT json_extract(player.value, '$.account') AS account, events.id AS event, \
               events.account_id AS own \
        FROM events, json_each(events.payload, '$.players') AS player \
        WHERE events.id >= $1 AND events.kind = 'match_reported' \
        UNION ALL \
        SELECT json_extract(events.payload, '$.invitee'), events.id, events.account_id \
        FROM events WHERE events.id >= $1 AND events.kind = 'clan_invited' \
        UNION ALL \
        SELECT json_extract(events.payload, '$.friend'), events.id, events.account_id \
        FROM events WHERE events.id >= $1 AND events.kind IN ('friend_requested', \
            'friend_accepted', 'friend_request_declined', 'friend_request_cancelled', \
            'friend_removed') \
    ) AS named WHERE named.account IS NOT NULL AND named.account IS NOT named.own";

/// Whether some committed event waits for its relay position: `true` or `false`.
pub(crate) const ANY_UNSEQUENCED: &str = "\
    SELECT EXISTS (SELECT 1 FROM events WHERE position IS NULL)";

/// Gives up to a limit of the events without a relay position the next positions after the
/// highest one, in id order. Run by one relay at a time (under [`TRY_RELAY_LOCK`] on
/// PostgreSQL, the one writer on SQLite), so positions grow with each commit. Binds: limit.
pub(crate) const SEQUENCE: &str = "\
    UPDATE events SET position = sequenced.position \
    FROM (SELECT waiting.id, \
                 (SELECT COALESCE(MAX(position), 0) FROM events) \
                 + ROW_NUMBER() OVER (ORDER BY waiting.id) AS position \
          FROM (SELECT id FROM events WHERE position IS NULL ORDER BY id LIMIT $1) AS waiting \
         ) AS sequenced \
    WHERE events.id = sequenced.id";

/// The relay's lock on PostgreSQL, held by the sequencing transaction: `true` when taken,
/// `false` when another node's round holds it. The key is `safezone.events.relay` as a number.
pub(crate) const TRY_RELAY_LOCK: &str = "SELECT pg_try_advisory_xact_lock(5346616001)";

/// The highest relay position given (0 before any).
pub(crate) const RELAY_HEAD: &str = "SELECT COALESCE(MAX(position), 0) FROM events";

/// When the oldest committed event without a relay position was appended (microseconds), or
/// null when none waits (a few rows at most, found through PostgreSQL's partial index
/// `events_unsequenced` or SQLite's `events_position`, which keeps null positions).
pub(crate) const OLDEST_UNSEQUENCED: &str = "\
    SELECT MIN(created) FROM events WHERE position IS NULL";

/// The events after a relay position, in position order, in the shape of
/// [`EventRow`](crate::events::EventRow). Binds: position, limit.
pub(crate) const RELAYED_AFTER: &str = "\
    SELECT id, account_id, payload, created, position FROM events \
    WHERE position > $1 ORDER BY position LIMIT $2";

/// What the relay's follower counts of the events past a relay position, in position order:
/// `(id, position, account id, payload)`, the account id null for the kinds changing no view
/// ([`EventPayload::VIEWLESS_KINDS`](safezone_core::events::EventPayload::VIEWLESS_KINDS)), the
/// payload only of the kinds naming other accounts
/// ([`EventPayload::NAMING_KINDS`](safezone_core::events::EventPayload::NAMING_KINDS)).
/// Binds: position, limit.
pub(crate) const RELAYED_CHANGES_AFTER: &str = "\
    SELECT id, position, CASE WHEN kind = 'signed_in' THEN NULL ELSE account_id END, \
    CASE WHEN kind IN ('match_reported', 'clan_invited', 'friend_requested', 'friend_accepted', \
        'friend_request_declined', 'friend_request_cancelled', 'friend_removed') \
    THEN payload END AS payload \
    FROM events WHERE position > $1 ORDER BY position LIMIT $2";

/// The events of one account after a relay position, in position order, in the shape of
/// [`EventRow`](crate::events::EventRow) (PostgreSQL; SQLite's is
/// [`SQLITE_ACCOUNT_EVENTS_AFTER`]): its own (index `events_account`) and those naming it
/// (`event_mentions`, written with the event: by a trigger on PostgreSQL, by
/// [`SQLITE_APPENDED_MENTIONS`] on SQLite). Binds: account, position, limit.
pub(crate) const ACCOUNT_EVENTS_AFTER: &str = "\
    SELECT id, account_id, payload, created, position FROM ( \
        SELECT id, account_id, payload, created, position FROM events \
        WHERE account_id = $1 AND position > $2 \
        UNION \
        SELECT events.id, events.account_id, events.payload, events.created, events.position \
        FROM event_mentions JOIN events ON events.id = event_mentions.event_id \
        WHERE event_mentions.account_id = $1 AND events.position > $2 \
    ) AS concerned ORDER BY position LIMIT $3";

/// [`ACCOUNT_EVENTS_AFTER`] on SQLite, whose own events are found by block of 256 positions
/// (index `events_account_block`, on the block and the account): the blocks from the one after
/// the position to the head's, each one index search. An event's entry goes to the pages of
/// the events waiting for their positions (a null block) and then of the last block, which
/// every commit shares, instead of to a page of its account's, which each commit wrote whole
/// to the write-ahead log. Binds: account, position, limit.
pub(crate) const SQLITE_ACCOUNT_EVENTS_AFTER: &str = "\
    WITH RECURSIVE blocks (block) AS ( \
        SELECT ($2 + 1) >> 8 \
        UNION ALL \
        SELECT block + 1 FROM blocks \
        WHERE block < (SELECT COALESCE(MAX(position), 0) FROM events) >> 8 \
    ) \
    SELECT id, account_id, payload, created, position FROM ( \
        SELECT events.id, events.account_id, events.payload, events.created, events.position \
        FROM blocks JOIN events \
            ON events.position >> 8 = blocks.block AND events.account_id = $1 \
        WHERE events.position > $2 \
        UNION \
        SELECT events.id, events.account_id, events.payload, events.created, events.position \
        FROM event_mentions JOIN events ON events.id = event_mentions.event_id \
        WHERE event_mentions.account_id = $1 AND events.position > $2 \
    ) AS concerned ORDER BY position LIMIT $3";

/// The relay positions the outbox keeps: the oldest (null when it is empty) and the head (0
/// before any). Each is read from the position index on its own.
pub(crate) const KEPT_POSITIONS: &str = "\
    SELECT (SELECT MIN(position) FROM events), \
           (SELECT COALESCE(MAX(position), 0) FROM events)";

/// The events after an id, in id order, in the shape of [`EventRow`](crate::events::EventRow).
/// Binds: id, limit.
pub(crate) const EVENTS_AFTER: &str = "\
    SELECT id, account_id, payload, created, position FROM events \
    WHERE id > $1 ORDER BY id LIMIT $2";

/// The columns of a sink's cursor, in the shape of [`ConsumerRow`](crate::events::ConsumerRow).
macro_rules! consumer_columns {
    () => {
        "SELECT name, position, failures, retry_at, error, holder, lease_until \
         FROM event_consumers "
    };
}

/// A sink's cursor. Binds: name.
pub(crate) const CONSUMER: &str = concat!(consumer_columns!(), "WHERE name = $1");

/// Every sink's cursor, by name.
pub(crate) const CONSUMERS: &str = concat!(consumer_columns!(), "ORDER BY name");

/// Creates a sink's cursor at the relay head, unless it exists. Binds: name, updated.
pub(crate) const NEW_CONSUMER: &str = "\
    INSERT INTO event_consumers (name, position, updated) \
    SELECT $1, COALESCE(MAX(position), 0), $2 FROM events WHERE TRUE \
    ON CONFLICT (name) DO NOTHING";

/// Takes or renews a sink's lease for a node, if its cursor is where the node read it and no
/// other node's lease runs. Binds: name, holder, position, now, lease until.
pub(crate) const LEASE_CONSUMER: &str = "\
    UPDATE event_consumers SET holder = $2, lease_until = $5, updated = $4 \
    WHERE name = $1 AND position = $3 \
    AND (holder = $2 OR lease_until IS NULL OR lease_until <= $4)";

/// Ends the sinks' leases a node holds. Binds: holder.
pub(crate) const RELEASE_CONSUMERS: &str = "\
    UPDATE event_consumers SET lease_until = NULL \
    WHERE holder = $1 AND lease_until IS NOT NULL";

/// Ends the leases a node holds on pending replays of dead letters. Binds: holder.
pub(crate) const RELEASE_REPLAYS: &str = "\
    UPDATE webhook_replays SET lease_until = NULL \
    WHERE holder = $1 AND lease_until IS NOT NULL AND state = 'pending'";

/// Moves a sink's cursor after a delivery and forgets its failures, if the node still holds
/// it at the position it delivered from. Binds: name, holder, from, to, updated.
pub(crate) const ADVANCE_CONSUMER: &str = "\
    UPDATE event_consumers \
    SET position = $4, failures = 0, retry_at = NULL, error = NULL, updated = $5 \
    WHERE name = $1 AND holder = $2 AND position = $3";

/// Counts a sink's failure and sets when it tries again, if the node still holds it at the
/// position it delivered from. Binds: name, holder, from, failures, retry at, error, updated.
pub(crate) const FAIL_CONSUMER: &str = "\
    UPDATE event_consumers SET failures = $4, retry_at = $5, error = $6, updated = $7 \
    WHERE name = $1 AND holder = $2 AND position = $3";

/// Appends one webhook delivery attempt. Binds: url, first event, last event, events,
/// attempt, outcome, status, error, created, first position, last position.
pub(crate) const INSERT_WEBHOOK_ATTEMPT: &str = "\
    INSERT INTO webhook_deliveries \
    (url, first_event, last_event, events, attempt, outcome, status, error, created, \
     first_position, last_position) \
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)";

/// The columns of a delivery attempt, in the shape of [`WebhookRow`](crate::events::WebhookRow).
macro_rules! delivery_columns {
    () => {
        "SELECT id, url, first_event, last_event, events, attempt, outcome, status, error, \
         created, first_position, last_position FROM webhook_deliveries "
    };
}

/// The newest webhook delivery attempts. Binds: outcome (null: any), limit.
pub(crate) const WEBHOOK_DELIVERIES: &str = concat!(
    delivery_columns!(),
    "WHERE ($1 IS NULL OR outcome = $1) ORDER BY id DESC LIMIT $2"
);

/// One webhook delivery attempt. Binds: id.
pub(crate) const WEBHOOK_DELIVERY: &str = concat!(delivery_columns!(), "WHERE id = $1");

/// How far the retention sweep may delete: the lowest cursor of the sinks that moved since a
/// time, or the relay head when none did (a sink gone from every node's settings stops holding
/// events back once it has not moved for the retention window), and below the first event of
/// every pending replay that changed since then (one to a URL no node serves any more stops
/// holding them back alike); and below the relay head, whose event is always kept so that the
/// head never goes back and no position is given twice. Binds: since.
pub(crate) const RETENTION_FLOOR: &str = "\
    SELECT MIN(bound) FROM ( \
        SELECT COALESCE((SELECT MIN(position) FROM event_consumers WHERE updated >= $1), \
                        (SELECT MAX(position) FROM events), 0) AS bound \
        UNION ALL \
        SELECT MIN(first_position) - 1 FROM webhook_replays \
        WHERE state = 'pending' AND updated >= $1 \
        UNION ALL \
        SELECT MAX(position) - 1 FROM events \
    ) AS bounds";

/// The oldest sequenced events, in position order, as `(position, created)`: what the sweep
/// looks at. Binds: limit.
pub(crate) const OLDEST_RELAYED: &str = "\
    SELECT position, created FROM events WHERE position IS NOT NULL \
    ORDER BY position LIMIT $1";

/// Deletes the sequenced events up to a position (included). Binds: position.
pub(crate) const DELETE_RELAYED_THROUGH: &str = "DELETE FROM events WHERE position <= $1";

/// Deletes, oldest first, webhook delivery attempts logged before a time. Binds: time, limit.
pub(crate) const DELETE_WEBHOOK_DELIVERIES: &str = "\
    DELETE FROM webhook_deliveries WHERE id IN \
        (SELECT id FROM webhook_deliveries WHERE created < $1 ORDER BY id LIMIT $2)";

#[cfg(test)]
mod tests {
    use safezone_core::events::EventPayload;

    use super::RELAYED_CHANGES_AFTER;

    #[test]
    fn the_relayed_changes_leave_out_the_account_of_every_viewless_kind() {
        for kind in EventPayload::VIEWLESS_KINDS {
            assert!(
                RELAYED_CHANGES_AFTER.contains(&format!("kind = '{kind}' THEN NULL")),
                "{kind} is counted"
            );
        }
    }

    #[test]
    fn the_relayed_changes_keep_the_payload_of_every_naming_kind() {
        for kind in EventPayload::NAMING_KINDS {
            assert!(
                RELAYED_CHANGES_AFTER.contains(&format!("'{kind}'")),
                "{kind} is left out"
            );
        }
    }
}
