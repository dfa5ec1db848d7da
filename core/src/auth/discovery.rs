//! OpenID Connect discovery, kept for a while: a provider's endpoints and signing keys are
//! fetched once per [`DISCOVERY_LIFETIME`], not at every login and validate.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use openidconnect::IssuerUrl;
use openidconnect::core::CoreProviderMetadata;
use tokio::sync::Mutex;

use super::ProviderError;

/// How long discovered metadata is used before it is fetched again (so rotated keys are seen
/// within this time).
pub const DISCOVERY_LIFETIME: Duration = Duration::from_secs(300);

/// Discovered metadata by issuer, shared by every clone.
#[derive(Debug, Clone, Default)]
pub struct DiscoveryCache(Arc<Mutex<HashMap<String, (Instant, CoreProviderMetadata)>>>);

impl DiscoveryCache {
    /// The metadata of `issuer`: kept if fetched less than [`DISCOVERY_LIFETIME`] ago,
    /// otherwise fetched now. A failed fetch is not kept.
    pub async fn metadata(
        &self,
        http: &reqwest::Client,
        issuer: &str,
    ) -> Result<CoreProviderMetadata, ProviderError> {
        if let Some((fetched, metadata)) = self.0.lock().await.get(issuer)
            && fetched.elapsed() < DISCOVERY_LIFETIME
        {
            return Ok(metadata.clone());
        }
        let url = IssuerUrl::new(issuer.to_owned())
            .map_err(|error| ProviderError::Unreachable(error.to_string()))?;
        let metadata = CoreProviderMetadata::discover_async(url, http)
            .await
            .map_err(|error| ProviderError::Unreachable(error.to_string()))?;
        self.0
            .lock()
            .await
            .insert(issuer.to_owned(), (Instant::now(), metadata.clone()));
        Ok(metadata)
    }
}
