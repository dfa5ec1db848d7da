//! Clans (obsolete in the spec, still served): `GET /api/clan/available`, `POST
//! /api/clan/create`, `POST /api/clan/{clanId}/invite`, `POST /api/clan/{clanId}/join`, `POST
//! /api/clan/{clanId}/leave`.
//!
//! A clan has a unique tag of exactly three ASCII letters (compared regardless of letter case),
//! a name and an optional description. An account is a member of one clan at most; its creator
//! is its first member. Clans are joined by invitation only (members invite); the last member
//! leaving dissolves the clan, and the leader leaving hands it to the longest-standing member.

use serde::Serialize;
use utoipa::ToSchema;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::Schema;

use super::shared::community::banned;
use super::shared::session::{self, Session};
use super::views::{ApiUser, ClanView};
use crate::App;
use crate::domain::check_shown_text;
use crate::http::params::{ParamValue, PositiveId, WholeNumber, parameters, text_schema};
use crate::http::{ApiError, ErrorCode, Incoming, Reply};
use crate::openapi::{
    Done, ErrorBody, KeyMismatch, PresentedUserKeyInvalid, Success, UserKeyRequired,
};
use crate::store::{AccountId, Clan, ClanId, ClanLeft, ClanRefusal, NewClan};

/// The most members a new clan may have.
const CLAN_MEMBERS_MAX: i64 = 50;
/// The fewest characters of a clan's name.
const NAME_MIN_CHARS: usize = 3;
/// The most characters of a clan's name.
const NAME_MAX_CHARS: usize = 32;
/// The most characters of a clan's description.
const DESCRIPTION_MAX_CHARS: usize = 200;
/// The most clans `GET /api/clan/available` lists without a key.
const AVAILABLE_MAX: i64 = 100;
/// `{status, clans}`.
#[derive(Serialize, ToSchema)]
struct ClansAnswer<'a> {
    /// With a key, the caller's clan (first) and the clans that invited it; without one, the
    /// largest clans.
    clans: Vec<ClanView<'a>>,
}

/// `{status, clan, user}` (create, join) or `{status, user}` (leave).
#[derive(Serialize, ToSchema)]
struct MembershipAnswer<'a> {
    /// The clan the caller is a member of now (left out after leaving).
    #[serde(skip_serializing_if = "Option::is_none")]
    clan: Option<ClanView<'a>>,
    /// The caller's account.
    user: ApiUser<'a>,
}

/// `GET /api/clan/available` (key optional): with a key, the caller's clan (first) and the
/// clans that invited the caller, which it may join; without one, the largest clans (at most
/// 100), most members first.
#[utoipa::path(
    get,
    path = "/api/clan/available",
    tag = "clans",
    operation_id = "availableClans",
    description = "With a key, the caller's clan (first) and the clans that invited the \
        caller, which it may join; without one, the largest clans (at most 100), most members \
        first.",
    responses(
        (status = 200, description = "The clans", body = Success<ClansAnswer>),
        (status = 401, response = PresentedUserKeyInvalid),
        (status = 403, response = KeyMismatch),
    )
)]
pub(super) async fn available(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    let session = session::optional(&app, &incoming).await?;
    let account = session.map(|session| session.account.id);
    let clans = app.store.clans_available(account, AVAILABLE_MAX).await?;
    Ok(Reply::success(&ClansAnswer {
        clans: clans.iter().map(ClanView::new).collect(),
    }))
}

/// `POST /api/clan/create?tag=&name=&description=` (key required): creates a clan with the
/// caller as its first member; `{status, clan, user}`.
#[utoipa::path(
    post,
    path = "/api/clan/create",
    tag = "clans",
    operation_id = "createClan",
    description = "Creates a clan with the caller as its first member.",
    params(CreateParams),
    responses(
        (status = 200, description = "The new clan and the caller's account", body = Success<MembershipAnswer>),
        (status = 400, description = "A missing or invalid `tag`, `name` or `description` \
            (`missing_parameter`, `invalid_parameter`)", body = ErrorBody),
        (status = 401, response = UserKeyRequired),
        (status = 403, description = "The account is banned from clans (`account_banned`), or \
            keys of two accounts (`key_mismatch`)", body = ErrorBody),
        (status = 409, description = "The tag is taken (`clan_tag_taken`), or the caller is in \
            a clan already (`already_in_clan`)", body = ErrorBody),
    )
)]
pub(super) async fn create(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    let session = session::required(&app, &incoming).await?;
    let CreateParams {
        tag: ClanTag(tag),
        name: ClanName(name),
        description,
    } = CreateParams::read(&incoming)?;
    let new = NewClan {
        creator: session.account.id,
        tag: tag.clone(),
        name,
        description: description.map(|ClanDescription(text)| text),
        max_members: CLAN_MEMBERS_MAX,
        now: app.clock.now(),
    };
    let clan = app
        .store
        .create_clan(new)
        .await?
        .map_err(|refusal| refused(refusal, Context::Create { tag: &tag }))?;
    membership(&app, &session, Some(&clan)).await
}

