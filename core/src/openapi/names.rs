//! The schemas of values the API reads and writes by name (game modes, leaderboard windows and
//! categories) or as text of a fixed shape (friend codes), made from the lists and limits the
//! code itself checks against, so that the document cannot drift from the parsers.

use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{Object, Schema, Type};
use utoipa::{PartialSchema, ToSchema};

use crate::domain::{FriendCode, GameMode, MODE_NAME_MAX_CHARS, NAME_MAX_CHARS, NAME_MIN_CHARS};
use crate::leaderboard::{Category, TimeWindow};
use crate::store::{TOURNAMENT_CODE_MAX, TournamentCode};

/// A string schema that holds one of `names`.
fn one_of_names<'a>(description: &str, names: impl IntoIterator<Item = &'a str>) -> RefOr<Schema> {
    Object::builder()
        .schema_type(Type::String)
        .description(Some(description))
        .enum_values(Some(names))
        .into()
}

impl PartialSchema for GameMode {
    fn schema() -> RefOr<Schema> {
        Object::builder()
            .schema_type(Type::String)
            .description(Some(
                "A game mode named by the content (`[[modes]]`; the shipped content's are solo, \
                 duo, squad and limited): 1 to 32 lowercase ASCII letters, digits or `_`",
            ))
            .min_length(Some(1))
            .max_length(Some(MODE_NAME_MAX_CHARS))
            .pattern(Some("^[a-z0-9_]{1,32}$"))
            .into()
    }
}

impl ToSchema for GameMode {}

impl PartialSchema for TimeWindow {
    fn schema() -> RefOr<Schema> {
        one_of_names(
            "A leaderboard's time window: the last 24 hours, 7 days, 30 days, 365 days, or all \
             time",
            TimeWindow::ALL.map(TimeWindow::as_str),
        )
    }
}

impl ToSchema for TimeWindow {}

impl PartialSchema for Category {
    fn schema() -> RefOr<Schema> {
        one_of_names(
            "What a leaderboard ranks players by",
            Category::ALL.map(Category::as_str),
        )
    }
}

impl ToSchema for Category {}

impl PartialSchema for FriendCode {
    fn schema() -> RefOr<Schema> {
        Object::builder()
            .schema_type(Type::String)
            .description(Some(
                "A friend code: a name of ASCII letters and digits, `#`, and four digits",
            ))
            .pattern(Some(format!(
                "^[0-9A-Za-z]{{{NAME_MIN_CHARS},{NAME_MAX_CHARS}}}#[0-9]{{4}}$"
            )))
            .examples(["Sneeza#0001"])
            .into()
    }
}

impl ToSchema for FriendCode {}

impl PartialSchema for TournamentCode {
    fn schema() -> RefOr<Schema> {
        Object::builder()
            .schema_type(Type::String)
            .description(Some(
                "A tournament's code: ASCII letters, digits, `-` and `_`, compared regardless of \
                 letter case; codes that are path segments of the API (`user`, `clan`, ...) are \
                 refused",
            ))
            .pattern(Some(format!("^[A-Za-z0-9_-]{{1,{TOURNAMENT_CODE_MAX}}}$")))
            .examples(["spring-cup"])
            .into()
    }
}

impl ToSchema for TournamentCode {}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names a schema made by [`one_of_names`] lists.
    fn names<T: PartialSchema>() -> Vec<String> {
        let RefOr::T(Schema::Object(object)) = T::schema() else {
            panic!("a list of names is an object schema");
        };
        object
            .enum_values
            .unwrap_or_default()
            .iter()
            .filter_map(|value| value.as_str().map(str::to_owned))
            .collect()
    }

    #[test]
    fn a_mode_is_a_name_of_the_parsers_shape() {
        let RefOr::T(Schema::Object(object)) = GameMode::schema() else {
            panic!("a mode is an object schema");
        };
        assert_eq!(object.max_length, Some(MODE_NAME_MAX_CHARS));
        assert_eq!(object.pattern.as_deref(), Some("^[a-z0-9_]{1,32}$"));
        assert!(GameMode::parse(&"a_9".repeat(10)).is_some());
        assert!(GameMode::parse(&"a".repeat(MODE_NAME_MAX_CHARS + 1)).is_none());
    }

    #[test]
    fn every_listed_name_is_read_by_its_parser_and_every_value_is_listed() {
        let windows = names::<TimeWindow>();
        assert_eq!(windows.len(), TimeWindow::ALL.len());
        assert!(windows.iter().all(|name| TimeWindow::parse(name).is_some()));
        let categories = names::<Category>();
        assert_eq!(categories.len(), Category::ALL.len());
        assert!(
            categories
                .iter()
                .all(|name| Category::parse(name).is_some())
        );
    }
}
