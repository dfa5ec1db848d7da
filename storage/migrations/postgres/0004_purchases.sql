-- In-app purchases verified from store receipts, once per store transaction, and the
-- subscriptions they start.

CREATE TABLE iap_purchases (
    id             BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id     BIGINT  NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    store          TEXT    NOT NULL,
    transaction_id TEXT    NOT NULL,
    iap_id         BIGINT  NOT NULL,
    cost_cents     BIGINT  NOT NULL CHECK (cost_cents >= 0),
    created        BIGINT  NOT NULL,
    UNIQUE (store, transaction_id)
);

CREATE INDEX iap_purchases_account ON iap_purchases (account_id, id);

CREATE TABLE subscriptions (
    id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id BIGINT  NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    iap_id     BIGINT  NOT NULL,
    expires    BIGINT,
    UNIQUE (account_id, iap_id)
);
