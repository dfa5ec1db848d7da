//! The client configuration part of the content file.

use std::collections::HashMap;

use serde::Deserialize;
use toml::Spanned;

use super::{ContentError, Locate};
use crate::domain::{ClientVersion, Platform};

/// What `GET /api/config` tells every client.
#[derive(Debug, Clone)]
pub struct ClientConfig {
    /// Whether the game is down for maintenance.
    pub maintenance: bool,
    /// Whether clients must not use UDP.
    pub disable_udp: bool,
    /// The current client version, as shown to players.
    pub version: String,
    /// The deployment's name (`production`, `staging`, ...).
    pub environment: String,
    /// Where the realtime game servers are reached.
    pub endpoint: String,
    /// The regions players can pick.
    pub regions: Vec<String>,
    /// The oldest client version still served, per platform; older clients must update.
    pub minimum_version: HashMap<Platform, ClientVersion>,
    /// The oldest anticheat version (`version2`) still served, if any.
    pub minimum_anticheat_version: Option<ClientVersion>,
}

impl ClientConfig {
    /// Whether a client of `platform` at `version` (and anticheat `version2`) must update.
    pub fn update_required(
        &self,
        platform: Option<Platform>,
        version: Option<ClientVersion>,
        anticheat: Option<ClientVersion>,
    ) -> bool {
        let client_too_old = match (platform, version) {
            (Some(platform), Some(version)) => self
                .minimum_version
                .get(&platform)
                .is_some_and(|minimum| version < *minimum),
            _ => false,
        };
        let anticheat_too_old = match (anticheat, self.minimum_anticheat_version) {
            (Some(anticheat), Some(minimum)) => anticheat < minimum,
            _ => false,
        };
        client_too_old || anticheat_too_old
    }
}

/// `[client]` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ClientSection {
    maintenance: bool,
    disable_udp: bool,
    version: String,
    environment: String,
    endpoint: String,
    regions: Vec<String>,
    #[serde(default)]
    minimum_version: HashMap<Spanned<String>, Spanned<String>>,
    minimum_anticheat_version: Option<Spanned<String>>,
}

impl ClientSection {
    pub(super) fn validate(self, locate: &Locate<'_>) -> Result<ClientConfig, ContentError> {
        let mut minimum_version = HashMap::new();
        for (platform, version) in self.minimum_version {
            let key = format!("client.minimum_version.{}", platform.get_ref());
            let parsed_platform = Platform::parse(platform.get_ref()).ok_or_else(|| {
                locate(
                    platform.span(),
                    &key,
                    "unknown platform; use web, windows, android or ios".to_owned(),
                )
            })?;
            minimum_version.insert(parsed_platform, parse_version(&version, &key, locate)?);
        }
        let minimum_anticheat_version = self
            .minimum_anticheat_version
            .map(|version| parse_version(&version, "client.minimum_anticheat_version", locate))
            .transpose()?;
        Ok(ClientConfig {
            maintenance: self.maintenance,
            disable_udp: self.disable_udp,
            version: self.version,
            environment: self.environment,
            endpoint: self.endpoint,
            regions: self.regions,
            minimum_version,
            minimum_anticheat_version,
        })
    }
}

fn parse_version(
    text: &Spanned<String>,
    key: &str,
    locate: &Locate<'_>,
) -> Result<ClientVersion, ContentError> {
    ClientVersion::parse(text.get_ref()).ok_or_else(|| {
        locate(
            text.span(),
            key,
            format!(
                "`{}` is not a version; write dotted numbers such as 2.7.5",
                text.get_ref()
            ),
        )
    })
}
