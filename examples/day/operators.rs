//! The live-ops people, through the operator API with a full token: support lookups, grants,
//! bans lifted a while later, polls created, and content published and rolled back mid-day.

use std::sync::Arc;
use std::time::Duration;

use rand::Rng;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::client::{Http, Port, Request};
use crate::kinds::Kind;
use crate::players::Players;

/// The operators' side of the day.
pub struct Operators {
    http: Http,
    players: Arc<Players>,
    token: String,
}

impl Operators {
    /// Operators with the full token `token`.
    pub fn new(http: Http, players: Arc<Players>, token: String) -> Self {
        Self {
            http,
            players,
            token,
        }
    }

    fn request(&self, target: &str, body: Option<serde_json::Value>) -> Request {
        let mut request = match body {
            Some(body) => {
                let mut request = Request::post(format!("/operator/api/{target}"));
                request.body = Some(body.to_string());
                request
            }
            None => Request::get(format!("/operator/api/{target}")),
        };
        request.port = Port::Operator;
        request.bearer = Some(self.token.clone());
        request
    }

    fn someone(&self) -> Option<i64> {
        self.players.accounts(1).first().copied()
    }

    /// A support lookup of a random player.
    pub async fn lookup(&self) {
        if let Some(account) = self.someone() {
            let request = self.request(&format!("players?accountId={account}"), None);
            self.http.send(Kind::OpLookup, &request).await;
        }
    }

    /// Coins and gems to a random player, for a support case.
    pub async fn grant(&self) {
        if let Some(account) = self.someone() {
            let body =
                serde_json::json!({"coins": 2000, "gems": 100, "reason": "day: support grant"});
            let request = self.request(&format!("players/{account}/grant"), Some(body));
            self.http.send(Kind::OpGrant, &request).await;
        }
    }

    /// Bans `account` (or lifts its ban).
    pub async fn ban(&self, account: i64, banned: bool) {
        let body = serde_json::json!({"banned": banned, "reason": "day: moderation"});
        let request = self.request(&format!("players/{account}/ban"), Some(body));
        self.http.send(Kind::OpBan, &request).await;
    }

    /// A poll open for a day, for players to vote in.
    pub async fn poll(&self, number: u64) {
        let closes = (OffsetDateTime::now_utc() + time::Duration::days(1))
            .format(&Rfc3339)
            .unwrap_or_default();
        let body = serde_json::json!({
            "question": format!("Day poll {number}: which map next?"),
            "options": [
                {"name": "Desert", "colour": "#e0c080"},
                {"name": "Jungle", "colour": "#20a040"},
                {"name": "Tundra", "colour": "#c0e0f0"}
            ],
            "closes": closes,
            "reason": "day: community poll"
        });
        self.http
            .send(Kind::OpPoll, &self.request("polls", Some(body)))
            .await;
    }

    /// Publishes the running content with the client's version moved to `2.8.<1 + number>`.
    pub async fn publish(&self, number: u64) {
        let Some(running) = self
            .http
            .send(Kind::OpLookup, &self.request("content/running", None))
            .await
        else {
            return;
        };
        let text = running.json()["text"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let Some(line) = text.lines().find(|line| line.starts_with("version = ")) else {
            return;
        };
        let text = text.replacen(line, &format!("version = \"2.8.{}\"", 1 + number), 1);
        let body = serde_json::json!({"text": text, "reason": format!("day: release {number}")});
        self.http
            .send(
                Kind::OpContent,
                &self.request("content/publish", Some(body)),
            )
            .await;
    }

    /// Rolls the content back one step.
    pub async fn rollback(&self) {
        let body = serde_json::json!({"reason": "day: rollback"});
        self.http
            .send(
                Kind::OpContent,
                &self.request("content/rollback", Some(body)),
            )
            .await;
    }

    /// The operators' day over `length`: a lookup every 10 s, a grant every 20 s, a ban every
    /// 45 s (lifted at the next one), a poll at the start and halfway, content published at a
    /// third and at two thirds, rolled back at five sixths.
    pub async fn run(self, length: Duration) {
        let started = tokio::time::Instant::now();
        let tick = Duration::from_secs(5);
        let ticks = (length.as_secs() / tick.as_secs()).max(1);
        let at = |fraction: f64| (ticks as f64 * fraction).round() as u64;
        let mut banned: Option<i64> = None;
        for n in 0..ticks {
            tokio::time::sleep_until(started + tick * n as u32).await;
            if n % 2 == 0 {
                self.lookup().await;
            }
            if n % 4 == 1 {
                self.grant().await;
            }
            if n % 9 == 3 {
                if let Some(account) = banned.take() {
                    self.ban(account, false).await;
                }
                if rand::rng().random_bool(0.9) {
                    banned = self.someone();
                    if let Some(account) = banned {
                        self.ban(account, true).await;
                    }
                }
            }
            if n == 0 || n == at(0.5) {
                self.poll(n).await;
            }
            if n == at(1.0 / 3.0) || n == at(2.0 / 3.0) {
                self.publish(n).await;
            }
            if n == at(5.0 / 6.0) {
                self.rollback().await;
            }
        }
        if let Some(account) = banned {
            self.ban(account, false).await;
        }
    }
}
