//! `POST /api/validate/device/{deviceId}`: device sign-in for the iOS and Android apps.

use serde::Serialize;
use sha2::{Digest, Sha256};

use super::params;
use super::user_view::ApiUser;
use crate::App;
use crate::domain::{DeviceId, FriendCode, UserKey, player_names};
use crate::http::{ApiError, Incoming, Reply};
use crate::store::NewSignIn;

/// The provider name of device accounts.
const DEVICE_PROVIDER: &str = "device";
/// Friend codes offered to a new account before giving up.
const FRIEND_CODE_TRIES: usize = 24;

#[derive(Serialize)]
struct SignInAnswer<'a> {
    user: ApiUser<'a>,
    #[serde(rename = "firstLogin")]
    first_login: bool,
}

/// Creates the device's account on first use and signs in after; answers a fresh key.
///
/// The platform is told by the `platform` parameter or, without it, by the device id's
/// `{platform}-` prefix; it must be `android` or `ios` (403 `platform_not_allowed` otherwise,
/// 400 when neither tells). The device id is a long-lived credential, so only its SHA-256 is
/// stored, as the account's `identifier`.
pub(super) async fn sign_in(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    let device = DeviceId::parse(incoming.path("deviceId")?)
        .map_err(|reason| ApiError::invalid("deviceId", reason))?;
    let platform = match params::platform(&incoming.query)? {
        Some(platform) => platform,
        None => device.platform().ok_or_else(|| {
            ApiError::invalid(
                "deviceId",
                "must start with its platform (`android-` or `ios-`), or send `platform`",
            )
        })?,
    };
    if !platform.allows_device_accounts() {
        return Err(ApiError::Forbidden {
            code: "platform_not_allowed",
            message: format!(
                "device accounts are usable only from the iOS and Android apps, not from {platform}"
            ),
        });
    }
    let name = player_names::generate();
    let key = UserKey::generate();
    let now = app.clock.now();
    let key_expires = now + app.settings.key_lifetime;
    let friend_code_candidates =
        FriendCode::random_candidates(&name, FRIEND_CODE_TRIES).map_err(|error| {
            ApiError::Internal {
                detail: format!("generated name {name} is not a friend-code name: {error}"),
            }
        })?;
    let signed_in = app
        .store
        .sign_in(NewSignIn {
            provider: DEVICE_PROVIDER.to_owned(),
            identifier: hex::encode(Sha256::digest(device.as_str().as_bytes())),
            name: Some(name),
            avatar: None,
            email: None,
            friend_code_candidates,
            key_hash: key.hash(),
            key_expires,
            now,
        })
        .await?;
    let holdings = app.store.holdings(signed_in.account.id).await?;
    Ok(Reply::success(&SignInAnswer {
        user: ApiUser::new(&signed_in.account, &holdings, &key, key_expires),
        first_login: signed_in.first_login,
    }))
}
