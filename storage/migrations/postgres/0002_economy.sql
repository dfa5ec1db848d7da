-- The economy: owned items, unopened packs, claims, the currency ledger, idempotency keys and
-- chat-platform links. Uniqueness here is what makes concurrent duplicates impossible.

CREATE TABLE licenses (
    id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id BIGINT  NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    item_id    BIGINT  NOT NULL,
    quantity   BIGINT  NOT NULL CHECK (quantity >= 0),
    created    BIGINT  NOT NULL,
    UNIQUE (account_id, item_id)
);

CREATE TABLE pack_stock (
    id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id BIGINT  NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    pack_id    BIGINT  NOT NULL,
    quantity   BIGINT  NOT NULL CHECK (quantity >= 0),
    UNIQUE (account_id, pack_id)
);

CREATE TABLE claims (
    account_id BIGINT  NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    claim_key  TEXT    NOT NULL,
    created    BIGINT  NOT NULL,
    PRIMARY KEY (account_id, claim_key)
);

CREATE TABLE ledger (
    id            BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id    BIGINT  NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    currency      TEXT    NOT NULL CHECK (currency IN ('coins', 'gems')),
    delta         BIGINT  NOT NULL,
    balance_after BIGINT  NOT NULL CHECK (balance_after >= 0),
    reason        TEXT    NOT NULL,
    reference     TEXT    NOT NULL,
    created       BIGINT  NOT NULL
);

CREATE INDEX ledger_account ON ledger (account_id, id);

CREATE TABLE idempotency_keys (
    account_id  BIGINT  NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    idem_key    TEXT    NOT NULL,
    fingerprint TEXT    NOT NULL,
    granted     TEXT    NOT NULL,
    created     BIGINT  NOT NULL,
    PRIMARY KEY (account_id, idem_key)
);

CREATE TABLE chat_links (
    account_id BIGINT  PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
    chat_user  TEXT    NOT NULL UNIQUE,
    premium    BOOLEAN NOT NULL,
    checked    BIGINT  NOT NULL
);
