//! The server's flags for traffic: rate limits, client addresses behind a proxy, CORS, HSTS,
//! the cap on requests in flight, the limits on connections and the sessions kept in memory.

use std::num::NonZeroUsize;
use std::time::Duration;

use clap::Args;

use crate::http::{RateLimitRule, RateLimits};
use crate::{ConnectionLimits, Settings};

/// The traffic flags, flattened into [`ServerArgs`](super::ServerArgs).
#[derive(Debug, Clone, Args)]
pub struct TrafficArgs {
    /// A rate limit per node, `GROUP:SCOPE=RATE` (`sign-in:address=20/min`; groups sign-in,
    /// purchase, write, read, game-server, realtime; scopes address, account; rates N/s, N/min,
    /// N/h, or `off`), repeated; applied in order over the defaults (sign-in:address=20/min,
    /// purchase 60/min per address and 30/min per account, write 300 and 120, read 1200 and
    /// 600, realtime 120 and 20, game-server none). `off` alone removes every limit. Each node
    /// counts alone.
    #[arg(
        long = "rate-limit",
        env = "SAFEZONE_RATE_LIMITS",
        value_delimiter = ',',
        value_name = "RULE"
    )]
    pub rate_limits: Vec<RateLimitRule>,

    /// Count each request against the right-most `X-Forwarded-For` address (the one the
    /// proxy in front added) instead of the peer's: only behind such a proxy.
    #[arg(long, env = "SAFEZONE_TRUST_FORWARDED_FOR")]
    pub trust_forwarded_for: bool,

    /// An origin allowed by CORS besides the auth file's `web_origins`
    /// (`https://play.example.com`), repeated.
    #[arg(long = "cors-origin", env = "SAFEZONE_CORS_ORIGINS", value_delimiter = ',', value_name = "ORIGIN", value_parser = parse_origin)]
    pub cors_origins: Vec<String>,

    /// Send `Strict-Transport-Security` with this max-age in seconds (only when the service is
    /// reached over HTTPS).
    #[arg(long, env = "SAFEZONE_HSTS_MAX_AGE_SECS")]
    pub hsts_max_age_secs: Option<u64>,

    /// The most requests this node handles at once; beyond it, 503 `overloaded` with
    /// `Retry-After: 1`, at once. 0: no cap.
    #[arg(long, env = "SAFEZONE_MAX_IN_FLIGHT", default_value_t = 4096)]
    pub max_in_flight: usize,

    /// The most connections open at once; at the cap, new connections wait in the kernel's
    /// backlog until one closes. 0: no cap. Applied by the warp server only (rocket 0.5 cannot).
    #[arg(long, env = "SAFEZONE_MAX_CONNECTIONS", default_value_t = 10_000)]
    pub max_connections: usize,

    /// Seconds a connection may take to send a request's head (request line and headers),
    /// idle keep-alive connections included; then it is closed. Applied by the warp server
    /// only (rocket 0.5 cannot).
    #[arg(long, env = "SAFEZONE_HEADER_READ_TIMEOUT_SECS", default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    pub header_read_timeout_secs: u64,

    /// The most accounts whose session and view this node keeps in memory (each about 1 KB),
    /// served while nothing changed them (a change on another node is seen within a second).
    /// 0: none, every key is checked in the database.
    #[arg(long, env = "SAFEZONE_SESSION_CACHE_ENTRIES", default_value_t = 16_384)]
    pub session_cache_entries: usize,
}

impl TrafficArgs {
    /// Writes these flags into `settings`.
    pub fn apply(&self, settings: &mut Settings) {
        let mut limits = RateLimits::recommended();
        for rule in &self.rate_limits {
            limits.apply(rule);
        }
        settings.rate_limits = limits;
        settings.trust_forwarded_for = self.trust_forwarded_for;
        settings.cors_origins = self.cors_origins.clone();
        settings.hsts_max_age = self.hsts_max_age_secs.map(Duration::from_secs);
        settings.max_in_flight = (self.max_in_flight > 0).then_some(self.max_in_flight);
        settings.connection_limits = ConnectionLimits {
            max_connections: NonZeroUsize::new(self.max_connections),
            header_read_timeout: Duration::from_secs(self.header_read_timeout_secs),
        };
        settings.session_cache_entries = self.session_cache_entries;
    }
}

