//! `GET /api/shop/available`: the shop's items, packs, timed deals and in-app purchase products.

use std::collections::HashSet;

use serde::Serialize;
use utoipa::ToSchema;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::Schema;

use super::shared::session;
use super::views::RewardView;
use crate::App;
use crate::content::{Catalog, IapProduct, Item, Occurrence, Pack, Price, Rarity, TimedDeal};
use crate::domain::{ApiDate, DealId, IapId, ItemId, PackId};
use crate::economy::deal_claim_key;
use crate::http::params::{ParamValue, parameters, text_schema};
use crate::http::{ApiError, Incoming, Reply};
use crate::openapi::{ErrorBody, KeyMismatch, PresentedUserKeyInvalid, Success};

/// The sections a client may ask for.
#[derive(Debug, Clone, Copy, Default)]
struct Sections {
    items: bool,
    packs: bool,
    timed_deals: bool,
    iaps: bool,
}

impl Sections {
    const ALL: Self = Self {
        items: true,
        packs: true,
        timed_deals: true,
        iaps: true,
    };

    /// The names the parameter takes.
    const NAMES: [&str; 5] = ["all", "items", "iaps", "packs", "timedDeals"];
}

/// The `sections` parameter: a comma-separated list of `all`, `items`, `iaps`, `packs`,
/// `timedDeals`.
impl ParamValue for Sections {
    fn from_param(value: &str) -> Result<Self, String> {
        let mut sections = Self::default();
        for name in value.split(',') {
            match name.trim() {
                "all" => sections = Self::ALL,
                "items" => sections.items = true,
                "packs" => sections.packs = true,
                "timedDeals" => sections.timed_deals = true,
                "iaps" => sections.iaps = true,
                other => {
                    return Err(format!(
                        "names an unknown section `{other}`: expected a comma-separated list \
                         of {}",
                        Self::NAMES.join(", ")
                    ));
                }
            }
        }
        Ok(sections)
    }

    fn param_schema() -> RefOr<Schema> {
        let one = format!("({})", Self::NAMES.join("|"));
        text_schema()
            .pattern(Some(format!("^({one}(,{one})*)?$")))
            .into()
    }
}

parameters! {
    /// The parameters of `GET /api/shop/available`.
    struct ShopParams {
        /// A comma-separated list of `all`, `items`, `iaps`, `packs`, `timedDeals`; all when
        /// absent or empty
        sections: Option<Sections> = Query "sections",
    }
}

/// The sections asked for, with the items' signature.
#[derive(Serialize, ToSchema)]
struct ShopAnswer<'a> {
    #[serde(rename = "itemsSignature")]
    items_signature: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    items: Option<Vec<ItemView<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    packs: Option<Vec<PackView<'a>>>,
    #[serde(rename = "timedDeals", skip_serializing_if = "Option::is_none")]
    timed_deals: Option<Vec<DealView<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    iaps: Option<Vec<IapView<'a>>>,
}

/// A shop item.
#[derive(Serialize, ToSchema)]
#[schema(as = ShopItem)]
struct ItemView<'a> {
    id: ItemId,
    sku: &'a str,
    name: &'a str,
    /// What it is, the content file's label as written (`outfit`, `OutfitSkin`).
    #[serde(rename = "type")]
    #[schema(min_length = 1, max_length = 32)]
    kind: &'a str,
    /// The collection the shop groups it in, the content file's label as written
    /// (`winter-storm`, `Outfit`).
    #[schema(min_length = 1, max_length = 32)]
    category: &'a str,
    rarity: Rarity,
    cost_coins: i64,
    cost_gems: i64,
    is_stock: bool,
    can_purchase: bool,
    order: i64,
}

/// A pack and its drop table.
#[derive(Serialize, ToSchema)]
#[schema(as = ShopPack)]
struct PackView<'a> {
    id: PackId,
    sku: &'a str,
    name: &'a str,
    cost_coins: i64,
    cost_gems: i64,
    can_purchase: bool,
    rewards: Vec<DropView<'a>>,
}

/// One drop of a pack: an item and its weight.
#[derive(Serialize, ToSchema)]
#[schema(as = ShopDrop)]
struct DropView<'a> {
    id: usize,
    pack_id: PackId,
    item_id: ItemId,
    item_sku: &'a str,
    weighting: u32,
}

/// A timed deal on sale now.
#[derive(Serialize, ToSchema)]
#[schema(as = ShopDeal)]
struct DealView<'a> {
    id: DealId,
    sku: &'a str,
    name: &'a str,
    cost_coins: i64,
    cost_gems: i64,
    undiscounted_cost_coins: i64,
    undiscounted_cost_gems: i64,
    can_purchase: bool,
    rewards: Vec<RewardView<'a>>,
    created: ApiDate,
    expires: ApiDate,
}

/// An in-app purchase product.
#[derive(Serialize, ToSchema)]
#[schema(as = ShopIap)]
struct IapView<'a> {
    id: IapId,
    sku: &'a str,
    name: &'a str,
    #[serde(rename = "type")]
    kind: &'a str,
    apple_id: &'a str,
    google_id: &'a str,
    cost_dollars: f64,
    can_purchase: bool,
    rewards: Vec<RewardView<'a>>,
    quantity: i64,
}

