//! [`PlayerDirectory`](safezone_core::store::PlayerDirectory), written once for both stores:
//! players found by the start of their friend code or display name, and the newest, banned and
//! most recently signed-in players, a page at a time (statements in
//! [`statements::player_directory`](crate::statements::player_directory)).

use safezone_core::domain::FriendCode;
use safezone_core::store::{AccountId, PlayerCursor, PlayerListing, PlayerSummary, StoreError};
use sqlx::{Postgres, Sqlite};

use crate::micros::from_micros;
use crate::statements::player_directory as sql;

/// The statements whose text order differs between the databases: a name's start is a range
/// of lowered names compared byte by byte, which PostgreSQL must be told (`COLLATE "C"`,
/// whatever the database's collation) and SQLite does by default.
pub(crate) trait TextOrder: sqlx::Database {
    /// The players by the start of their friend code.
    const FRIEND_CODE_PREFIX: &'static str;
    /// The players by the start of their display name.
    const NAME_PREFIX: &'static str;
}

impl TextOrder for Postgres {
    const FRIEND_CODE_PREFIX: &'static str = sql::FRIEND_CODE_PREFIX_POSTGRES;
    const NAME_PREFIX: &'static str = sql::NAME_PREFIX_POSTGRES;
}

impl TextOrder for Sqlite {
    const FRIEND_CODE_PREFIX: &'static str = sql::FRIEND_CODE_PREFIX_SQLITE;
    const NAME_PREFIX: &'static str = sql::NAME_PREFIX_SQLITE;
}

/// A player as a listing reads it, with the lowered name it is sorted by (when it is).
#[derive(sqlx::FromRow)]
pub(crate) struct PlayerRow {
    id: i64,
    friend_name: String,
    friend_digits: i32,
    name: Option<String>,
    level: i64,
    coins: i64,
    gems: i64,
    is_banned: bool,
    created: i64,
    last_sign_in: Option<i64>,
    sort_key: Option<String>,
}

impl PlayerRow {
    /// Where a page ending with this row leaves `listing`.
    pub(crate) fn cursor(&self, listing: &PlayerListing) -> PlayerCursor {
        let key = self.sort_key.clone().unwrap_or_default();
        match listing {
            PlayerListing::Newest | PlayerListing::Banned => PlayerCursor::Id(AccountId(self.id)),
            PlayerListing::LastSignIn => PlayerCursor::SignIn {
                at_micros: self.last_sign_in.unwrap_or_default(),
                account: AccountId(self.id),
            },
            PlayerListing::FriendCode(_) => PlayerCursor::FriendCode {
                name: key,
                digits: u16::try_from(self.friend_digits).unwrap_or_default(),
            },
            PlayerListing::Name(_) => PlayerCursor::Name {
                name: key,
                account: AccountId(self.id),
            },
        }
    }

    /// The player; a row that breaks the record's rules is corrupt data.
    pub(crate) fn into_summary(self) -> Result<PlayerSummary, StoreError> {
        let friend_code = u16::try_from(self.friend_digits)
            .ok()
            .and_then(|digits| FriendCode::new(&self.friend_name, digits).ok())
            .ok_or_else(|| {
                StoreError::Internal(format!(
                    "account {} has the friend code {}#{}",
                    self.id, self.friend_name, self.friend_digits
                ))
            })?;
        Ok(PlayerSummary {
            id: AccountId(self.id),
            friend_code,
            name: self.name,
            level: self.level,
            coins: self.coins,
            gems: self.gems,
            banned: self.is_banned,
            created: from_micros(self.created)?,
            last_sign_in: self.last_sign_in.map(from_micros).transpose()?,
        })
    }
}

