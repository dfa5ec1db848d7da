-- The operator audit is append only against every way of rewriting a row: besides UPDATE and
-- DELETE (0010's triggers), `INSERT OR REPLACE` (`REPLACE INTO`) deletes the row it replaces
-- without firing DELETE triggers, so an insert naming an id that exists is refused here,
-- before its conflict is resolved.
CREATE TRIGGER operator_audit_no_replace BEFORE INSERT ON operator_audit
WHEN EXISTS (SELECT 1 FROM operator_audit WHERE id = NEW.id)
BEGIN
    SELECT RAISE(ABORT, 'operator_audit is append only');
END;

-- The events whose payloads tell an account's personal data (its friend code), which the
-- account's deletion erases in its transaction: found by account without reading the outbox.
CREATE INDEX events_personal ON events (account_id)
WHERE kind IN ('account_created', 'renamed');
