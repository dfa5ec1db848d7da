-- An account's own events are found by block of 256 relay positions: an appended event's entry
-- goes to the pages of the events waiting for their positions (a null block), then, once
-- sequenced, to those of the last block, which every commit shares, instead of to a page of its
-- account's, each written whole to the write-ahead log by the commit (a page more per purchase).
DROP INDEX events_account;
CREATE INDEX events_account_block ON events (position >> 8, account_id);
