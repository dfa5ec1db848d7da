-- `ledger_account_reason` (account_id, reason, currency, created, id) was the last of two
-- indexes by account that every ledger row kept for the operator console's pages: one more
-- index entry per buy, claim or reward, about 140 for a 100-player match report. A page of one
-- reason now reads one currency's range of `ledger_account_currency` newest first and skips the
-- other reasons: its cost grows with the rows it passes over, not with the account's whole
-- ledger.
DROP INDEX IF EXISTS ledger_account_reason;
