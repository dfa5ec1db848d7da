//! ApiUser: the signed-in account as the wire contract shapes it.

use serde::Serialize;
use time::OffsetDateTime;

use super::clans::ClanView;
use crate::domain::{ApiDate, IapId, ItemId, PackId, UserKey};
use crate::store::{Account, Clan, Holdings};

/// The ApiUser object. The level rewards, which the progression fills, are present and empty.
#[derive(Serialize)]
pub(super) struct ApiUser<'a> {
    id: i64,
    provider: &'a str,
    identifier: &'a str,
    name: Option<&'a str>,
    avatar: Option<&'a str>,
    email: Option<&'a str>,
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
    key: &'a str,
    progression: Progression,
    #[serde(rename = "nextLevelRewards")]
    next_level_rewards: [(); 0],
    clans: Vec<ClanView<'a>>,
    licenses: Vec<LicenseView>,
    packs: Vec<PackView>,
    subscriptions: Vec<SubscriptionView>,
    iaps: Vec<IapView>,
}

/// An owned item: `{id, user_id, item_id, quantity}`.
#[derive(Serialize)]
struct LicenseView {
    id: i64,
    user_id: i64,
    item_id: ItemId,
    quantity: i64,
}

/// A subscription: `{id, user_id, iap_id}`.
#[derive(Serialize)]
struct SubscriptionView {
    id: i64,
    user_id: i64,
    iap_id: IapId,
}

/// An in-app purchase: `{id, user_id, iap_id, cost_dollars}`.
#[derive(Serialize)]
struct IapView {
    id: i64,
    user_id: i64,
    iap_id: IapId,
    cost_dollars: f64,
}

/// Unopened packs of one kind: `{id, user_id, pack_id, quantity}`.
#[derive(Serialize)]
struct PackView {
    id: i64,
    user_id: i64,
    pack_id: PackId,
    quantity: i64,
}

/// Progress towards the next level.
#[derive(Serialize)]
struct Progression {
    #[serde(rename = "currentExperience")]
    current_experience: i64,
    #[serde(rename = "requiredExperience")]
    required_experience: i64,
    rewards: [(); 0],
    #[serde(rename = "isStale")]
    is_stale: bool,
}

impl<'a> ApiUser<'a> {
    /// The account, holding `holdings` and a member of `clan` (if any), as seen by the holder of
    /// `key`, which expires at `key_expires`.
    pub(super) fn new(
        account: &'a Account,
        holdings: &Holdings,
        clan: Option<&'a Clan>,
        key: &'a UserKey,
        key_expires: OffsetDateTime,
    ) -> Self {
        let user_id = account.id.0;
        Self {
            id: account.id.0,
            provider: &account.provider,
            identifier: &account.identifier,
            name: account.name.as_deref(),
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
            progression: Progression {
                current_experience: account.experience,
                required_experience: 0,
                rewards: [],
                is_stale: false,
            },
            next_level_rewards: [],
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
