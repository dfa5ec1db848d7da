//! The records of clans: a clan to create and as stored, its members, and why a clan operation
//! was refused or how leaving ended.

use time::OffsetDateTime;

use super::AccountId;
use crate::domain::FriendCode;

/// The database id of a clan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ClanId(pub i64);

/// A clan to create, with its creator as the first member.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewClan {
    /// The creator.
    pub creator: AccountId,
    /// The tag: three ASCII letters, unique regardless of letter case.
    pub tag: String,
    /// The clan's name.
    pub name: String,
    /// What the clan is about, if the creator said.
    pub description: Option<String>,
    /// The most members it may have.
    pub max_members: i64,
    /// When.
    pub now: OffsetDateTime,
}

/// A stored clan with its members.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clan {
    /// Its id.
    pub id: ClanId,
    /// Who leads it: the creator, or the longest-standing member after the creator left.
    pub creator: AccountId,
    /// The tag.
    pub tag: String,
    /// The name.
    pub name: String,
    /// The description, if any.
    pub description: Option<String>,
    /// The most members it may have.
    pub max_members: i64,
    /// The members, longest-standing first.
    pub members: Vec<ClanMember>,
    /// When it was created.
    pub created: OffsetDateTime,
}

/// A member of a clan, with the public fields of the account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClanMember {
    /// The account.
    pub account: AccountId,
    /// Its friend code, whose name is the member's name.
    pub friend_code: FriendCode,
    /// Its avatar address.
    pub avatar: Option<String>,
    /// Its presence.
    pub status: String,
}

/// Why a clan operation was refused; nothing changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClanRefusal {
    /// The calling account does not exist (any more).
    NoAccount,
    /// An operator banned the calling account.
    Banned,
    /// There is no such clan.
    UnknownClan,
    /// Another clan has this tag (in any letter case).
    TagTaken,
    /// The account is a member of a clan already (one clan per account).
    AlreadyInClan,
    /// The calling account is not a member of the clan.
    NotMember,
    /// The invited account does not exist.
    UnknownUser,
    /// The invited account blocked the inviting one.
    Blocked,
    /// The invited account is invited to this clan already.
    AlreadyInvited,
    /// The invited account is a member of this clan already.
    AlreadyMember,
    /// The account was not invited to the clan.
    NotInvited,
    /// The clan has its most members.
    Full,
}

/// How leaving a clan ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClanLeft {
    /// The account left; the clan goes on (led by the longest-standing member if the leader
    /// left).
    Left,
    /// The account was the last member: the clan is dissolved.
    Dissolved,
}
