//! Players as the friends' list shows them: a friend with its presence, and a player on a
//! request or block list.

use serde::Serialize;
use utoipa::ToSchema;

use crate::domain::{ApiDate, FriendCode};
use crate::store::{ClanBadge, Listed, Presence};

/// A friend: `{id, friend_code, name, avatar, level, clan, online, last_seen, since}`.
#[derive(Serialize, ToSchema)]
pub(crate) struct FriendView<'a> {
    id: i64,
    #[schema(value_type = FriendCode)]
    friend_code: String,
    /// The player's name: its friend code's.
    name: &'a str,
    avatar: Option<&'a str>,
    level: i64,
    /// The clan the friend is a member of, if any.
    clan: Option<ClanBadgeView<'a>>,
    /// Whether the friend has a realtime channel open now.
    online: bool,
    /// When the friend was last seen online (now while online); `null` if never.
    last_seen: Option<ApiDate>,
    /// Friends since.
    since: ApiDate,
}

/// A player on a request or block list: `{id, friend_code, name, avatar, level, clan, since}`.
#[derive(Serialize, ToSchema)]
pub(crate) struct ListedView<'a> {
    id: i64,
    #[schema(value_type = FriendCode)]
    friend_code: String,
    /// The player's name: its friend code's.
    name: &'a str,
    avatar: Option<&'a str>,
    level: i64,
    /// The clan the player is a member of, if any.
    clan: Option<ClanBadgeView<'a>>,
    /// When the request was sent, or the player blocked.
    since: ApiDate,
}

/// A clan as a player's entry names it: `{id, tag, name}`.
#[derive(Serialize, ToSchema)]
pub(crate) struct ClanBadgeView<'a> {
    id: i64,
    tag: &'a str,
    name: &'a str,
}

impl<'a> ClanBadgeView<'a> {
    fn new(clan: &'a ClanBadge) -> Self {
        Self {
            id: clan.id.0,
            tag: &clan.tag,
            name: &clan.name,
        }
    }
}

impl<'a> FriendView<'a> {
    /// A friend with its presence.
    pub(crate) fn new(friend: &'a Listed, presence: Presence) -> Self {
        let player = &friend.player;
        Self {
            id: player.account.0,
            friend_code: player.friend_code.to_string(),
            name: player.friend_code.name(),
            avatar: player.avatar.as_deref(),
            level: player.level,
            clan: player.clan.as_ref().map(ClanBadgeView::new),
            online: presence.online,
            last_seen: presence.last_seen.map(ApiDate),
            since: ApiDate(friend.since),
        }
    }
}

impl<'a> ListedView<'a> {
    /// A player on a request or block list.
    pub(crate) fn new(listed: &'a Listed) -> Self {
        let player = &listed.player;
        Self {
            id: player.account.0,
            friend_code: player.friend_code.to_string(),
            name: player.friend_code.name(),
            avatar: player.avatar.as_deref(),
            level: player.level,
            clan: player.clan.as_ref().map(ClanBadgeView::new),
            since: ApiDate(listed.since),
        }
    }
}
