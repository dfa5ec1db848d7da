//! The records of friends: a change between two accounts (request, accept, decline, cancel,
//! remove, block, unblock), how it ended or why it was refused, the limits it is held to, and
//! an account's lists of friends, requests and blocks.

use time::OffsetDateTime;

use super::{AccountId, ClanId};
use crate::domain::FriendCode;

/// How long a friend request nobody answered is kept: the retention sweep deletes it after.
pub const FRIEND_REQUEST_EXPIRY: time::Duration = time::Duration::days(30);

/// A change between the acting account and another, each one transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FriendChange {
    /// Asks the other to be friends; when the other asked first, they become friends at once.
    Request,
    /// Accepts the other's request: they become friends.
    Accept,
    /// Declines the other's request.
    Decline,
    /// Withdraws the acting account's own request to the other.
    Cancel,
    /// Ends the friendship.
    Remove,
    /// Blocks the other: ends their friendship and their requests either way, and refuses the
    /// other's requests and clan invitations until unblocked.
    Block,
    /// Lifts the acting account's block of the other.
    Unblock,
}

/// How many friends and pending requests an account may have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FriendLimits {
    /// The most friends of one account.
    pub friends_max: i64,
    /// The most requests one account has sent and nobody answered yet.
    pub requests_max: i64,
}

/// How a change that was made ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FriendChanged {
    /// A request was sent; the other has not answered.
    Requested,
    /// The two are friends now (an accepted request, or two requests that met).
    Befriended,
    /// The change was made (decline, cancel, remove, block, unblock).
    Done,
}

/// Why a change was refused; nothing changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FriendRefusal {
    /// The acting account does not exist (any more).
    NoAccount,
    /// An operator banned the acting account (requests and accepts only).
    Banned,
    /// The other account does not exist (any more).
    UnknownPlayer,
    /// The other account blocked the acting one.
    BlockedByThem,
    /// The acting account blocked the other (it must unblock it first).
    BlockedByYou,
    /// The two are friends already.
    AlreadyFriends,
    /// The acting account asked the other already.
    AlreadyRequested,
    /// There is no such request to answer or withdraw.
    NoRequest,
    /// The two are not friends.
    NotFriends,
    /// The acting account blocked the other already.
    AlreadyBlocked,
    /// The acting account has not blocked the other.
    NotBlocked,
    /// The acting account has as many friends as it may.
    FriendsFull,
    /// The other account has as many friends as it may.
    TheirFriendsFull,
    /// The acting account has as many unanswered requests out as it may.
    RequestsFull,
}

/// Another account as the lists show it: its public fields, level and clan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayerCard {
    /// The account.
    pub account: AccountId,
    /// Its friend code, whose name is the player's name.
    pub friend_code: FriendCode,
    /// Its avatar address.
    pub avatar: Option<String>,
    /// Its level.
    pub level: i64,
    /// The clan it is a member of, if any.
    pub clan: Option<ClanBadge>,
}

/// A clan as a player card names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClanBadge {
    /// The clan's id.
    pub id: ClanId,
    /// Its tag.
    pub tag: String,
    /// Its name.
    pub name: String,
}

/// A player on one of an account's lists, with when it got there (friends since, request
/// sent, blocked since).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    /// The player.
    pub player: PlayerCard,
    /// When it got on the list.
    pub since: OffsetDateTime,
}

/// An account's friends, requests and blocks, each list oldest first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FriendLists {
    /// Its friends.
    pub friends: Vec<Listed>,
    /// The requests others sent it.
    pub incoming: Vec<Listed>,
    /// The requests it sent.
    pub outgoing: Vec<Listed>,
    /// The players it blocked.
    pub blocked: Vec<Listed>,
}
