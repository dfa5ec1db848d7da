-- A ledger row kept three indexes that start with its account: `ledger_account` (account_id,
-- id) besides the two the operator console's pages read (0023). Every index entry of a row
-- lands on its account's page of that index, a page of its own per account, and a commit
-- writes each page it changed in full to the write-ahead log: `ledger_account` was one page
-- more per buy, claim or reward. What read it reads one account's range of the other two now
-- (its whole ledger, sorted by id after, and the cascade of a deleted account).
DROP INDEX ledger_account;
