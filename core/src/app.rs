//! The application's state, which every handler, the operator API and the background work
//! reach: the store, the content, the settings, the clock, the boards and the node's limits.

use std::sync::Arc;

use crate::auth::{Auth, RecentCallers, SessionCache, UserKeys};
use crate::clock::Clock;
use crate::domain::UserKey;
use crate::hooks::Hooks;
use crate::http::{KeyAccounts, RateLimiter, RouterState};
use crate::leaderboard::Leaderboards;
use crate::live_content::LiveContent;
use crate::metrics::Metrics;
use crate::realtime::hub::Hub;
use crate::settings::Settings;
use crate::store::{AccountId, Store, StoreError};

/// What every handler can reach: the store, the content, the settings and the clock.
pub struct AppState {
    /// Where accounts and everything else are kept.
    pub store: Arc<dyn Store>,
    /// The catalog, rules and client configuration served now (swapped when an operator
    /// publishes new content).
    pub content: Arc<LiveContent>,
    /// Lifetimes and limits.
    pub settings: Settings,
    /// The source of "now".
    pub clock: Arc<dyn Clock>,
    /// Identity providers, the chat platform and receipt verifiers.
    pub auth: Auth,
    /// This node's live leaderboards.
    pub leaderboards: Arc<Leaderboards>,
    /// Keys resolved a moment ago, for the leaderboards' callers and the rate limits.
    pub recent_callers: RecentCallers,
    /// The signer of this node's user keys.
    pub user_keys: UserKeys,
    /// The sessions and account views this node keeps in memory.
    pub sessions: SessionCache,
    /// This service's metrics.
    pub metrics: Arc<Metrics>,
    /// This node's rate limits at work.
    pub rate_limiter: Arc<RateLimiter>,
    /// This node's realtime channels.
    pub(crate) realtime: Hub,
    /// The studio's hooks over changes of money and holdings.
    pub hooks: Hooks,
}

/// Shared handle to the application state.
pub type App = Arc<AppState>;

impl KeyAccounts for AppState {
    /// From `recent_callers` at the clock's now, or else the store's session, which is then
    /// remembered there.
    async fn key_account(&self, key: &UserKey) -> Result<Option<AccountId>, StoreError> {
        let now = self.clock.now();
        let hash = key.hash();
        if let Some(account) = self.recent_callers.account(&hash, now) {
            return Ok(Some(account));
        }
        let lookup = self.user_keys.lookup(self.store.as_ref(), key).await?;
        let Some(session) = self
            .sessions
            .session(self.store.as_ref(), &lookup, now)
            .await?
        else {
            return Ok(None);
        };
        self.recent_callers
            .remember(hash, session.account.id, session.expires, now);
        Ok(Some(session.account.id))
    }
}

impl RouterState for App {
    type Accounts = AppState;

    fn settings(&self) -> &Settings {
        &self.settings
    }

    fn rate_limiter(&self) -> &RateLimiter {
        &self.rate_limiter
    }

    fn key_accounts(&self) -> &AppState {
        self
    }
}
