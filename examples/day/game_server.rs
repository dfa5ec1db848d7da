//! The game server: a steady stream of 100-player match reports to `POST /internal/matches`
//! (as `examples/bench.sh`'s matches section shapes them), over random players of the day.

use std::fmt::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use rand::Rng;
use rand::seq::SliceRandom;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::client::{Http, Request};
use crate::kinds::Kind;
use crate::players::Players;

/// The credential the nodes are started with (`--game-server-token`).
pub const CREDENTIAL: &str = "day-game-server-credential";

const MODES: [&str; 3] = ["solo", "duo", "squad"];

/// Reports matches of this run, numbered.
pub struct GameServer {
    http: Http,
    players: Arc<Players>,
    run: String,
    counter: AtomicU64,
}

impl GameServer {
    /// A game server of run `run`.
    pub fn new(http: Http, players: Arc<Players>, run: String) -> Arc<Self> {
        Arc::new(Self {
            http,
            players,
            run,
            counter: AtomicU64::new(0),
        })
    }

    /// Reports one match of 100 random players that ended a minute ago after 20 minutes; sent
    /// again to the other node if unanswered (the match id makes a repeat change nothing).
    pub async fn report(&self) {
        let number = self.counter.fetch_add(1, Ordering::Relaxed);
        let mut accounts = self.players.accounts(100);
        accounts.shuffle(&mut rand::rng());
        let now = OffsetDateTime::now_utc();
        let format = |at: OffsetDateTime| at.format(&Rfc3339).unwrap_or_default();
        let started = format(now - time::Duration::minutes(21));
        let ended = format(now - time::Duration::minutes(1));
        let mode = MODES[rand::rng().random_range(0..MODES.len())];
        let mut players = String::with_capacity(100 * 90);
        for (index, account) in accounts.iter().enumerate() {
            let place = index + 1;
            if index > 0 {
                players.push(',');
            }
            let _ = write!(
                players,
                r#"{{"accountId":{account},"placement":{place},"kills":{},"timeAlive":{},"stats":{{"damage":{}}}}}"#,
                (101 - place) % 10,
                1200 - place * 10,
                50 * (101 - place)
            );
        }
        let mut request = Request::post("/internal/matches".to_owned());
        request.bearer = Some(CREDENTIAL.to_owned());
        request.body = Some(format!(
            r#"{{"matchId":"{}-{number}","mode":"{mode}","startedAt":"{started}","endedAt":"{ended}","players":[{players}]}}"#,
            self.run
        ));
        self.http.send(Kind::Match, &request).await;
    }
}
