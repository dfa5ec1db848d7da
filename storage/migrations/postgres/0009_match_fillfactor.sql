-- Every match report rewrites its players' account rows, progress counters and hourly
-- statistics. Free room left on each page lets PostgreSQL write the new row version beside the
-- old one without touching the indexes (a heap-only update), as long as no indexed column
-- changes; full pages force a new index entry per row written. Applies to pages written from
-- now on.
ALTER TABLE accounts SET (fillfactor = 80);
ALTER TABLE progress SET (fillfactor = 70);
ALTER TABLE stat_hours SET (fillfactor = 70);
