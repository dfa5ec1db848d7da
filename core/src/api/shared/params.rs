//! The domain's values as request parameters ([`ParamValue`]): how each is read from a
//! parameter's text and how the document describes it, from the same rules; and the
//! parameters several endpoints share.

use utoipa::ToSchema;
use utoipa::openapi::schema::Schema;
use utoipa::openapi::{Ref, RefOr};

use crate::domain::{ClientVersion, DeviceId, FriendCode, GameMode, Platform, UserKey};
use crate::http::params::{ParamValue, Sent, request_parameters, text_schema};
use crate::leaderboard::{Category, TimeWindow};
use crate::store::TournamentCode;

/// A reference to the component schema of `T` (the names of modes, windows, categories, ...).
fn component<T: ToSchema>() -> RefOr<Schema> {
    Ref::from_schema_name(T::name()).into()
}

/// `web`, `windows`, `android` or `ios`.
impl ParamValue for Platform {
    fn from_param(text: &str) -> Result<Self, String> {
        Platform::parse(text).ok_or_else(|| "must be one of web, windows, android, ios".to_owned())
    }

    fn param_schema() -> RefOr<Schema> {
        let names: Vec<&str> = Platform::ALL
            .iter()
            .map(|platform| platform.as_str())
            .collect();
        text_schema()
            .pattern(Some(format!("^({})$", names.join("|"))))
            .into()
    }
}

/// A dotted version such as `2.8.1`.
impl ParamValue for ClientVersion {
    fn from_param(text: &str) -> Result<Self, String> {
        ClientVersion::parse(text)
            .ok_or_else(|| "must be a dotted version such as 2.8.1".to_owned())
    }

    fn param_schema() -> RefOr<Schema> {
        text_schema()
            .pattern(Some("^[0-9]{1,9}(\\.[0-9]{1,9}){0,3}$"))
            .into()
    }
}

/// A device's id: 1 to 128 printable ASCII characters.
impl ParamValue for DeviceId {
    fn from_param(text: &str) -> Result<Self, String> {
        DeviceId::parse(text).map_err(str::to_owned)
    }

    fn param_schema() -> RefOr<Schema> {
        text_schema()
            .min_length(Some(1))
            .max_length(Some(DeviceId::MAX_CHARS))
            .pattern(Some("^[!-~]+$"))
            .into()
    }
}

impl Sent for DeviceId {
    fn sent(&self) -> Option<String> {
        Some(self.as_str().to_owned())
    }
}

/// A user key: 48 lower-case hex characters.
impl ParamValue for UserKey {
    fn from_param(text: &str) -> Result<Self, String> {
        UserKey::parse(text)
            .ok_or_else(|| "must be a user key: 48 lower-case hex characters".to_owned())
    }

    fn param_schema() -> RefOr<Schema> {
        text_schema().pattern(Some("^[0-9a-f]{48}$")).into()
    }
}

/// A friend code, `Name#1234`.
impl ParamValue for FriendCode {
    fn from_param(text: &str) -> Result<Self, String> {
        FriendCode::parse(text).map_err(|error| format!("is not a friend code: {error}"))
    }

    fn param_schema() -> RefOr<Schema> {
        component::<FriendCode>()
    }
}

impl Sent for FriendCode {
    fn sent(&self) -> Option<String> {
        Some(self.to_string())
    }
}

impl Sent for TournamentCode {
    fn sent(&self) -> Option<String> {
        Some(self.as_str().to_owned())
    }
}

impl Sent for GameMode {
    fn sent(&self) -> Option<String> {
        Some(self.as_str().to_owned())
    }
}

impl Sent for TimeWindow {
    fn sent(&self) -> Option<String> {
        Some(self.as_str().to_owned())
    }
}

impl Sent for Category {
    fn sent(&self) -> Option<String> {
        Some(self.as_str().to_owned())
    }
}

/// A tournament's code as the API takes it ([`tournament_code`](crate::api::tournament_code)).
impl ParamValue for TournamentCode {
    fn from_param(text: &str) -> Result<Self, String> {
        crate::api::tournament_code(text)
    }

    fn param_schema() -> RefOr<Schema> {
        component::<TournamentCode>()
    }
}

/// A game mode by name (whether the content has it is the endpoint's to check).
impl ParamValue for GameMode {
    fn from_param(text: &str) -> Result<Self, String> {
        GameMode::parse(text).ok_or_else(|| GameMode::RULE.to_owned())
    }

    fn param_schema() -> RefOr<Schema> {
        component::<GameMode>()
    }
}

/// A leaderboard's time window by name.
impl ParamValue for TimeWindow {
    fn from_param(text: &str) -> Result<Self, String> {
        TimeWindow::parse(text).ok_or_else(|| "must be one of 24h, 7d, 1m, 1y, all".to_owned())
    }

    fn param_schema() -> RefOr<Schema> {
        component::<TimeWindow>()
    }
}

/// What a leaderboard ranks by.
impl ParamValue for Category {
    fn from_param(text: &str) -> Result<Self, String> {
        Category::parse(text).ok_or_else(|| {
            "must be one of wins, kills, kills_per_round, winrate, time_alive, rounds, top10"
                .to_owned()
        })
    }

    fn param_schema() -> RefOr<Schema> {
        component::<Category>()
    }
}

request_parameters! {
    /// The tournament code of the path.
    pub(crate) struct TournamentCodePath {
        /// The tournament's code, in any letter case
        code: TournamentCode = Path "tournamentCode",
    }
}
