//! The statements of the domain events' outbox and the webhooks' delivery log.

/// The start of the statement appending events; the rows (`account`, `kind`, `payload`,
/// `created`) and then [`FROM_ROWS_END`](super::matches::FROM_ROWS_END) follow.
pub(crate) const INSERT_EVENTS: &str = "\
    INSERT INTO events (account_id, kind, payload, created) \
    SELECT account, kind, payload, created FROM ";

/// Up to a limit of the events not yet relayed, in id order, in the shape of
/// [`EventRow`](crate::row::EventRow). Binds: limit.
pub(crate) const UNRELAYED: &str = "\
    SELECT id, account_id, payload, created, relayed FROM events \
    WHERE NOT relayed ORDER BY id LIMIT $1";

/// The start of the statement marking events relayed; the condition that `id` is one of the
/// batch's ids follows.
pub(crate) const MARK_RELAYED: &str = "UPDATE events SET relayed = TRUE WHERE id";

/// The relay's lock on PostgreSQL, held by the round's transaction: `true` when taken, `false`
/// when another node's round holds it. The key is `safezone.events.relay` as a number.
pub(crate) const TRY_RELAY_LOCK: &str = "SELECT pg_try_advisory_xact_lock(5346616001)";

/// The events after an id, in id order, in the shape of [`EventRow`](crate::row::EventRow).
/// Binds: id, limit.
pub(crate) const EVENTS_AFTER: &str = "\
    SELECT id, account_id, payload, created, relayed FROM events \
    WHERE id > $1 ORDER BY id LIMIT $2";

/// Appends one webhook delivery attempt. Binds: url, first event, last event, events,
/// attempt, outcome, status, error, created.
pub(crate) const INSERT_WEBHOOK_ATTEMPT: &str = "\
    INSERT INTO webhook_deliveries \
    (url, first_event, last_event, events, attempt, outcome, status, error, created) \
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)";

/// The newest webhook delivery attempts, in the shape of
/// [`WebhookRow`](crate::row::WebhookRow). Binds: outcome (null: any), limit.
pub(crate) const WEBHOOK_DELIVERIES: &str = "\
    SELECT id, url, first_event, last_event, events, attempt, outcome, status, error, created \
    FROM webhook_deliveries WHERE ($1 IS NULL OR outcome = $1) ORDER BY id DESC LIMIT $2";