/// An origin: `http(s)://host[:port]`, no path; a trailing slash is dropped.
fn parse_origin(text: &str) -> Result<String, String> {
    let origin = text.trim().trim_end_matches('/');
    let rest = origin
        .strip_prefix("https://")
        .or_else(|| origin.strip_prefix("http://"))
        .ok_or_else(|| format!("`{text}` is not an origin such as https://play.example.com"))?;
    if rest.is_empty() || rest.contains(['/', '?', '#', '*', ' ']) {
        return Err(format!(
            "`{text}` is not an origin such as https://play.example.com"
        ));
    }
    Ok(origin.to_owned())
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;
    use crate::http::{EndpointGroup, Scope};

    #[derive(Parser)]
    struct Flags {
        #[command(flatten)]
        traffic: TrafficArgs,
    }

    fn parsed(args: &[&str]) -> Settings {
        let flags = Flags::try_parse_from(std::iter::once("safezone").chain(args.iter().copied()))
            .expect("flags parse");
        let mut settings = Settings::default();
        flags.traffic.apply(&mut settings);
        settings
    }

    #[test]
    fn the_binaries_default_to_limits_and_a_cap() {
        let settings = parsed(&[]);
        assert_eq!(settings.rate_limits, RateLimits::recommended());
        assert_eq!(settings.max_in_flight, Some(4096));
        assert!(!settings.trust_forwarded_for);
        assert_eq!(settings.hsts_max_age, None);
        assert_eq!(
            settings.connection_limits,
            ConnectionLimits {
                max_connections: NonZeroUsize::new(10_000),
                header_read_timeout: Duration::from_secs(10),
            }
        );
    }

    #[test]
    fn connection_limits_are_set_and_zero_lifts_the_cap() {
        let settings = parsed(&["--max-connections", "2", "--header-read-timeout-secs", "1"]);
        assert_eq!(
            settings.connection_limits,
            ConnectionLimits {
                max_connections: NonZeroUsize::new(2),
                header_read_timeout: Duration::from_secs(1),
            }
        );
        let uncapped = parsed(&["--max-connections", "0"]);
        assert_eq!(uncapped.connection_limits.max_connections, None);
        for bad in [
            ["--header-read-timeout-secs", "0"],
            ["--max-connections", "-1"],
            ["--max-connections", "many"],
        ] {
            assert!(
                Flags::try_parse_from(std::iter::once("safezone").chain(bad)).is_err(),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn rules_apply_over_the_defaults_and_off_removes_all() {
        let settings = parsed(&[
            "--rate-limit",
            "sign-in:address=5/s",
            "--rate-limit",
            "read:account=off",
        ]);
        assert_eq!(
            settings
                .rate_limits
                .get(EndpointGroup::SignIn, Scope::Address),
            "5/s".parse().ok()
        );
        assert_eq!(
            settings
                .rate_limits
                .get(EndpointGroup::Read, Scope::Account),
            None
        );
        assert!(parsed(&["--rate-limit", "off"]).rate_limits.is_empty());
        assert!(Flags::try_parse_from(["safezone", "--rate-limit", "signin:address=5/s"]).is_err());
    }

    #[test]
    fn origins_are_checked() {
        let settings = parsed(&[
            "--cors-origin",
            "https://play.example.com/",
            "--max-in-flight",
            "0",
        ]);
        assert_eq!(settings.cors_origins, ["https://play.example.com"]);
        assert_eq!(settings.max_in_flight, None);
        for bad in ["*", "play.example.com", "https://play.example.com/path"] {
            assert!(parse_origin(bad).is_err(), "{bad}");
        }
    }
}
