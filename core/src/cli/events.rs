//! The server's flags for the domain events: webhooks and the NATS JetStream publisher.

use clap::Args;

use crate::Settings;
#[cfg(feature = "nats")]
use crate::events::nats::NatsSettings;
use crate::events::webhook::WebhookSettings;

/// The event flags, flattened into [`ServerArgs`](super::ServerArgs).
#[derive(Debug, Clone, Args)]
pub struct EventArgs {
    /// A URL that every batch of domain events is POSTed to, signed with
    /// `--events-webhook-secret` (`Safezone-Signature` header), repeated.
    #[arg(
        long = "events-webhook-url",
        env = "SAFEZONE_EVENTS_WEBHOOK_URLS",
        value_delimiter = ',',
        value_name = "URL",
        requires = "webhook_secret"
    )]
    pub webhook_urls: Vec<String>,

    /// The secret the webhooks' signatures are made with (HMAC-SHA256).
    #[arg(
        long = "events-webhook-secret",
        env = "SAFEZONE_EVENTS_WEBHOOK_SECRET",
        hide_env_values = true
    )]
    pub webhook_secret: Option<String>,

    /// A NATS server (`nats://127.0.0.1:4222`) the domain events are published to with
    /// JetStream, on `safezone.events.<kind>` with the event's id as `Nats-Msg-Id`.
    #[cfg(feature = "nats")]
    #[arg(long = "events-nats-url", env = "SAFEZONE_EVENTS_NATS_URL")]
    pub nats_url: Option<String>,

    /// A JetStream stream over `<prefix>.>` to create (or keep) when the publisher connects.
    #[cfg(feature = "nats")]
    #[arg(long = "events-nats-stream", env = "SAFEZONE_EVENTS_NATS_STREAM")]
    pub nats_stream: Option<String>,

    /// The subjects' prefix of the NATS publisher.
    #[cfg(feature = "nats")]
    #[arg(
        long = "events-nats-subject-prefix",
        env = "SAFEZONE_EVENTS_NATS_SUBJECT_PREFIX",
        default_value = NatsSettings::DEFAULT_PREFIX
    )]
    pub nats_subject_prefix: String,

    /// Hours a domain event is kept in the outbox once every sink delivered it (for
    /// subscribers that resume and for replays); then the retention sweep deletes it.
    #[arg(long = "events-retention-hours", env = "SAFEZONE_EVENTS_RETENTION_HOURS", default_value_t = 7 * 24, value_parser = clap::value_parser!(u32).range(1..))]
    pub retention_hours: u32,

    /// Days the webhooks' delivery log keeps an attempt, dead letters included.
    #[arg(long = "events-delivery-log-retention-days", env = "SAFEZONE_EVENTS_DELIVERY_LOG_RETENTION_DAYS", default_value_t = 30, value_parser = clap::value_parser!(u16).range(1..))]
    pub delivery_log_retention_days: u16,
}

impl EventArgs {
    /// Writes these flags into `settings`.
    pub fn apply(&self, settings: &mut Settings) {
        settings.events.retention = time::Duration::hours(i64::from(self.retention_hours));
        settings.events.deliveries_retention =
            time::Duration::days(i64::from(self.delivery_log_retention_days));
        let secret = self.webhook_secret.clone().unwrap_or_default();
        settings.events.webhooks = self
            .webhook_urls
            .iter()
            .map(|url| WebhookSettings {
                url: url.clone(),
                secret: secret.clone(),
            })
            .collect();
        #[cfg(feature = "nats")]
        {
            settings.events.nats = self.nats_url.as_ref().map(|url| NatsSettings {
                url: url.clone(),
                subject_prefix: self.nats_subject_prefix.clone(),
                stream: self.nats_stream.clone(),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Parser)]
    struct Flags {
        #[command(flatten)]
        events: EventArgs,
    }

    #[cfg(feature = "nats")]
    #[test]
    fn the_flags_name_the_sinks() {
        let flags = Flags::parse_from([
            "safezone",
            "--events-webhook-url",
            "http://a.example/hook",
            "--events-webhook-url",
            "http://b.example/hook",
            "--events-webhook-secret",
            "s3cret",
            "--events-nats-url",
            "nats://127.0.0.1:4222",
            "--events-nats-stream",
            "SAFEZONE",
        ]);
        let mut settings = Settings::default();
        flags.events.apply(&mut settings);
        assert_eq!(settings.events.webhooks.len(), 2);
        assert_eq!(settings.events.webhooks[1].url, "http://b.example/hook");
        assert_eq!(settings.events.webhooks[1].secret, "s3cret");
        let nats = settings.events.nats.expect("NATS is set");
        assert_eq!(nats.subject_prefix, "safezone.events");
        assert_eq!(nats.stream.as_deref(), Some("SAFEZONE"));
    }

    #[test]
    fn delivered_events_are_kept_a_week_and_the_delivery_log_a_month() {
        let mut settings = Settings::default();
        Flags::parse_from(["safezone"]).events.apply(&mut settings);
        assert_eq!(settings.events.retention, time::Duration::days(7));
        assert_eq!(
            settings.events.deliveries_retention,
            time::Duration::days(30)
        );
        let flags = Flags::parse_from([
            "safezone",
            "--events-retention-hours",
            "24",
            "--events-delivery-log-retention-days",
            "3",
        ]);
        flags.events.apply(&mut settings);
        assert_eq!(settings.events.retention, time::Duration::days(1));
        assert_eq!(
            settings.events.deliveries_retention,
            time::Duration::days(3)
        );
    }

    #[test]
    fn a_webhook_needs_a_secret() {
        let flags = Flags::try_parse_from(["safezone", "--events-webhook-url", "http://a/"]);
        assert!(flags.is_err());
    }
}