/// Implements [`PlayerDirectory`](safezone_core::store::PlayerDirectory) for `$store` over the
/// sqlx database `$db` (see [`impl_store`](crate::impl_store)), in a child module
/// `player_directory` of the calling one.
macro_rules! impl_player_directory {
    ($store:ident, $db:ty) => {
        mod player_directory {
            use async_trait::async_trait;
            use safezone_core::store::{
                FriendCodeSearch, PLAYER_PAGE_MAX, PlayerCursor, PlayerDirectory, PlayerListing,
                PlayerPage, StoreError,
            };
            use sqlx::query::QueryAs;

            use super::$store;
            use crate::error::store_error;
            use crate::player_directory::{PlayerRow, TextOrder};
            use crate::statements::player_directory as sql;

            /// A listing's statement with its binds, but for the limit.
            type Query<'q> = QueryAs<'q, $db, PlayerRow, <$db as sqlx::Database>::Arguments>;

            /// The highest character: the text followed by it closes the range of the names
            /// starting with the text.
            const HIGHEST: &str = "\u{10FFFF}";

            /// The statement reading `listing` after `after`, but for the limit; `None` when
            /// no player can match, or the cursor is another listing's.
            fn query<'q>(
                listing: &'q PlayerListing,
                after: Option<&'q PlayerCursor>,
                search: Option<&'q FriendCodeSearch>,
            ) -> Option<Query<'q>> {
                Some(match (listing, after) {
                    (PlayerListing::Newest, None) => sqlx::query_as(sql::NEWEST).bind(i64::MAX),
                    (PlayerListing::Banned, None) => sqlx::query_as(sql::BANNED).bind(i64::MAX),
                    (PlayerListing::Newest, Some(PlayerCursor::Id(id))) => {
                        sqlx::query_as(sql::NEWEST).bind(id.0)
                    }
                    (PlayerListing::Banned, Some(PlayerCursor::Id(id))) => {
                        sqlx::query_as(sql::BANNED).bind(id.0)
                    }
                    (PlayerListing::LastSignIn, None) => sqlx::query_as(sql::LAST_SIGN_IN)
                        .bind(i64::MAX)
                        .bind(i64::MAX),
                    (
                        PlayerListing::LastSignIn,
                        Some(PlayerCursor::SignIn { at_micros, account }),
                    ) => sqlx::query_as(sql::LAST_SIGN_IN)
                        .bind(*at_micros)
                        .bind(account.0),
                    (PlayerListing::FriendCode(_), after) => {
                        let search = search?;
                        let (name, digits) = match after {
                            None => (search.name_from.as_str(), -1),
                            Some(PlayerCursor::FriendCode { name, digits }) => {
                                (name.as_str(), i32::from(*digits))
                            }
                            Some(_) => return None,
                        };
                        sqlx::query_as(<$db as TextOrder>::FRIEND_CODE_PREFIX)
                            .bind(name)
                            .bind(digits)
                            .bind(search.name_until.as_str())
                            .bind(i32::from(search.digits_from))
                            .bind(i32::from(search.digits_to))
                    }
                    (PlayerListing::Name(text), after) => {
                        let (name, id) = match after {
                            None => (None, i64::MIN),
                            Some(PlayerCursor::Name { name, account }) => {
                                (Some(name.as_str()), account.0)
                            }
                            Some(_) => return None,
                        };
                        sqlx::query_as(<$db as TextOrder>::NAME_PREFIX)
                            .bind(text.as_str())
                            .bind(HIGHEST)
                            .bind(name)
                            .bind(id)
                    }
                    _ => return None,
                })
            }

            #[async_trait]
            impl PlayerDirectory for $store {
                async fn players(
                    &self,
                    listing: &PlayerListing,
                    after: Option<&PlayerCursor>,
                    limit: u32,
                ) -> Result<PlayerPage, StoreError> {
                    if after.is_some_and(|cursor| !cursor.fits(listing)) {
                        return Err(StoreError::Internal(format!(
                            "a cursor of another listing than {listing:?}"
                        )));
                    }
                    let search = match listing {
                        PlayerListing::FriendCode(text) => FriendCodeSearch::parse(text),
                        _ => None,
                    };
                    let limit = limit.clamp(1, PLAYER_PAGE_MAX);
                    let Some(query) = query(listing, after, search.as_ref()) else {
                        return Ok(PlayerPage {
                            players: Vec::new(),
                            next: None,
                        });
                    };
                    // One more row than shown tells whether a next page starts after them.
                    let mut rows = query
                        .bind(i64::from(limit) + 1)
                        .fetch_all(&self.pool)
                        .await
                        .map_err(store_error)?;
                    let more = rows.len() > limit as usize;
                    rows.truncate(limit as usize);
                    let next = rows.last().filter(|_| more).map(|row| row.cursor(listing));
                    let players = rows
                        .into_iter()
                        .map(PlayerRow::into_summary)
                        .collect::<Result<_, _>>()?;
                    Ok(PlayerPage { players, next })
                }
            }
        }
    };
}

pub(crate) use impl_player_directory;
