//! Signing in through others: identity providers (OpenID Connect and plain OAuth2), the chat
//! platform's bearer tokens, and the stores' in-app purchase receipt verifiers, all configured
//! in the auth file ([`AuthConfig`]); the keys resolved a moment ago ([`RecentCallers`]); the
//! sessions kept in memory ([`SessionCache`]); and the signing of user keys ([`UserKeys`]).

mod config;
mod discovery;
mod login_state;
mod providers;
mod recent_callers;
mod session_cache;
mod user_info;
mod user_keys;

use std::time::Duration;

pub use config::{
    AuthConfig, AuthConfigError, ChatConfig, ProviderConfig, ReceiptConfig, UserFields,
};
pub use discovery::{DISCOVERY_LIFETIME, DiscoveryCache};
pub use login_state::{LOGIN_STATE_LIFETIME, LoginState, LoginStateError};
pub use providers::{
    Authorization, ProviderError, authorize, current_user, current_user_json, exchange,
};
pub use recent_callers::{REMEMBERED_FOR, RecentCallers};
pub use session_cache::{FRESH_WITHIN, KEPT_FOR, KeptView, SessionCache};
pub use user_info::{ProviderUser, is_truthy, read_user};
pub use user_keys::UserKeys;

/// How long a call to a provider, the chat platform or a verifier may take.
const OUTBOUND_TIMEOUT: Duration = Duration::from_secs(10);

/// The auth configuration with the HTTP client that talks to the outside.
#[derive(Debug, Clone)]
pub struct Auth {
    /// The configuration.
    pub config: AuthConfig,
    /// The client for providers, the chat platform and verifiers: no redirects followed (a
    /// provider must not send Safezone elsewhere), a time limit on every call.
    pub http: reqwest::Client,
    /// OpenID providers' discovered metadata.
    pub discovery: DiscoveryCache,
}

impl Auth {
    /// The runtime for `config`.
    pub fn new(config: AuthConfig) -> Self {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(OUTBOUND_TIMEOUT)
            .build()
            .unwrap_or_default();
        Self {
            config,
            http,
            discovery: DiscoveryCache::default(),
        }
    }

    /// Where `provider` sends the browser back.
    pub fn redirect_uri(&self, provider: &str) -> String {
        format!("{}/user/validate/{provider}", self.config.public_url)
    }
}
