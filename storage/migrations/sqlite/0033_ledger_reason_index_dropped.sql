-- `ledger_account_reason` (account_id, reason, currency, created, id) was the last of two
-- indexes by account that every ledger row kept for the operator console's pages: each entry
-- lands on its account's own page, and a commit writes each page it changed in full to the
-- write-ahead log. A 100-player match report writes about 140 ledger rows; this index was 13%
-- of its cost (BENCHMARKS.md, fifteenth session). A page of one reason now reads one
-- currency's range of `ledger_account_currency` newest first and skips the other reasons: its
-- cost grows with the rows it passes over, not with the account's whole ledger.
DROP INDEX ledger_account_reason;
