-- The operator audit is append only against every way of rewriting it: besides UPDATE and
-- DELETE (0011's row trigger), TRUNCATE (which fires no row trigger, and which a TRUNCATE
-- ... CASCADE of operator_tokens reaches too) is refused by a statement trigger.
CREATE TRIGGER operator_audit_no_truncate BEFORE TRUNCATE ON operator_audit
    FOR EACH STATEMENT EXECUTE FUNCTION operator_audit_append_only();

-- The events whose payloads tell an account's personal data (its friend code), which the
-- account's deletion erases in its transaction: found by account without reading the outbox.
CREATE INDEX events_personal ON events (account_id)
WHERE kind IN ('account_created', 'renamed');
