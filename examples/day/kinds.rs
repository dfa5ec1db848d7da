//! The kinds of request the day sends, their class, and the players' mix.

/// One kind of request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// `GET /api/config` (the app's start and its periodic poll).
    Config,
    /// `GET /api/user/{key}`.
    Account,
    /// `POST /api/validate/device/{id}` of a device that has an account.
    SignIn,
    /// `POST /api/validate/device/{id}` of a new device.
    SignUp,
    /// `GET /api/leaderboard/live`.
    Leaderboard,
    /// `GET /api/profile/{friendCode}`.
    Profile,
    /// `GET /api/user/{key}/rewards`.
    Rewards,
    /// `POST /api/user/{key}/rewards/claim`.
    Claim,
    /// `GET /api/shop/available`.
    Shop,
    /// `GET /api/quest/available`.
    Quests,
    /// `GET /api/reward/tracks`.
    Tracks,
    /// `POST /api/user/{key}/buy`.
    Buy,
    /// `POST /api/user/{key}/pack/open`.
    Open,
    /// `GET /api/poll/available`.
    Polls,
    /// `POST /api/poll/vote/{id}`.
    Vote,
    /// `POST /api/user/{key}/friend-code/update`.
    Rename,
    /// `POST /api/user/{key}/delete-account`.
    Delete,
    /// `POST /internal/matches`, 100 players.
    Match,
    /// `GET /operator/api/players`.
    OpLookup,
    /// `POST /operator/api/players/{id}/grant`.
    OpGrant,
    /// `POST /operator/api/players/{id}/ban` (bans and lifts).
    OpBan,
    /// `POST /operator/api/polls`.
    OpPoll,
    /// `POST /operator/api/content/publish` and `/rollback`.
    OpContent,
}

/// Whether a kind reads or writes (the goals differ: p99 50 ms and 100 ms).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Changes nothing.
    Read,
    /// Changes state.
    Write,
}

impl Kind {
    /// Every kind, in report order.
    pub const ALL: [Kind; 23] = [
        Kind::Config,
        Kind::Account,
        Kind::SignIn,
        Kind::SignUp,
        Kind::Leaderboard,
        Kind::Profile,
        Kind::Rewards,
        Kind::Claim,
        Kind::Shop,
        Kind::Quests,
        Kind::Tracks,
        Kind::Buy,
        Kind::Open,
        Kind::Polls,
        Kind::Vote,
        Kind::Rename,
        Kind::Delete,
        Kind::Match,
        Kind::OpLookup,
        Kind::OpGrant,
        Kind::OpBan,
        Kind::OpPoll,
        Kind::OpContent,
    ];

    /// The kind's name in the results.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Config => "config",
            Kind::Account => "account",
            Kind::SignIn => "sign_in",
            Kind::SignUp => "sign_up",
            Kind::Leaderboard => "leaderboard",
            Kind::Profile => "profile",
            Kind::Rewards => "rewards",
            Kind::Claim => "claim",
            Kind::Shop => "shop",
            Kind::Quests => "quests",
            Kind::Tracks => "tracks",
            Kind::Buy => "buy",
            Kind::Open => "open",
            Kind::Polls => "polls",
            Kind::Vote => "vote",
            Kind::Rename => "rename",
            Kind::Delete => "delete",
            Kind::Match => "match_report",
            Kind::OpLookup => "operator_lookup",
            Kind::OpGrant => "operator_grant",
            Kind::OpBan => "operator_ban",
            Kind::OpPoll => "operator_poll",
            Kind::OpContent => "operator_content",
        }
    }

    /// Whether it reads or writes.
    pub fn class(self) -> Class {
        match self {
            Kind::Config
            | Kind::Account
            | Kind::Leaderboard
            | Kind::Profile
            | Kind::Rewards
            | Kind::Shop
            | Kind::Quests
            | Kind::Tracks
            | Kind::Polls
            | Kind::OpLookup => Class::Read,
            _ => Class::Write,
        }
    }

    /// Whether a request left unanswered (its node stopping) may be sent again to the other
    /// node: reads, the economy's writes (sent with an `Idempotency-Key`) and match reports
    /// (idempotent by match id); never a sign-in, vote, deletion or operator change.
    pub fn retryable(self) -> bool {
        self.class() == Class::Read
            || matches!(
                self,
                Kind::Claim | Kind::Buy | Kind::Open | Kind::Rename | Kind::Match
            )
    }
}

/// The players' mix: what a player does next, with its weight (per 1,000 player requests).
/// Most requests are the config poll, account reads and sign-ins at app start; buys, claims,
/// votes, renames and deletions are rarer. New devices are about as many as deletions plus a
/// little: a game's population grows by a small share of itself in a day (3 a thousand at 1,400
/// requests a second is 15,000 an hour, 1.5% of a million players in the history). A player
/// who cannot do what was drawn (no pack to open, not enough coins, no poll left to vote in)
/// does the read a client would do instead.
pub const MIX: [(Kind, u32); 17] = [
    (Kind::Config, 312),
    (Kind::Account, 160),
    (Kind::SignIn, 100),
    (Kind::SignUp, 3),
    (Kind::Leaderboard, 90),
    (Kind::Profile, 40),
    (Kind::Rewards, 45),
    (Kind::Claim, 40),
    (Kind::Shop, 45),
    (Kind::Quests, 25),
    (Kind::Tracks, 25),
    (Kind::Buy, 35),
    (Kind::Open, 25),
    (Kind::Polls, 25),
    (Kind::Vote, 20),
    (Kind::Rename, 8),
    (Kind::Delete, 2),
];
