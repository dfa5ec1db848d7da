//! The paths of sign-in, configuration, health, accounts and the economy.

use utoipa::OpenApi;
use utoipa::openapi::path::HttpMethod;

use super::aliases::Aliases;

use crate::api::{
    account, buy, chat, config, deprecated, device, friend_code, health, login, metrics, openapi,
    packs, receipts, rewards, shop,
};

/// The account side of the API.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "Safezone",
        description = "The Safezone game backend's REST API. Every JSON answer is an envelope: \
            `{\"status\":\"success\", ...}` or `{\"status\":\"error\",\"code\":...,\"message\":...}`."
    ),
    paths(
        health::check,
        openapi::document,
        metrics::ignore,
        metrics::accept,
        config::client_config,
        device::sign_in,
        chat::validate,
        login::login,
        login::validate,
        account::logout,
        account::check_key,
        account::get_user,
        account::clear_sessions,
        account::delete_account,
        deprecated::idpthree,
        deprecated::gamenet,
        deprecated::idpone,
        deprecated::idptwo,
        shop::available,
        receipts::chat,
        buy::buy,
        packs::open,
        rewards::list,
        rewards::claim,
        friend_code::update,
    ),
    modifiers(&ALIASES),
    tags(
        (name = "health", description = "Health and this document"),
        (name = "metrics", description = "Client metrics (no effect)"),
        (name = "config", description = "The client configuration"),
        (name = "sign-in", description = "Devices, identity providers, the chat platform"),
        (name = "account", description = "The caller's account and keys"),
        (name = "shop", description = "The shop, purchases, packs and receipts"),
        (name = "rewards", description = "Claimable rewards"),
    )
)]
pub(super) struct AccountApi;

/// Every alias of the routing table on this side of the API: the engine store's receipts are
/// handled like the chat platform's.
pub(super) const ALIASES: Aliases = Aliases(&[(
    "/api/shop/chat/handle",
    HttpMethod::Post,
    "/api/shop/engine/handle",
    HttpMethod::Post,
    "engineReceipt",
)]);