/// What the caller already has that the shop's `can_purchase` depends on.
#[derive(Default)]
struct Owned {
    items: HashSet<ItemId>,
    deals: HashSet<String>,
}

#[utoipa::path(
    get,
    path = "/api/shop/available",
    tag = "shop",
    operation_id = "shopAvailable",
    description = "The shop's items, packs, the timed deals on sale now and in-app purchase products. With a key, `can_purchase` is false for items the caller owns and deals the caller bought.",
    params(ShopParams),
    responses(
        (status = 200, description = "The shop", body = Success<ShopAnswer>),
        (status = 400, description = "An unknown section (`invalid_parameter`)", body = ErrorBody),
        (status = 401, response = PresentedUserKeyInvalid),
        (status = 403, response = KeyMismatch),
    )
)]
/// `GET /api/shop/available?sections=&userKey=`. With a key, `can_purchase` is false for items
/// the caller owns and deals the caller bought (this run of a repeating deal); funds never
/// matter to it. Deals are listed only while a run is on sale (`starts <= now < ends`): one not
/// started yet is neither shown nor sold.
pub(super) async fn available(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    let published = app.content.current();
    let sections = ShopParams::read(&incoming)?
        .sections
        .unwrap_or(Sections::ALL);
    let catalog = &published.content.catalog;
    let now = app.clock.now();
    let open_deals: Vec<(&TimedDeal, Occurrence)> = catalog
        .timed_deals
        .iter()
        .filter_map(|deal| Some((deal, deal.running_at(now)?)))
        .collect();
    let owned = match session::optional(&app, &incoming).await? {
        None => Owned::default(),
        Some(session) => {
            let holdings = app.store.holdings(session.account.id).await?;
            let deal_keys: Vec<String> = open_deals
                .iter()
                .map(|(deal, run)| deal_claim_key(deal.id, run))
                .collect();
            let deals = app.store.claimed(session.account.id, &deal_keys).await?;
            Owned {
                items: holdings
                    .licenses
                    .iter()
                    .map(|license| license.item)
                    .collect(),
                deals: deals.into_iter().collect(),
            }
        }
    };
    Ok(Reply::success(&ShopAnswer {
        items_signature: &catalog.items_signature,
        items: sections.items.then(|| {
            catalog
                .items
                .iter()
                .map(|item| item_view(item, &owned))
                .collect()
        }),
        packs: sections
            .packs
            .then(|| catalog.packs.iter().map(pack_view).collect()),
        timed_deals: sections.timed_deals.then(|| {
            open_deals
                .iter()
                .map(|(deal, run)| {
                    let can_purchase = !owned.deals.contains(&deal_claim_key(deal.id, run));
                    deal_view(catalog, deal, run, can_purchase)
                })
                .collect()
        }),
        iaps: sections.iaps.then(|| {
            catalog
                .iaps
                .iter()
                .map(|iap| iap_view(catalog, iap))
                .collect()
        }),
    }))
}

fn item_view<'a>(item: &'a Item, owned: &Owned) -> ItemView<'a> {
    let Price { coins, gems } = item.price;
    ItemView {
        id: item.id,
        sku: &item.sku,
        name: &item.name,
        kind: &item.kind,
        category: &item.category,
        rarity: item.rarity,
        cost_coins: coins,
        cost_gems: gems,
        is_stock: item.is_stock,
        can_purchase: item.is_for_sale() && !owned.items.contains(&item.id),
        order: item.order,
    }
}

fn pack_view(pack: &Pack) -> PackView<'_> {
    PackView {
        id: pack.id,
        sku: &pack.sku,
        name: &pack.name,
        cost_coins: pack.price.coins,
        cost_gems: pack.price.gems,
        can_purchase: pack.is_for_sale(),
        rewards: pack
            .drops
            .iter()
            .enumerate()
            .map(|(index, drop)| DropView {
                id: index + 1,
                pack_id: pack.id,
                item_id: drop.item,
                item_sku: &drop.item_sku,
                weighting: drop.weight,
            })
            .collect(),
    }
}

fn deal_view<'a>(
    catalog: &'a Catalog,
    deal: &'a TimedDeal,
    run: &Occurrence,
    can_purchase: bool,
) -> DealView<'a> {
    DealView {
        id: deal.id,
        sku: &deal.sku,
        name: &deal.name,
        cost_coins: deal.price.coins,
        cost_gems: deal.price.gems,
        undiscounted_cost_coins: deal.undiscounted.coins,
        undiscounted_cost_gems: deal.undiscounted.gems,
        can_purchase,
        rewards: RewardView::all_promised(catalog, &deal.rewards),
        created: ApiDate(run.starts),
        expires: ApiDate(run.ends),
    }
}

fn iap_view<'a>(catalog: &'a Catalog, iap: &'a IapProduct) -> IapView<'a> {
    IapView {
        id: iap.id,
        sku: &iap.sku,
        name: &iap.name,
        kind: &iap.kind,
        apple_id: &iap.apple_id,
        google_id: &iap.google_id,
        // Cents are at most 10^6, far inside f64's exact integers.
        #[allow(clippy::cast_precision_loss)]
        cost_dollars: iap.cost_cents as f64 / 100.0,
        can_purchase: true,
        rewards: RewardView::all_promised(catalog, &iap.rewards),
        quantity: iap.quantity,
    }
}
