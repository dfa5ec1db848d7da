//! Friends: `GET /api/friends` (the caller's friends with their presence, its requests in and
//! out, the players it blocked), and `POST /api/friends/{friendCode}/request`, `accept`,
//! `decline`, `cancel`, `remove`, `block` and `unblock`.
//!
//! Two players become friends when one accepts the other's request, or when each requests the
//! other (the second request accepts the first). A block ends the two players' friendship and
//! their requests either way; the blocked player can no longer ask the blocker to be friends,
//! invite it to a clan, nor see its presence (presence is shown to friends only). Friendships
//! and blocks go with either account's deletion; a request nobody answers expires after 30 days.

use serde::Serialize;
use utoipa::ToSchema;

use super::shared::community::banned;
use super::shared::session::{self, Session};
use super::views::{FriendView, ListedView};
use crate::App;
use crate::domain::FriendCode;
use crate::http::params::parameters;
use crate::http::{ApiError, ErrorCode, Incoming, Reply};
use crate::openapi::{Done, ErrorBody, KeyMismatch, Success, UserKeyRequired};
use crate::store::{AccountId, FriendChange, FriendChanged, FriendLimits, FriendRefusal};

/// The limits every change of friends is held to.
const LIMITS: FriendLimits = FriendLimits {
    friends_max: 200,
    requests_max: 100,
};

/// `{status, friends, incoming, outgoing, blocked}`.
#[derive(Serialize, ToSchema)]
struct FriendsAnswer<'a> {
    /// The caller's friends with their presence, oldest friendship first.
    friends: Vec<FriendView<'a>>,
    /// The requests other players sent the caller, oldest first.
    incoming: Vec<ListedView<'a>>,
    /// The requests the caller sent, oldest first.
    outgoing: Vec<ListedView<'a>>,
    /// The players the caller blocked, oldest first.
    blocked: Vec<ListedView<'a>>,
}

/// `{status, friendship}` after a request or an accept.
#[derive(Serialize, ToSchema)]
struct FriendshipAnswer {
    /// `requested` (the player has not answered yet) or `friends` (the two are friends now).
    #[schema(value_type = String, pattern = "^(requested|friends)$")]
    friendship: &'static str,
}

parameters! {
    /// The player of a friends' change.
    struct PlayerPath {
        /// The player's friend code, percent-encoded (`#` as `%23`)
        code: FriendCode = Path "friendCode",
    }
}

/// `GET /api/friends` (key required): the caller's friends with their level, clan and
/// presence, the requests in and out, and the players the caller blocked.
#[utoipa::path(
    get,
    path = "/api/friends",
    tag = "friends",
    operation_id = "friends",
    description = "The caller's friends with their level, clan and presence (online while a \
        realtime channel is open, and when last seen), the friend requests other players sent \
        the caller and those it sent, and the players it blocked.",
    responses(
        (status = 200, description = "The lists", body = Success<FriendsAnswer>),
        (status = 401, response = UserKeyRequired),
        (status = 403, response = KeyMismatch),
    )
)]
pub(super) async fn list(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    let session = session::required(&app, &incoming).await?;
    let lists = app.store.friend_lists(session.account.id).await?;
    let ids: Vec<AccountId> = lists
        .friends
        .iter()
        .map(|friend| friend.player.account)
        .collect();
    let presence = app.store.presence(&ids, app.clock.now()).await?;
    let friends = lists
        .friends
        .iter()
        .map(|friend| {
            let shown = presence.get(&friend.player.account).copied();
            FriendView::new(friend, shown.unwrap_or_default())
        })
        .collect();
    Ok(Reply::success(&FriendsAnswer {
        friends,
        incoming: lists.incoming.iter().map(ListedView::new).collect(),
        outgoing: lists.outgoing.iter().map(ListedView::new).collect(),
        blocked: lists.blocked.iter().map(ListedView::new).collect(),
    }))
}

/// `POST /api/friends/{friendCode}/request` (key required): asks the player to be friends;
/// when the player asked the caller first, they are friends at once.
#[utoipa::path(
    post,
    path = "/api/friends/{friendCode}/request",
    tag = "friends",
    operation_id = "requestFriend",
    description = "Asks the player to be friends. When the player asked the caller first, the \
        two are friends at once (`friendship: friends`).",
    params(PlayerPath),
    responses(
        (status = 200, description = "The request was sent, or the two are friends now", body = Success<FriendshipAnswer>),
        (status = 400, description = "Not a friend code, or the caller's own \
            (`invalid_parameter`)", body = ErrorBody),
        (status = 401, response = UserKeyRequired),
        (status = 403, description = "The caller is banned from friends (`account_banned`), \
            the player blocked the caller (`blocked`), or keys of two accounts \
            (`key_mismatch`)", body = ErrorBody),
        (status = 404, description = "No player has this friend code (`unknown_user`)", body = ErrorBody),
        (status = 409, description = "Friends already (`already_friends`), asked already \
            (`already_requested`), the caller blocked the player (`player_blocked`), or too \
            many friends (`friends_full`) or requests out (`friend_requests_full`)", body = ErrorBody),
    )
)]
pub(super) async fn request(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    befriending(&app, &incoming, FriendChange::Request).await
}

