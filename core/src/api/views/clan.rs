//! A clan as the wire contract shapes it, in the clan endpoints, the account and the profile.

use serde::Serialize;
use utoipa::ToSchema;

use crate::store::Clan;

/// Every clan's `privacy`: joining takes an invitation.
const PRIVACY: &str = "invite_only";

/// A clan as the wire contract shapes it: `{id, creator_id, tag, name, description, privacy,
/// region, total_members, max_members, members: [{id, friend_code, name, avatar, status}],
/// messages: []}`.
#[derive(Serialize, ToSchema)]
pub(crate) struct ClanView<'a> {
    id: i64,
    creator_id: i64,
    tag: &'a str,
    name: &'a str,
    description: Option<&'a str>,
    privacy: &'static str,
    region: Option<&'static str>,
    total_members: usize,
    max_members: i64,
    members: Vec<MemberView<'a>>,
    #[schema(value_type = Vec<Object>, max_items = 0)]
    messages: [(); 0],
}

/// A member: the public fields of the account.
#[derive(Serialize, ToSchema)]
struct MemberView<'a> {
    id: i64,
    friend_code: String,
    /// The player's name: its friend code's, as on the leaderboards.
    name: &'a str,
    avatar: Option<&'a str>,
    status: &'a str,
}

impl<'a> ClanView<'a> {
    /// The clan in the wire contract's shape.
    pub(crate) fn new(clan: &'a Clan) -> Self {
        Self {
            id: clan.id.0,
            creator_id: clan.creator.0,
            tag: &clan.tag,
            name: &clan.name,
            description: clan.description.as_deref(),
            privacy: PRIVACY,
            region: None,
            total_members: clan.members.len(),
            max_members: clan.max_members,
            members: clan
                .members
                .iter()
                .map(|member| MemberView {
                    id: member.account.0,
                    friend_code: member.friend_code.to_string(),
                    name: member.friend_code.name(),
                    avatar: member.avatar.as_deref(),
                    status: &member.status,
                })
                .collect(),
            messages: [],
        }
    }
}