/// `POST /api/clan/{clanId}/invite?userId=` (key required): a member invites another account
/// (by its id) to the clan; `{status}`.
#[utoipa::path(
    post,
    path = "/api/clan/{clanId}/invite",
    tag = "clans",
    operation_id = "inviteToClan",
    description = "A member invites another account (by its id) to the clan.",
    params(InviteParams),
    responses(
        (status = 200, description = "The invitation was recorded", body = Done),
        (status = 400, description = "A missing or invalid `clanId` or `userId`, or `userId` \
            names the caller (`missing_parameter`, `invalid_parameter`)", body = ErrorBody),
        (status = 401, response = UserKeyRequired),
        (status = 403, description = "The caller is banned from clans (`account_banned`) or \
            not a member of the clan (`not_a_member`), the player blocked the caller \
            (`blocked`), or keys of two accounts (`key_mismatch`)", body = ErrorBody),
        (status = 404, description = "No such clan (`unknown_clan`) or account \
            (`unknown_user`)", body = ErrorBody),
        (status = 409, description = "The account is invited already (`already_invited`) or a \
            member already (`already_member`)", body = ErrorBody),
    )
)]
pub(super) async fn invite(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    let session = session::required(&app, &incoming).await?;
    let InviteParams { clan, invitee } = InviteParams::read(&incoming)?;
    let (clan, invitee) = (ClanId(clan.0), AccountId(invitee.0));
    if invitee == session.account.id {
        return Err(ApiError::invalid(
            "userId",
            "names the caller: invite another player",
        ));
    }
    app.store
        .invite_to_clan(clan, session.account.id, invitee, app.clock.now())
        .await?
        .map_err(|refusal| refused(refusal, Context::Invite { clan, invitee }))?;
    Ok(Reply::done())
}

/// `POST /api/clan/{clanId}/join` (key required): joins a clan that invited the caller;
/// `{status, clan, user}`.
#[utoipa::path(
    post,
    path = "/api/clan/{clanId}/join",
    tag = "clans",
    operation_id = "joinClan",
    description = "Joins a clan that invited the caller.",
    params(ClanPath),
    responses(
        (status = 200, description = "The clan and the caller's account", body = Success<MembershipAnswer>),
        (status = 400, description = "An invalid `clanId` (`invalid_parameter`)", body = ErrorBody),
        (status = 401, response = UserKeyRequired),
        (status = 403, description = "The caller is banned from clans (`account_banned`) or \
            not invited (`not_invited`), or keys of two accounts (`key_mismatch`)", body = ErrorBody),
        (status = 404, description = "No such clan (`unknown_clan`)", body = ErrorBody),
        (status = 409, description = "The caller is in a clan already (`already_in_clan`), or \
            the clan is full (`clan_full`)", body = ErrorBody),
    )
)]
pub(super) async fn join(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    let session = session::required(&app, &incoming).await?;
    let clan = ClanId(ClanPath::read(&incoming)?.clan.0);
    let joined = app
        .store
        .join_clan(clan, session.account.id, app.clock.now())
        .await?
        .map_err(|refusal| refused(refusal, Context::Member { clan }))?;
    membership(&app, &session, Some(&joined)).await
}

