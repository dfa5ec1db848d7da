-- Game modes come from the content (`[[modes]]`): a match, its results, its hourly statistics
-- and a tournament may name any mode the content named when they were written, not only the
-- four classic ones. The columns keep a check of a mode's shape (1 to 32 lowercase ASCII
-- letters, digits or `_`, as `GameMode::parse` reads it); whether the content has the mode is
-- the service's to check. No table grows.
-- (The new checks are added NOT VALID: the rows already there hold the four classic names,
-- which satisfy them, so a populated database is not scanned; every new row is checked.)
DO $$
DECLARE
    fixed record;
BEGIN
    FOR fixed IN
        SELECT conrelid::regclass AS holder, conname
        FROM pg_constraint
        WHERE contype = 'c'
          AND conrelid IN ('matches'::regclass, 'match_log'::regclass, 'stat_hours'::regclass,
                           'tournaments'::regclass)
          AND pg_get_constraintdef(oid) LIKE '%''limited''%'
    LOOP
        EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', fixed.holder, fixed.conname);
    END LOOP;
END
$$;
ALTER TABLE matches ADD CONSTRAINT matches_mode_name
    CHECK (mode ~ '^[a-z0-9_]{1,32}$') NOT VALID;
ALTER TABLE match_log ADD CONSTRAINT match_log_mode_name
    CHECK (mode ~ '^[a-z0-9_]{1,32}$') NOT VALID;
ALTER TABLE stat_hours ADD CONSTRAINT stat_hours_mode_name
    CHECK (mode ~ '^[a-z0-9_]{1,32}$') NOT VALID;
ALTER TABLE tournaments ADD CONSTRAINT tournaments_mode_name
    CHECK (mode ~ '^[a-z0-9_]{1,32}$') NOT VALID;
