-- A recorded match's summary and grants are read again only when a game server repeats its
-- report, yet a 100-player summary is about 50 KB of repetitive JSON: they are kept deflated
-- (zlib) from now on, in these columns, with the text columns left empty. Matches recorded
-- before keep their texts and no packed values; both are read.
ALTER TABLE matches ADD COLUMN packed_summary BYTEA, ADD COLUMN packed_granted BYTEA;
