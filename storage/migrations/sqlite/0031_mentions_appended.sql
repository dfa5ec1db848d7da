-- The accounts an event names (`event_mentions`) are written by the transaction that appends
-- the event, with one statement over the events it appended and only when one of them is of a
-- naming kind, instead of by a row trigger: on SQLite a row trigger runs a sub-program for
-- every appended row, whatever its kind, and makes each multi-row append copy its rows to a
-- temporary table first. PostgreSQL keeps its trigger, whose WHEN clause is tested without
-- calling it.
DROP TRIGGER events_mentions;

-- The events waiting for their relay position are found through `events_position`, which
-- SQLite's indexes keep null positions in (in id order): the partial index that listed them
-- again cost every append and every sequencing a write more.
DROP INDEX events_unsequenced;
