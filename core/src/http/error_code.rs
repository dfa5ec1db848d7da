//! Every `code` an error body can carry, listed once: [`ErrorCode`]. Handlers name codes by
//! variant, [`ApiError`](super::ApiError) puts them in the body, and the OpenAPI document's
//! `ErrorCode` schema enumerates them from [`ErrorCode::ALL`].

use std::borrow::Cow;

use serde::{Serialize, Serializer};
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::{PartialSchema, ToSchema};

/// Declares [`ErrorCode`] from one line per code (its doc, variant and wire string), and the
/// list of all of them.
macro_rules! error_codes {
    ($($(#[doc = $doc:literal])+ $variant:ident = $wire:literal,)+) => {
        /// The stable machine-readable `code` of an error body, one variant per code; the
        /// status that answers it is in each variant's doc.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum ErrorCode {
            $($(#[doc = $doc])+ $variant,)+
        }

        impl ErrorCode {
            /// Every code, in the order of the list.
            pub const ALL: &[Self] = &[$(Self::$variant,)+];

            /// The code as the body carries it (`already_voted`).
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $wire,)+
                }
            }
        }
    };
}

error_codes! {
    /// 400: a required parameter is absent.
    MissingParameter = "missing_parameter",
    /// 400: a parameter's value is not acceptable, it has one value in the query string and
    /// another in the form body, or not exactly one of several alternatives is given.
    InvalidParameter = "invalid_parameter",
    /// 400: the request body is absent or not what the endpoint takes.
    InvalidBody = "invalid_body",
    /// 400: a header's value is not acceptable (`Idempotency-Key`).
    InvalidHeader = "invalid_header",
    /// 400: `GET /api/realtime` without a WebSocket upgrade (`Connection: Upgrade`, `Upgrade:
    /// websocket`, `Sec-WebSocket-Version: 13` and a `Sec-WebSocket-Key`).
    NotWebsocketUpgrade = "not_websocket_upgrade",
    /// 400: the store's verifier did not confirm a purchase receipt.
    InvalidReceipt = "invalid_receipt",
    /// 400: the path is not validly percent-encoded UTF-8.
    InvalidPathEncoding = "invalid_path_encoding",
    /// 400: the request target is not a path (`CONNECT host:port`, `OPTIONS *`).
    InvalidRequestTarget = "invalid_request_target",
    /// 400: the server framework refused a malformed request before the core saw it (the
    /// rocket server's catcher).
    InvalidRequest = "invalid_request",
    /// 413: the request body is larger than the configured limit.
    BodyTooLarge = "body_too_large",
    /// 401: no user key came with a request that needs one.
    MissingUserKey = "missing_user_key",
    /// 401: the user key is malformed, unknown, expired or revoked.
    InvalidUserKey = "invalid_user_key",
    /// 401: the chat platform refused the token (invalid or expired).
    InvalidChatToken = "invalid_chat_token",
    /// 401: a match report came without the game servers' credential.
    MissingServerCredential = "missing_server_credential",
    /// 401: a match report came with a credential that is not the configured one.
    InvalidServerCredential = "invalid_server_credential",
    /// 401: a call to the operator API came without an operator token.
    OperatorTokenRequired = "operator_token_required",
    /// 401: the operator token is malformed, unknown or revoked.
    InvalidOperatorToken = "invalid_operator_token",
    /// 402: the account cannot pay for this.
    InsufficientFunds = "insufficient_funds",
    /// 403: the user keys sent in one request do not belong to one account.
    KeyMismatch = "key_mismatch",
    /// 403: an operator banned the account from what it tried (the shop and rewards, clans,
    /// voting, tournaments).
    AccountBanned = "account_banned",
    /// 403: only operator (admin) accounts may do this.
    AdminOnly = "admin_only",
    /// 403: a read-only operator token asked the operator API for a change.
    OperatorReadOnly = "operator_read_only",
    /// 403: a deletion's `confirmationKey` is not another valid key of the account.
    ConfirmationFailed = "confirmation_failed",
    /// 403: device accounts are usable only from the iOS and Android apps.
    PlatformNotAllowed = "platform_not_allowed",
    /// 403: the reward needs a linked chat-platform account.
    ChatLinkRequired = "chat_link_required",
    /// 403: the reward needs a premium subscription on the linked chat-platform account.
    PremiumRequired = "premium_required",
    /// 403: the account is not a member of the clan.
    NotAMember = "not_a_member",
    /// 403: the account is not invited to the clan it tries to join.
    NotInvited = "not_invited",
    /// 403: the tournament is open only to its whitelist, and the account is not on it.
    NotWhitelisted = "not_whitelisted",
    /// 403: the player blocked the caller: it takes no friend request nor clan invitation from
    /// the caller.
    Blocked = "blocked",
    /// 404: no endpoint answers this path.
    NotFound = "not_found",
    /// 404: no player has the friend code.
    ProfileNotFound = "profile_not_found",
    /// 404: the content has no such reward track.
    TrackNotFound = "track_not_found",
    /// 404: the shop has no such item, pack or deal.
    NotInCatalog = "not_in_catalog",
    /// 404: a receipt is for a product the shop does not sell.
    UnknownProduct = "unknown_product",
    /// 404: there is no such poll.
    UnknownPoll = "unknown_poll",
    /// 404: the poll has no such option.
    UnknownOption = "unknown_option",
    /// 404: there is no such clan.
    UnknownClan = "unknown_clan",
    /// 404: there is no such account (a clan invitation's invitee, the operator API's player).
    UnknownUser = "unknown_user",
    /// 404: there is no such tournament.
    UnknownTournament = "unknown_tournament",
    /// 404: no recorded match has this id (the operator API's match browser).
    UnknownMatch = "unknown_match",
    /// 404: there is no such friend request to answer or withdraw.
    NoFriendRequest = "no_friend_request",
    /// 404: the caller and the player are not friends.
    NotFriends = "not_friends",
    /// 404: the caller has not blocked the player.
    NotBlocked = "not_blocked",
    /// 405: the path exists but not for this method (`Allow` lists those it answers).
    MethodNotAllowed = "method_not_allowed",
    /// 409: the `Idempotency-Key` was used before for a different request.
    IdempotencyKeyReused = "idempotency_key_reused",
    /// 409: the account's progress kept changing while the change was tried.
    ProgressChanged = "progress_changed",
    /// 409: the credit would take a balance past the most allowed.
    BalanceLimit = "balance_limit",
    /// 409: an operator's removal would take a balance below zero; nothing was removed.
    BalanceTooLow = "balance_too_low",
    /// 409: the account already owns the item or the reward track's pass.
    AlreadyOwned = "already_owned",
    /// 409: the item, deal or reward track is not for sale (a free track belongs to everyone).
    NotForSale = "not_for_sale",
    /// 409: the account holds the most unopened packs of this kind allowed.
    PackLimit = "pack_limit",
    /// 409: the account has no unopened pack of this kind.
    NoPackToOpen = "no_pack_to_open",
    /// 409: an operator's removal names an item the account does not own.
    NotOwned = "not_owned",
    /// 409: an operator's removal names more unopened packs than the account holds.
    NotEnoughPacks = "not_enough_packs",
    /// 409: the reward was already claimed in its current window.
    AlreadyClaimed = "already_claimed",
    /// 409: rewards of this type cannot be claimed (yet).
    NotClaimable = "not_claimable",
    /// 409: the timed deal is not running now.
    DealClosed = "deal_closed",
    /// 409: the purchase receipt was already redeemed.
    ReceiptAlreadyUsed = "receipt_already_used",
    /// 409: the friend code already has this name.
    SameName = "same_name",
    /// 409: every friend code with this name is taken.
    NameTaken = "name_taken",
    /// 409: the reward track is not running now.
    TrackClosed = "track_closed",
    /// 409: the reward track's pass must be bought before its tiers are skipped.
    TrackNotOwned = "track_not_owned",
    /// 409: the reward track's tiers cannot be bought.
    NotSkippable = "not_skippable",
    /// 409: skipping this many tiers would pass the reward track's last tier.
    PastMaxTier = "past_max_tier",
    /// 409: the poll is not open yet.
    PollNotOpen = "poll_not_open",
    /// 409: the poll has ended or an operator closed it.
    PollClosed = "poll_closed",
    /// 409: the account has voted in the poll already.
    AlreadyVoted = "already_voted",
    /// 409: another clan has the tag (compared regardless of letter case).
    ClanTagTaken = "clan_tag_taken",
    /// 409: the account is a member of a clan already.
    AlreadyInClan = "already_in_clan",
    /// 409: the player is already invited to the clan.
    AlreadyInvited = "already_invited",
    /// 409: the player is already a member of the clan.
    AlreadyMember = "already_member",
    /// 409: the clan has as many members as it may have.
    ClanFull = "clan_full",
    /// 409: the caller and the player are friends already.
    AlreadyFriends = "already_friends",
    /// 409: the caller asked the player to be friends already.
    AlreadyRequested = "already_requested",
    /// 409: the caller blocked the player: it must unblock them first.
    PlayerBlocked = "player_blocked",
    /// 409: the caller blocked the player already.
    AlreadyBlocked = "already_blocked",
    /// 409: the caller or the player has as many friends as it may.
    FriendsFull = "friends_full",
    /// 409: the caller has as many unanswered friend requests out as it may.
    FriendRequestsFull = "friend_requests_full",
    /// 409: the tournament is not open yet.
    TournamentNotOpen = "tournament_not_open",
    /// 409: the tournament's time is over.
    TournamentEnded = "tournament_ended",
    /// 409: an operator closed the tournament.
    TournamentClosed = "tournament_closed",
    /// 409: every place of the tournament is taken.
    TournamentFull = "tournament_full",
    /// 409: the account has joined the tournament already.
    AlreadyJoined = "already_joined",
    /// 409: another tournament has the code.
    TournamentCodeTaken = "tournament_code_taken",
    /// 409: the tournament has opened: its mode, opening and whitelist rule no longer change.
    TournamentStarted = "tournament_started",
    /// 400: the content file does not pass the content check; the message names the line.
    InvalidContent = "invalid_content",
    /// 409: there is no published content version before the newest to roll back to.
    NoEarlierContent = "no_earlier_content",
    /// 409: the published version to roll back to does not load with this version of Safezone.
    ContentUnreadable = "content_unreadable",
    /// 404: no content version has this number.
    UnknownContentVersion = "unknown_content_version",
    /// 409: the version to roll back to has the content served now.
    ContentAlreadyServed = "content_already_served",
    /// 404: no webhook delivery attempt has this id (or the delivery log's retention deleted
    /// it).
    UnknownWebhookDelivery = "unknown_webhook_delivery",
    /// 409: the webhook delivery attempt is not a dead letter: its batch was delivered, or is
    /// tried again.
    NotDeadLetter = "not_dead_letter",
    /// 409: some of the dead letter's events are no longer stored (the events' retention), or
    /// it was logged before its relay positions were: it cannot be replayed.
    DeadLetterExpired = "dead_letter_expired",
    /// 409: a replay of the dead letter is pending already.
    ReplayPending = "replay_pending",
    /// 409: this node sends events to no webhook at the dead letter's URL.
    WebhookNotConfigured = "webhook_not_configured",
    /// 410: the endpoint is obsolete and answers no more; the message says what to use.
    Gone = "gone",
    /// 429: a rate limit of this node is spent (`Retry-After` says when to ask again).
    RateLimited = "rate_limited",
    /// 429: the account has as many realtime channels open on this node as it may; close one
    /// first.
    TooManyChannels = "too_many_channels",
    /// 500: a bug or an unexpected failure; the detail is logged, never sent.
    InternalError = "internal_error",
    /// 501: the operator has not configured what the endpoint needs.
    NotConfigured = "not_configured",
    /// 502: the chat platform cannot be reached or gave no user.
    ChatUnavailable = "chat_unavailable",
    /// 502: the store's receipt verifier cannot be reached or answered no verdict.
    StoreUnavailable = "store_unavailable",
    /// 503: the database does not answer.
    DatabaseUnavailable = "database_unavailable",
    /// 503: this node is still loading its leaderboards (`Retry-After` says when to ask
    /// again).
    LeaderboardsLoading = "leaderboards_loading",
    /// 403, 409 or 429: a studio's hook refused the change. The body carries the studio's own
    /// code (`daily_limit`) in place of this one, which stands for all of them here.
    StudioRejection = "studio_rejection",
    /// 503: the request took longer than the configured time.
    Timeout = "timeout",
    /// 503: this node has as many requests in flight as it takes (`Retry-After: 1`).
    Overloaded = "overloaded",
}

