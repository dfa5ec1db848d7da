//! ApiUser: the signed-in account as the wire contract shapes it.

use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

use super::ClanView;
use super::RewardView;
use crate::content::{Content, LevelCurve};
use crate::domain::{ApiDate, IapId, ItemId, PackId, UserKey};
use crate::store::{Account, AccountView, Clan, Holdings};

/// The ApiUser object.
#[derive(Serialize, ToSchema)]
pub(crate) struct ApiUser<'a> {
    id: i64,
    provider: &'a str,
    identifier: &'a str,
    /// The display name the sign-in provider gave, else the friend code's name.
    name: &'a str,
    avatar: Option<&'a str>,
    email: Option<&'a str>,
    #[schema(pattern = "^[0-9A-Za-z]{3,16}#[0-9]{4}$")]
    friend_code: String,
    status: &'a str,
    experience: i64,
    level: i64,
    coins: i64,
    gems: i64,
    created: ApiDate,
    updated: ApiDate,
    #[serde(rename = "keyExpires")]
    key_expires: ApiDate,
    #[schema(pattern = "^[0-9a-f]{48}$")]
    key: &'a str,
    progression: Progression<'a>,
    #[serde(rename = "nextLevelRewards")]
    next_level_rewards: Vec<RewardView<'a>>,
    clans: Vec<ClanView<'a>>,
    licenses: Vec<LicenseView>,
    packs: Vec<PackView>,
    subscriptions: Vec<SubscriptionView>,
    iaps: Vec<IapView>,
}

/// An owned item: `{id, user_id, item_id, quantity}`.
#[derive(Serialize, ToSchema)]
struct LicenseView {
    id: i64,
    user_id: i64,
    item_id: ItemId,
    quantity: i64,
}

/// A subscription: `{id, user_id, iap_id}`.
#[derive(Serialize, ToSchema)]
struct SubscriptionView {
    id: i64,
    user_id: i64,
    iap_id: IapId,
}

/// An in-app purchase: `{id, user_id, iap_id, cost_dollars}`.
#[derive(Serialize, ToSchema)]
struct IapView {
    id: i64,
    user_id: i64,
    iap_id: IapId,
    cost_dollars: f64,
}

/// Unopened packs of one kind: `{id, user_id, pack_id, quantity}`.
#[derive(Serialize, ToSchema)]
struct PackView {
    id: i64,
    user_id: i64,
    pack_id: PackId,
    quantity: i64,
}

/// Progress towards the next level: the experience within the level the account's experience
/// is at and what the next level needs (0 at the last level), the rewards reaching that level
/// gave (each with its `level`), and whether the stored `level` lags behind the experience
/// (every change that gives experience gives its levels too, so only a changed level curve or
/// progress stored by an older version lags; the next change that gives experience catches up).
#[derive(Serialize, ToSchema)]
struct Progression<'a> {
    #[serde(rename = "currentExperience")]
    current_experience: i64,
    #[serde(rename = "requiredExperience")]
    required_experience: i64,
    rewards: Vec<LevelReward<'a>>,
    #[serde(rename = "isStale")]
    is_stale: bool,
}

/// A level's reward: the reward object plus `level`.
#[derive(Serialize, ToSchema)]
struct LevelReward<'a> {
    #[serde(flatten)]
    reward: RewardView<'a>,
    level: i64,
}

impl<'a> Progression<'a> {
    fn new(content: &'a Content, curve: &LevelCurve, account: &Account) -> Self {
        let level = curve.level_for(account.experience);
        Self {
            current_experience: account.experience - curve.total_for(level),
            required_experience: curve.required_for_next(level).unwrap_or(0),
            rewards: curve
                .rewards_for(level)
                .iter()
                .map(|reward| LevelReward {
                    reward: RewardView::promised(&content.catalog, reward),
                    level,
                })
                .collect(),
            is_stale: level != account.level,
        }
    }
}

impl<'a> ApiUser<'a> {
    /// The account of `view` (with its holdings and clan), as seen by the holder of `key`.
    pub(crate) fn of_view(
        content: &'a Content,
        view: &'a AccountView,
        key: &'a UserKey,
        key_expires: OffsetDateTime,
    ) -> Self {
        Self::new(
            content,
            &view.account,
            &view.holdings,
            view.clan.as_ref(),
            key,
            key_expires,
        )
    }

    /// The account, holding `holdings` and a member of `clan` (if any), as seen by the holder of
    /// `key`, which expires at `key_expires`; its level progress by `content`'s level curve.
    pub(crate) fn new(
        content: &'a Content,
        account: &'a Account,
        holdings: &Holdings,
        clan: Option<&'a Clan>,
        key: &'a UserKey,
        key_expires: OffsetDateTime,
    ) -> Self {
        let user_id = account.id.0;
        let curve = &content.progression.levels;
        Self {
            id: account.id.0,
            provider: &account.provider,
            identifier: &account.identifier,
            name: account
                .name
                .as_deref()
                .unwrap_or(account.friend_code.name()),
            avatar: account.avatar.as_deref(),
            email: account.email.as_deref(),
            friend_code: account.friend_code.to_string(),
            status: &account.status,
            experience: account.experience,
            level: account.level,
            coins: account.coins,
            gems: account.gems,
            created: ApiDate(account.created),
            updated: ApiDate(account.updated),
            key_expires: ApiDate(key_expires),
            key: key.as_str(),
            progression: Progression::new(content, curve, account),
            next_level_rewards: RewardView::all_promised(
                &content.catalog,
                &curve.rewards_for(curve.level_for(account.experience) + 1),
            ),
            clans: clan.into_iter().map(ClanView::new).collect(),
            licenses: holdings
                .licenses
                .iter()
                .map(|license| LicenseView {
                    id: license.id,
                    user_id,
                    item_id: license.item,
                    quantity: license.quantity,
                })
                .collect(),
            packs: holdings
                .packs
                .iter()
                .map(|stock| PackView {
                    id: stock.id,
                    user_id,
                    pack_id: stock.pack,
                    quantity: stock.quantity,
                })
                .collect(),
            subscriptions: holdings
                .subscriptions
                .iter()
                .map(|subscription| SubscriptionView {
                    id: subscription.id,
                    user_id,
                    iap_id: subscription.iap,
                })
                .collect(),
            iaps: holdings
                .iaps
                .iter()
                .map(|purchase| IapView {
                    id: purchase.id,
                    user_id,
                    iap_id: purchase.iap,
                    // Cents are at most 10^6, far inside f64's exact integers.
                    #[allow(clippy::cast_precision_loss)]
                    cost_dollars: purchase.cost_cents as f64 / 100.0,
                })
                .collect(),
        }
    }
}