/// `POST /api/clan/{clanId}/leave` (key required): leaves the clan (dissolving it when the
/// caller was the last member); `{status, user}`.
#[utoipa::path(
    post,
    path = "/api/clan/{clanId}/leave",
    tag = "clans",
    operation_id = "leaveClan",
    description = "Leaves the clan, dissolving it when the caller was its last member and \
        handing it to the longest-standing member when the caller led it.",
    params(ClanPath),
    responses(
        (status = 200, description = "The caller's account (no `clan`)", body = Success<MembershipAnswer>),
        (status = 400, description = "An invalid `clanId` (`invalid_parameter`)", body = ErrorBody),
        (status = 401, response = UserKeyRequired),
        (status = 403, description = "The caller is banned from clans (`account_banned`) or \
            not a member of the clan (`not_a_member`), or keys of two accounts \
            (`key_mismatch`)", body = ErrorBody),
        (status = 404, description = "No such clan (`unknown_clan`)", body = ErrorBody),
    )
)]
pub(super) async fn leave(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    let session = session::required(&app, &incoming).await?;
    let clan = ClanId(ClanPath::read(&incoming)?.clan.0);
    // Leaving and dissolving answer alike: the caller is in no clan now.
    let _: ClanLeft = app
        .store
        .leave_clan(clan, session.account.id, app.clock.now())
        .await?
        .map_err(|refusal| refused(refusal, Context::Member { clan }))?;
    membership(&app, &session, None).await
}

/// The answer after a membership change: the clan, if any, and the caller's account.
async fn membership(app: &App, session: &Session, clan: Option<&Clan>) -> Result<Reply, ApiError> {
    let published = app.content.current();
    let holdings = app.store.holdings(session.account.id).await?;
    Ok(Reply::success(&MembershipAnswer {
        clan: clan.map(ClanView::new),
        user: ApiUser::new(
            &published.content,
            &session.account,
            &holdings,
            clan,
            &session.key,
            session.expires,
        ),
    }))
}

/// A clan's tag: exactly three ASCII letters.
struct ClanTag(String);

impl ParamValue for ClanTag {
    fn from_param(text: &str) -> Result<Self, String> {
        if text.len() == 3 && text.bytes().all(|byte| byte.is_ascii_alphabetic()) {
            Ok(Self(text.to_owned()))
        } else {
            Err("must be exactly 3 letters from A to Z".to_owned())
        }
    }

    fn param_schema() -> RefOr<Schema> {
        text_schema().pattern(Some("^[A-Za-z]{3}$")).into()
    }
}

/// A clan's name: 3 to 32 characters, not blank, nothing [`check_shown_text`] refuses.
struct ClanName(String);

impl ParamValue for ClanName {
    fn from_param(text: &str) -> Result<Self, String> {
        let chars = text.chars().count();
        if text.trim().is_empty() || !(NAME_MIN_CHARS..=NAME_MAX_CHARS).contains(&chars) {
            return Err(format!(
                "must be {NAME_MIN_CHARS} to {NAME_MAX_CHARS} characters long"
            ));
        }
        check_shown_text(text).map_err(|hidden| hidden.to_string())?;
        Ok(Self(text.to_owned()))
    }

    fn param_schema() -> RefOr<Schema> {
        text_schema()
            .min_length(Some(NAME_MIN_CHARS))
            .max_length(Some(NAME_MAX_CHARS))
            .pattern(Some(
                "^[^\\u0000-\\u001F\\u007F-\\u009F]*[^\\s\\u0000-\\u001F\\u007F-\\u009F][^\\u0000-\\u001F\\u007F-\\u009F]*$",
            ))
            .into()
    }
}

/// A clan's description: at most 200 characters, nothing [`check_shown_text`] refuses.
struct ClanDescription(String);

impl ParamValue for ClanDescription {
    fn from_param(text: &str) -> Result<Self, String> {
        if text.chars().count() > DESCRIPTION_MAX_CHARS {
            return Err(format!(
                "must be at most {DESCRIPTION_MAX_CHARS} characters long"
            ));
        }
        check_shown_text(text).map_err(|hidden| hidden.to_string())?;
        Ok(Self(text.to_owned()))
    }

    fn param_schema() -> RefOr<Schema> {
        text_schema()
            .max_length(Some(DESCRIPTION_MAX_CHARS))
            .pattern(Some("^[^\\u0000-\\u001F\\u007F-\\u009F]*$"))
            .into()
    }
}

