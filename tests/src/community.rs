//! Helpers for the behaviour tests of polls, tournaments, whitelists, clans and bans: players
//! with their ids and friend codes, and the operator's set-up through the store (the calls the
//! admin commands make).

use safezone_core::clock::Clock;
use safezone_core::domain::{FriendCode, GameMode};
use safezone_core::store::{
    AccountId, NewPoll, NewPollOption, NewTournament, Poll, PollId, Role, TournamentCode,
    WhitelistEdit,
};
use time::{Duration, OffsetDateTime};

use crate::TestApp;

/// A signed-in player.
#[derive(Debug, Clone)]
pub struct Player {
    /// The player's user key.
    pub key: String,
    /// The account's id (`userId` of the clan endpoints).
    pub id: AccountId,
    /// The account's friend code.
    pub friend_code: FriendCode,
}

/// A tournament code from text.
///
/// # Panics
/// When the text is not a valid code.
pub fn code(text: &str) -> TournamentCode {
    TournamentCode::parse(text).expect("a valid tournament code")
}

impl TestApp {
    /// Signs in a new device account.
    pub async fn player(&self) -> Player {
        let (_, body) = self.new_device().await;
        let user = &body["user"];
        Player {
            key: user["key"].as_str().expect("a key").to_owned(),
            id: AccountId(user["id"].as_i64().expect("an id")),
            friend_code: FriendCode::parse(user["friend_code"].as_str().expect("a friend code"))
                .expect("a valid friend code"),
        }
    }

    /// `count` new players.
    pub async fn players(&self, count: usize) -> Vec<Player> {
        let mut players = Vec::with_capacity(count);
        for _ in 0..count {
            players.push(self.player().await);
        }
        players
    }

    /// A new player made an admin, as `make-admin` does.
    pub async fn admin(&self) -> Player {
        let player = self.player().await;
        assert!(
            self.store
                .set_role(player.id, Role::Admin)
                .await
                .expect("role set")
        );
        player
    }

    /// Bans (`true`) or unbans the player, as `ban` and `unban` do.
    pub async fn set_banned(&self, player: &Player, banned: bool) {
        assert!(
            self.store
                .set_banned(player.id, banned, None)
                .await
                .expect("ban set")
        );
    }

    /// The clock's time.
    pub fn now(&self) -> OffsetDateTime {
        self.clock.now()
    }

    /// Creates a poll open from `opens` to `closes` with options `(name, colour)`, as `poll
    /// create` does.
    pub async fn create_poll(
        &self,
        question: &str,
        options: &[(&str, &str)],
        opens: OffsetDateTime,
        closes: OffsetDateTime,
    ) -> Poll {
        let poll = NewPoll {
            question: question.to_owned(),
            options: options
                .iter()
                .map(|(name, color)| NewPollOption {
                    name: (*name).to_owned(),
                    color_code: (*color).to_owned(),
                })
                .collect(),
            opens,
            closes,
            now: self.now(),
        };
        poll.check().expect("a valid poll");
        self.store
            .create_poll(poll, None)
            .await
            .expect("poll created")
    }

    /// A poll "Colour?" (Red, Blue) open for the hour around now.
    pub async fn open_poll(&self) -> Poll {
        let now = self.now();
        self.create_poll(
            "Colour?",
            &[("Red", "#ff0000"), ("Blue", "#0000ff")],
            now - Duration::minutes(30),
            now + Duration::minutes(30),
        )
        .await
    }

    /// The votes per option of a poll, as `poll results` reads them.
    pub async fn votes(&self, poll: PollId) -> Vec<i64> {
        self.store
            .poll_results(poll)
            .await
            .expect("results read")
            .expect("the poll exists")
            .votes
    }

    /// Creates a squad tournament open for the hour around now, as `tournament create` does.
    pub async fn create_tournament(&self, text: &str, capacity: i64, whitelist_only: bool) {
        let now = self.now();
        self.create_tournament_at(
            text,
            capacity,
            whitelist_only,
            now - Duration::minutes(30),
            now + Duration::minutes(30),
        )
        .await;
    }

    /// Creates a squad tournament open from `opens` to `closes`.
    pub async fn create_tournament_at(
        &self,
        text: &str,
        capacity: i64,
        whitelist_only: bool,
        opens: OffsetDateTime,
        closes: OffsetDateTime,
    ) {
        let tournament = NewTournament {
            code: code(text),
            mode: GameMode::parse("squad").expect("a mode"),
            opens,
            closes,
            capacity,
            whitelist_only,
            now: self.now(),
        };
        tournament.check().expect("a valid tournament");
        assert!(
            self.store
                .create_tournament(tournament, None)
                .await
                .expect("tournament created"),
            "the code {text} is free"
        );
    }

    /// Puts players on a tournament's whitelist, as `whitelist add` does.
    pub async fn whitelist(&self, text: &str, players: &[&Player]) {
        let edit = WhitelistEdit {
            code: code(text),
            replace: false,
            add: players.iter().map(|p| p.friend_code.clone()).collect(),
            remove: Vec::new(),
            now: self.now(),
        };
        let edited = self
            .store
            .edit_whitelist(edit, None)
            .await
            .expect("whitelist edited")
            .expect("the tournament exists");
        assert!(edited.unknown.is_empty());
    }
}
