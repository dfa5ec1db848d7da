-- Accounts and their user keys. Times are unix microseconds (BIGINT).

CREATE TABLE accounts (
    id            BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    provider      TEXT    NOT NULL,
    identifier    TEXT    NOT NULL,
    name          TEXT,
    avatar        TEXT,
    email         TEXT,
    friend_name   TEXT    NOT NULL,
    friend_digits INTEGER NOT NULL CHECK (friend_digits BETWEEN 0 AND 9999),
    status        TEXT    NOT NULL DEFAULT 'offline',
    experience    BIGINT  NOT NULL DEFAULT 0,
    level         BIGINT  NOT NULL DEFAULT 1,
    coins         BIGINT  NOT NULL DEFAULT 0 CHECK (coins >= 0),
    gems          BIGINT  NOT NULL DEFAULT 0 CHECK (gems >= 0),
    role          TEXT    NOT NULL DEFAULT 'player' CHECK (role IN ('player', 'admin')),
    is_banned     BOOLEAN NOT NULL DEFAULT FALSE,
    created       BIGINT  NOT NULL,
    updated       BIGINT  NOT NULL,
    UNIQUE (provider, identifier)
);

-- Friend codes are unique regardless of the name's letter case.
CREATE UNIQUE INDEX accounts_friend_code ON accounts (lower(friend_name), friend_digits);

CREATE TABLE user_keys (
    key_hash   TEXT   PRIMARY KEY,
    account_id BIGINT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    created    BIGINT NOT NULL,
    expires    BIGINT NOT NULL
);

CREATE INDEX user_keys_account ON user_keys (account_id);