/// `POST /api/friends/{friendCode}/accept` (key required): accepts the player's request.
#[utoipa::path(
    post,
    path = "/api/friends/{friendCode}/accept",
    tag = "friends",
    operation_id = "acceptFriend",
    description = "Accepts the player's friend request: the two are friends.",
    params(PlayerPath),
    responses(
        (status = 200, description = "The two are friends", body = Success<FriendshipAnswer>),
        (status = 400, description = "Not a friend code, or the caller's own \
            (`invalid_parameter`)", body = ErrorBody),
        (status = 401, response = UserKeyRequired),
        (status = 403, description = "The caller is banned from friends (`account_banned`), \
            or keys of two accounts (`key_mismatch`)", body = ErrorBody),
        (status = 404, description = "No player has this friend code (`unknown_user`), or the \
            player sent the caller no request (`no_friend_request`)", body = ErrorBody),
        (status = 409, description = "The caller or the player has as many friends as it may \
            (`friends_full`)", body = ErrorBody),
    )
)]
pub(super) async fn accept(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    befriending(&app, &incoming, FriendChange::Accept).await
}

/// `POST /api/friends/{friendCode}/decline` (key required): declines the player's request.
#[utoipa::path(
    post,
    path = "/api/friends/{friendCode}/decline",
    tag = "friends",
    operation_id = "declineFriend",
    description = "Declines the player's friend request.",
    params(PlayerPath),
    responses(
        (status = 200, description = "The request is declined", body = Done),
        (status = 400, description = "Not a friend code, or the caller's own \
            (`invalid_parameter`)", body = ErrorBody),
        (status = 401, response = UserKeyRequired),
        (status = 403, response = KeyMismatch),
        (status = 404, description = "No player has this friend code (`unknown_user`), or the \
            player sent the caller no request (`no_friend_request`)", body = ErrorBody),
    )
)]
pub(super) async fn decline(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    settled(&app, &incoming, FriendChange::Decline).await
}

/// `POST /api/friends/{friendCode}/cancel` (key required): withdraws the caller's request.
#[utoipa::path(
    post,
    path = "/api/friends/{friendCode}/cancel",
    tag = "friends",
    operation_id = "cancelFriendRequest",
    description = "Withdraws the caller's friend request to the player.",
    params(PlayerPath),
    responses(
        (status = 200, description = "The request is withdrawn", body = Done),
        (status = 400, description = "Not a friend code, or the caller's own \
            (`invalid_parameter`)", body = ErrorBody),
        (status = 401, response = UserKeyRequired),
        (status = 403, response = KeyMismatch),
        (status = 404, description = "No player has this friend code (`unknown_user`), or the \
            caller sent the player no request (`no_friend_request`)", body = ErrorBody),
    )
)]
pub(super) async fn cancel(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    settled(&app, &incoming, FriendChange::Cancel).await
}

/// `POST /api/friends/{friendCode}/remove` (key required): ends the friendship.
#[utoipa::path(
    post,
    path = "/api/friends/{friendCode}/remove",
    tag = "friends",
    operation_id = "removeFriend",
    description = "Ends the caller's friendship with the player.",
    params(PlayerPath),
    responses(
        (status = 200, description = "The two are no longer friends", body = Done),
        (status = 400, description = "Not a friend code, or the caller's own \
            (`invalid_parameter`)", body = ErrorBody),
        (status = 401, response = UserKeyRequired),
        (status = 403, response = KeyMismatch),
        (status = 404, description = "No player has this friend code (`unknown_user`), or the \
            two are not friends (`not_friends`)", body = ErrorBody),
    )
)]
pub(super) async fn remove(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    settled(&app, &incoming, FriendChange::Remove).await
}

/// `POST /api/friends/{friendCode}/block` (key required): blocks the player.
#[utoipa::path(
    post,
    path = "/api/friends/{friendCode}/block",
    tag = "friends",
    operation_id = "blockPlayer",
    description = "Blocks the player: ends the two players' friendship and their friend \
        requests either way; the player can no longer ask the caller to be friends, invite it \
        to a clan, nor see its presence.",
    params(PlayerPath),
    responses(
        (status = 200, description = "The player is blocked", body = Done),
        (status = 400, description = "Not a friend code, or the caller's own \
            (`invalid_parameter`)", body = ErrorBody),
        (status = 401, response = UserKeyRequired),
        (status = 403, response = KeyMismatch),
        (status = 404, description = "No player has this friend code (`unknown_user`)", body = ErrorBody),
        (status = 409, description = "The caller blocked the player already \
            (`already_blocked`)", body = ErrorBody),
    )
)]
pub(super) async fn block(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    settled(&app, &incoming, FriendChange::Block).await
}