parameters! {
    /// The parameters of `POST /api/clan/create`.
    struct CreateParams {
        /// Exactly three letters, unique regardless of letter case
        tag: ClanTag = Query "tag",
        /// 3 to 32 characters, not blank, no control, format or invisible characters
        name: ClanName = Query "name",
        /// At most 200 characters, no control, format or invisible characters; empty counts
        /// as none
        description: Option<ClanDescription> = Query "description",
    }
}

parameters! {
    /// The clan of the path.
    struct ClanPath {
        /// The clan
        clan: PositiveId = Path "clanId",
    }
}

parameters! {
    /// The parameters of `POST /api/clan/{clanId}/invite`.
    struct InviteParams {
        /// The clan
        clan: PositiveId = Path "clanId",
        /// The account invited (not the caller)
        invitee: WholeNumber<1, { i64::MAX }> = Query "userId",
    }
}

/// What the refused request was about, for its message.
#[derive(Clone, Copy)]
enum Context<'a> {
    Create { tag: &'a str },
    Invite { clan: ClanId, invitee: AccountId },
    Member { clan: ClanId },
}

impl Context<'_> {
    fn clan(self) -> String {
        match self {
            Self::Create { tag } => format!("clan [{tag}]"),
            Self::Invite { clan, .. } | Self::Member { clan } => format!("clan {}", clan.0),
        }
    }
}

/// A refusal as the error the client sees.
fn refused(refusal: ClanRefusal, context: Context<'_>) -> ApiError {
    let clan = context.clan();
    let conflict = |code, message: String| ApiError::Conflict { code, message };
    match refusal {
        ClanRefusal::NoAccount => ApiError::InvalidUserKey,
        ClanRefusal::Banned => banned("clans"),
        ClanRefusal::UnknownClan => ApiError::NotFound {
            code: ErrorCode::UnknownClan,
            message: format!("there is no {clan}"),
        },
        ClanRefusal::TagTaken => conflict(
            ErrorCode::ClanTagTaken,
            match context {
                Context::Create { tag } => format!(
                    "the tag `{tag}` is taken by another clan (tags are compared regardless of \
                     letter case)"
                ),
                _ => "the tag is taken by another clan".to_owned(),
            },
        ),
        ClanRefusal::AlreadyInClan => conflict(
            ErrorCode::AlreadyInClan,
            "this account is a member of a clan already; leave it first".to_owned(),
        ),
        ClanRefusal::NotMember => ApiError::Forbidden {
            code: ErrorCode::NotAMember,
            message: format!("this account is not a member of {clan}"),
        },
        ClanRefusal::UnknownUser => ApiError::NotFound {
            code: ErrorCode::UnknownUser,
            message: match context {
                Context::Invite { invitee, .. } => format!("there is no account {}", invitee.0),
                _ => "there is no such account".to_owned(),
            },
        },
        ClanRefusal::Blocked => ApiError::Forbidden {
            code: ErrorCode::Blocked,
            message: "this player blocked you: you may not invite them".to_owned(),
        },
        ClanRefusal::AlreadyInvited => conflict(
            ErrorCode::AlreadyInvited,
            format!("this player is already invited to {clan}"),
        ),
        ClanRefusal::AlreadyMember => conflict(
            ErrorCode::AlreadyMember,
            format!("this player is already a member of {clan}"),
        ),
        ClanRefusal::NotInvited => ApiError::Forbidden {
            code: ErrorCode::NotInvited,
            message: format!("this account is not invited to {clan}; a member must invite it"),
        },
        ClanRefusal::Full => conflict(
            ErrorCode::ClanFull,
            format!("{clan} has as many members as it may have"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_documented_limits_are_the_checked_ones() {
        let document =
            serde_json::to_value(crate::api::document()).expect("the document serializes");
        let parameters = document["paths"]["/api/clan/create"]["post"]["parameters"]
            .as_array()
            .expect("parameters")
            .clone();
        let schema_of = |name: &str| {
            parameters
                .iter()
                .find(|parameter| parameter["name"] == name)
                .map(|parameter| parameter["schema"].clone())
                .expect("documented parameter")
        };
        assert_eq!(schema_of("name")["minLength"], NAME_MIN_CHARS);
        assert_eq!(schema_of("name")["maxLength"], NAME_MAX_CHARS);
        assert_eq!(schema_of("description")["maxLength"], DESCRIPTION_MAX_CHARS);
    }
}
