//! `[[modes]]` and `[boards]`: the shipped modes and boards, what a file may name, and what is
//! refused with the field named.

use super::testing::{MINIMAL, assert_refused, parse};
use super::{Content, MAX_MODES, SHIPPED};
use crate::domain::GameMode;
use crate::leaderboard::{Category, TimeWindow};

fn mode(name: &str) -> GameMode {
    GameMode::parse(name).expect("a valid name")
}

/// [`MINIMAL`] with these modes (`(name, team_size)`, written as given) and no `[boards]`.
fn with_modes(modes: &[(&str, &str)]) -> String {
    let mut text = MINIMAL.to_owned();
    for (name, team_size) in modes {
        text.push_str(&format!(
            "\n[[modes]]\nname = {name}\nteam_size = {team_size}\n"
        ));
    }
    text
}

#[test]
fn the_shipped_content_has_four_modes_five_windows_and_seven_categories() {
    let content = Content::parse(SHIPPED, "shipped").expect("valid");
    let modes = &content.modes;
    let names: Vec<(&str, u8)> = (modes.modes().iter())
        .map(|rule| (rule.mode.as_str(), rule.team_size))
        .collect();
    assert_eq!(
        names,
        [("solo", 1), ("duo", 2), ("squad", 4), ("limited", 4)]
    );
    assert_eq!(modes.windows(), TimeWindow::ALL);
    assert_eq!(modes.categories(), Category::ALL);
    assert_eq!(modes.board_count(), 4 * 5 * 7);
    assert_eq!(modes.first(), mode("solo"));
    assert_eq!(
        modes.unknown_mode(),
        "must be one of solo, duo, squad, limited"
    );
}

#[test]
fn a_file_without_the_sections_has_the_classic_modes_and_every_board() {
    let shipped = Content::parse(SHIPPED, "shipped").expect("valid").modes;
    assert_eq!(parse(MINIMAL).modes, shipped);
}

#[test]
fn a_file_names_its_own_modes_and_boards() {
    let text = with_modes(&[
        ("\"trios\"", "3"),
        ("\"solo\"", "1"),
        ("\"big_100\"", "100"),
    ]) + "\n[boards]\nwindows = [\"all\", \"7d\"]\ncategories = [\"kills\"]\n";
    let modes = parse(&text).modes;
    let names: Vec<&str> = modes
        .modes()
        .iter()
        .map(|rule| rule.mode.as_str())
        .collect();
    assert_eq!(names, ["trios", "solo", "big_100"]);
    assert_eq!(
        modes.rule(mode("trios")).map(|rule| rule.team_size),
        Some(3)
    );
    assert_eq!(modes.first(), mode("trios"));
    assert!(!modes.has(mode("duo")));
    assert_eq!(modes.windows(), [TimeWindow::All, TimeWindow::Week]);
    assert!(modes.has_board(mode("solo"), TimeWindow::Week, Category::Kills));
    assert!(!modes.has_board(mode("solo"), TimeWindow::Day, Category::Kills));
    assert!(!modes.has_board(mode("solo"), TimeWindow::All, Category::Wins));
    assert!(!modes.has_board(mode("duo"), TimeWindow::All, Category::Kills));
    assert_eq!(modes.board_count(), 3 * 2);
}

#[test]
fn bad_mode_names_are_refused_naming_the_field() {
    for bad in [
        "\"Trios\"",
        "\"tri-os\"",
        "\"\"",
        "\"trïos\"",
        &format!("\"{}\"", "a".repeat(33)),
    ] {
        let text = with_modes(&[("\"solo\"", "1"), (bad, "3")]);
        assert_refused(
            &text,
            bad,
            "modes.name",
            "lowercase ASCII letters, digits or `_`",
        );
    }
}

#[test]
fn a_mode_named_twice_is_refused() {
    let text = with_modes(&[("\"solo\"", "1"), ("\"duo\"", "2"), ("\"solo\"", "4")]);
    let second = text.rfind("\"solo\"").expect("twice");
    super::testing::assert_refused_at(&text, second, "modes.name", "names a mode twice");
}

#[test]
fn team_sizes_are_1_to_100() {
    for bad in ["0", "101", "-3"] {
        let text = with_modes(&[("\"solo\"", bad)]);
        assert_refused(
            &text,
            &format!("team_size = {bad}"),
            "modes.team_size",
            "write 1 to 100",
        );
    }
    let text = with_modes(&[("\"solo\"", "1")]).replace("team_size = 1\n", "");
    assert!(
        Content::parse(&text, "test.toml").is_err(),
        "a team size is required"
    );
}

#[test]
fn at_most_sixteen_modes() {
    let names: Vec<(String, &str)> = (0..=MAX_MODES)
        .map(|index| (format!("\"mode_{index}\""), "2"))
        .collect();
    let modes: Vec<(&str, &str)> = names
        .iter()
        .map(|(name, size)| (name.as_str(), *size))
        .collect();
    assert_refused(
        &with_modes(&modes),
        &format!("\"mode_{MAX_MODES}\""),
        "modes",
        "at most 16",
    );
    parse(&with_modes(&modes[..MAX_MODES]));
}

#[test]
fn unknown_windows_and_categories_are_refused_naming_the_field() {
    let boards = |windows: &str, categories: &str| {
        format!("{MINIMAL}\n[boards]\nwindows = {windows}\ncategories = {categories}\n")
    };
    assert_refused(
        &boards("[\"all\", \"2h\"]", "[\"wins\"]"),
        "\"2h\"",
        "boards.windows",
        "`2h` is unknown; write one of 24h, 7d, 1m, 1y, all",
    );
    assert_refused(
        &boards("[\"all\"]", "[\"wins\", \"deaths\"]"),
        "\"deaths\"",
        "boards.categories",
        "`deaths` is unknown; write one of wins, kills, kills_per_round, winrate",
    );
    assert_refused(
        &boards("[\"all\", \"all\"]", "[\"wins\"]"),
        "\"all\"]",
        "boards.windows",
        "named twice",
    );
    assert_refused(
        &boards("[]", "[\"wins\"]"),
        "[]",
        "boards.windows",
        "is empty",
    );
    let error = Content::parse(&format!("{MINIMAL}\n[boards]\nwindows = [\"all\"]\n"), "t")
        .expect_err("categories are required beside windows")
        .to_string();
    assert!(error.contains("categories"), "{error}");
}
