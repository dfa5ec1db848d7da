-- The operator console's match browser: the recorded matches newest reported first, a page at
-- a time from the last match of the page before, and one match's results (also what a removal
-- of one player's result from one match finds it by). Both are indexes only: a populated
-- database gains them in place.
-- (The indexes are built in the migration's transaction, which holds the write lock until they
-- are built.)
CREATE INDEX matches_reported ON matches (reported, id);
CREATE INDEX match_log_match ON match_log (match_id);