impl Serialize for ErrorCode {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// A string that is one of [`ErrorCode::ALL`].
impl PartialSchema for ErrorCode {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .description(Some(
                "A stable machine-readable error code; each operation's responses say which \
                 codes it answers",
            ))
            .enum_values(Some(Self::ALL.iter().map(|code| code.as_str())))
            .into()
    }
}

impl ToSchema for ErrorCode {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("ErrorCode")
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    /// `AlreadyVoted` as `already_voted`.
    fn snake_case(name: &str) -> String {
        let mut snake = String::new();
        for c in name.chars() {
            if c.is_ascii_uppercase() && !snake.is_empty() {
                snake.push('_');
            }
            snake.push(c.to_ascii_lowercase());
        }
        snake
    }

    #[test]
    fn every_code_is_unique_snake_case_and_named_after_its_variant() {
        let mut seen = HashSet::new();
        for code in ErrorCode::ALL {
            let wire = code.as_str();
            assert!(seen.insert(wire), "`{wire}` is listed twice");
            assert!(
                wire.split('_')
                    .all(|word| !word.is_empty()
                        && word.bytes().all(|byte| byte.is_ascii_lowercase())),
                "`{wire}` is not snake_case"
            );
            assert_eq!(wire, snake_case(&format!("{code:?}")), "{code:?}");
        }
    }

    #[test]
    fn the_list_round_trips_through_the_body_and_the_schema() {
        let serialized: Vec<serde_json::Value> = ErrorCode::ALL
            .iter()
            .map(|code| serde_json::to_value(code).expect("a code serializes"))
            .collect();
        let wire: Vec<serde_json::Value> = ErrorCode::ALL
            .iter()
            .map(|code| code.as_str().into())
            .collect();
        assert_eq!(serialized, wire);
        let schema = serde_json::to_value(ErrorCode::schema()).expect("the schema serializes");
        assert_eq!(schema["enum"], serde_json::Value::Array(wire));
    }
}
