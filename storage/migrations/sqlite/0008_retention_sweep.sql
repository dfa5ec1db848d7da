-- The retention sweep deletes expired user keys and forgets old idempotency keys in small
-- batches, each found through these indexes rather than by reading the whole table.
CREATE INDEX user_keys_expires ON user_keys (expires);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created);
