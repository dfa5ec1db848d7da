-- A ledger row kept three indexes that start with its account: `ledger_account` (account_id,
-- id) besides the two the operator console's pages read (0024). Each is one more index entry
-- per buy, claim or reward, on its account's page. What read it reads one account's range of
-- the other two now (its whole ledger, sorted by id after, and the cascade of a deleted
-- account).
DROP INDEX IF EXISTS ledger_account;