/// `POST /api/friends/{friendCode}/unblock` (key required): lifts the caller's block.
#[utoipa::path(
    post,
    path = "/api/friends/{friendCode}/unblock",
    tag = "friends",
    operation_id = "unblockPlayer",
    description = "Lifts the caller's block of the player.",
    params(PlayerPath),
    responses(
        (status = 200, description = "The player is no longer blocked", body = Done),
        (status = 400, description = "Not a friend code, or the caller's own \
            (`invalid_parameter`)", body = ErrorBody),
        (status = 401, response = UserKeyRequired),
        (status = 403, response = KeyMismatch),
        (status = 404, description = "No player has this friend code (`unknown_user`), or the \
            caller has not blocked the player (`not_blocked`)", body = ErrorBody),
    )
)]
pub(super) async fn unblock(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    settled(&app, &incoming, FriendChange::Unblock).await
}

/// A request or an accept, answered `{status, friendship}`.
async fn befriending(
    app: &App,
    incoming: &Incoming,
    change: FriendChange,
) -> Result<Reply, ApiError> {
    let friendship = match changed(app, incoming, change).await? {
        FriendChanged::Requested => "requested",
        FriendChanged::Befriended | FriendChanged::Done => "friends",
    };
    Ok(Reply::success(&FriendshipAnswer { friendship }))
}

/// Any other change, answered `{status}`.
async fn settled(app: &App, incoming: &Incoming, change: FriendChange) -> Result<Reply, ApiError> {
    changed(app, incoming, change).await?;
    Ok(Reply::done())
}

/// Makes `change` between the caller and the player of the path.
async fn changed(
    app: &App,
    incoming: &Incoming,
    change: FriendChange,
) -> Result<FriendChanged, ApiError> {
    let session = session::required(app, incoming).await?;
    let code = PlayerPath::read(incoming)?.code;
    let other = player(app, &session, &code).await?;
    app.store
        .change_friendship(session.account.id, other, change, LIMITS, app.clock.now())
        .await?
        .map_err(|refusal| refused(refusal, &code))
}

/// The account of the friend code: never the caller's.
async fn player(app: &App, session: &Session, code: &FriendCode) -> Result<AccountId, ApiError> {
    let account = app
        .store
        .account_by_friend_code(code)
        .await?
        .ok_or_else(|| unknown(code))?;
    if account.id == session.account.id {
        return Err(ApiError::invalid(
            "friendCode",
            "is the caller's own: name another player",
        ));
    }
    Ok(account.id)
}

/// 404 `unknown_user` for a friend code nobody has.
fn unknown(code: &FriendCode) -> ApiError {
    ApiError::NotFound {
        code: ErrorCode::UnknownUser,
        message: format!("no player has the friend code `{code}`"),
    }
}

/// A refusal as the error the client sees.
fn refused(refusal: FriendRefusal, code: &FriendCode) -> ApiError {
    let conflict = |code, message: String| ApiError::Conflict { code, message };
    let not_found = |code, message: String| ApiError::NotFound { code, message };
    match refusal {
        FriendRefusal::NoAccount => ApiError::InvalidUserKey,
        FriendRefusal::Banned => banned("friends"),
        FriendRefusal::UnknownPlayer => unknown(code),
        FriendRefusal::BlockedByThem => ApiError::Forbidden {
            code: ErrorCode::Blocked,
            message: format!("`{code}` blocked you: you may not ask them to be friends"),
        },
        FriendRefusal::BlockedByYou => conflict(
            ErrorCode::PlayerBlocked,
            format!("you blocked `{code}`: unblock them first"),
        ),
        FriendRefusal::AlreadyFriends => conflict(
            ErrorCode::AlreadyFriends,
            format!("you and `{code}` are friends already"),
        ),
        FriendRefusal::AlreadyRequested => conflict(
            ErrorCode::AlreadyRequested,
            format!("you asked `{code}` to be friends already"),
        ),
        FriendRefusal::NoRequest => not_found(
            ErrorCode::NoFriendRequest,
            format!("there is no such friend request between you and `{code}`"),
        ),
        FriendRefusal::NotFriends => not_found(
            ErrorCode::NotFriends,
            format!("you and `{code}` are not friends"),
        ),
        FriendRefusal::AlreadyBlocked => conflict(
            ErrorCode::AlreadyBlocked,
            format!("you blocked `{code}` already"),
        ),
        FriendRefusal::NotBlocked => not_found(
            ErrorCode::NotBlocked,
            format!("you have not blocked `{code}`"),
        ),
        FriendRefusal::FriendsFull => conflict(
            ErrorCode::FriendsFull,
            format!(
                "you have {} friends, as many as you may: remove one first",
                LIMITS.friends_max
            ),
        ),
        FriendRefusal::TheirFriendsFull => conflict(
            ErrorCode::FriendsFull,
            format!("`{code}` has as many friends as they may"),
        ),
        FriendRefusal::RequestsFull => conflict(
            ErrorCode::FriendRequestsFull,
            format!(
                "you have {} friend requests nobody answered, as many as you may: cancel one \
                 first",
                LIMITS.requests_max
            ),
        ),
    }
}
