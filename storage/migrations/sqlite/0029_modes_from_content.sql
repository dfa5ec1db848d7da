-- Game modes come from the content (`[[modes]]`): a match, its results, its hourly statistics
-- and a tournament may name any mode the content named when they were written, not only the
-- four classic ones. The columns keep a check of a mode's shape (1 to 32 lowercase ASCII
-- letters, digits or `_`, as `GameMode::parse` reads it); whether the content has the mode is
-- the service's to check. No table grows.
-- SQLite cannot alter a CHECK constraint: as its documentation allows for changing only a CHECK
-- (the stored rows' format is untouched), the tables' definitions are rewritten in place, every
-- connection of this one reloads them (`writable_schema = RESET`), and a table created and
-- dropped moves the schema's version on so that every other connection reloads them too. The
-- rows already there hold the four classic names, which satisfy the new check.
PRAGMA writable_schema = ON;
UPDATE sqlite_schema
SET sql = replace(
    sql,
    'CHECK (mode IN (''solo'', ''duo'', ''squad'', ''limited''))',
    'CHECK (length(mode) BETWEEN 1 AND 32 AND mode NOT GLOB ''*[^a-z0-9_]*'')'
)
WHERE type = 'table' AND name IN ('matches', 'match_log', 'stat_hours', 'tournaments');
PRAGMA writable_schema = RESET;
CREATE TABLE modes_from_content_schema_moved (unused INTEGER);
DROP TABLE modes_from_content_schema_moved;
