-- Each poll option counts its votes, kept by the vote's transaction and by the account
-- deletion's (which takes its votes off first): a list of polls read every vote of every poll it
-- showed (a count per option per request, growing with the votes). And an account's votes are
-- found by its id, for the deletion's cascade and its count.
ALTER TABLE poll_options ADD COLUMN votes BIGINT NOT NULL DEFAULT 0;
UPDATE poll_options SET votes = (SELECT count(*) FROM poll_votes v WHERE v.option_id = poll_options.id);
CREATE INDEX poll_votes_account ON poll_votes (account_id);
