//! The game modes and which leaderboards they have (`[[modes]]` and `[boards]`).
//!
//! A mode is a free name with a team size; a report, a tournament and a board name a mode the
//! content has. The time windows and categories each have fixed semantics in code (a window's
//! length, a category's score): the content only chooses which of them have boards. A file that
//! writes neither section has the four classic modes and every board, as every file did before
//! the modes came from content.

use serde::Deserialize;
use toml::Spanned;

use super::{ContentError, Locate};
use crate::domain::GameMode;
use crate::leaderboard::{Category, TimeWindow};

/// The most modes a content file may name: the boards keep a mode's index in four bits.
pub const MAX_MODES: usize = 16;

/// The largest team size.
pub const MAX_TEAM_SIZE: u8 = 100;

/// The modes a file without `[[modes]]` has, with their team sizes.
const CLASSIC_MODES: [(&str, u8); 4] = [("solo", 1), ("duo", 2), ("squad", 4), ("limited", 4)];

/// One game mode of the content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModeRule {
    /// The mode's name.
    pub mode: GameMode,
    /// Players per team, 1 to [`MAX_TEAM_SIZE`]: content data for clients (served in
    /// `GET /api/config`); a match report carries no teams to check it against.
    pub team_size: u8,
}

/// The content's game modes, in file order, and the windows and categories that have boards:
/// every mode has a board for each window and category listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameModes {
    modes: Vec<ModeRule>,
    windows: Vec<TimeWindow>,
    categories: Vec<Category>,
}

impl GameModes {
    /// The modes, in file order.
    pub fn modes(&self) -> &[ModeRule] {
        &self.modes
    }

    /// The mode named `mode`, if the content has it.
    pub fn rule(&self, mode: GameMode) -> Option<&ModeRule> {
        self.modes.iter().find(|rule| rule.mode == mode)
    }

    /// Whether the content has the mode.
    pub fn has(&self, mode: GameMode) -> bool {
        self.rule(mode).is_some()
    }

    /// The first mode: a board's mode when a request names none.
    pub fn first(&self) -> GameMode {
        self.modes[0].mode
    }

    /// The windows that have boards, in file order.
    pub fn windows(&self) -> &[TimeWindow] {
        &self.windows
    }

    /// The categories that have boards, in file order.
    pub fn categories(&self) -> &[Category] {
        &self.categories
    }

    /// Whether the mode has a board for this window and category.
    pub fn has_board(&self, mode: GameMode, window: TimeWindow, category: Category) -> bool {
        self.has(mode) && self.windows.contains(&window) && self.categories.contains(&category)
    }

    /// How many boards the content has: modes × windows × categories.
    pub fn board_count(&self) -> usize {
        self.modes.len() * self.windows.len() * self.categories.len()
    }

    /// "must be one of solo, duo, …": the problem of a mode the content does not have.
    pub fn unknown_mode(&self) -> String {
        let names: Vec<&str> = self.modes.iter().map(|rule| rule.mode.as_str()).collect();
        format!("must be one of {}", names.join(", "))
    }

    /// The problem of a window without boards.
    pub fn unknown_window(&self) -> String {
        let names: Vec<&str> = self.windows.iter().map(|window| window.as_str()).collect();
        format!("must be one of {}", names.join(", "))
    }

    /// The problem of a category without boards.
    pub fn unknown_category(&self) -> String {
        let names: Vec<&str> = self
            .categories
            .iter()
            .map(|category| category.as_str())
            .collect();
        format!("must be one of {}", names.join(", "))
    }
}

/// One `[[modes]]` table as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ModeSection {
    name: Spanned<String>,
    team_size: Spanned<i64>,
}

/// `[boards]` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct BoardsSection {
    windows: Spanned<Vec<Spanned<String>>>,
    categories: Spanned<Vec<Spanned<String>>>,
}

/// Checks `[[modes]]` and `[boards]`; either left out takes the classic value.
pub(super) fn validate(
    modes: Vec<Spanned<ModeSection>>,
    boards: Option<BoardsSection>,
    locate: &Locate<'_>,
) -> Result<GameModes, ContentError> {
    let modes = if modes.is_empty() {
        CLASSIC_MODES
            .iter()
            .map(|(name, team_size)| ModeRule {
                mode: GameMode::parse(name).expect("the classic modes' names are valid"),
                team_size: *team_size,
            })
            .collect()
    } else {
        validate_modes(modes, locate)?
    };
    let (windows, categories) = match boards {
        None => (TimeWindow::ALL.to_vec(), Category::ALL.to_vec()),
        Some(boards) => (
            names::<TimeWindow>(boards.windows, "boards.windows", locate)?,
            names::<Category>(boards.categories, "boards.categories", locate)?,
        ),
    };
    Ok(GameModes {
        modes,
        windows,
        categories,
    })
}

fn validate_modes(
    sections: Vec<Spanned<ModeSection>>,
    locate: &Locate<'_>,
) -> Result<Vec<ModeRule>, ContentError> {
    if sections.len() > MAX_MODES {
        let span = sections[MAX_MODES].get_ref().name.span();
        return Err(locate(
            span,
            "modes",
            format!(
                "there are {} modes; at most {MAX_MODES} are allowed",
                sections.len()
            ),
        ));
    }
    let mut rules: Vec<ModeRule> = Vec::with_capacity(sections.len());
    for section in sections {
        let section = section.into_inner();
        let name = section.name.get_ref();
        let mode = GameMode::parse(name).ok_or_else(|| {
            locate(
                section.name.span(),
                "modes.name",
                format!("`{name}` {}", GameMode::RULE),
            )
        })?;
        if rules.iter().any(|rule| rule.mode == mode) {
            return Err(locate(
                section.name.span(),
                "modes.name",
                format!("`{name}` names a mode twice; each mode is written once"),
            ));
        }
        let team_size = *section.team_size.get_ref();
        let team_size = u8::try_from(team_size)
            .ok()
            .filter(|size| (1..=MAX_TEAM_SIZE).contains(size))
            .ok_or_else(|| {
                locate(
                    section.team_size.span(),
                    "modes.team_size",
                    format!("{team_size} is out of range; write 1 to {MAX_TEAM_SIZE}"),
                )
            })?;
        rules.push(ModeRule { mode, team_size });
    }
    Ok(rules)
}

/// A board coordinate with fixed semantics that `[boards]` names: a window or a category.
trait BoardName: Sized + PartialEq + Copy + 'static {
    /// Every one, in code order.
    const ALL: &'static [Self];

    /// The one named `text`.
    fn parse(text: &str) -> Option<Self>;

    /// Its name.
    fn name(self) -> &'static str;
}

impl BoardName for TimeWindow {
    const ALL: &'static [Self] = &TimeWindow::ALL;

    fn parse(text: &str) -> Option<Self> {
        TimeWindow::parse(text)
    }

    fn name(self) -> &'static str {
        self.as_str()
    }
}

impl BoardName for Category {
    const ALL: &'static [Self] = &Category::ALL;

    fn parse(text: &str) -> Option<Self> {
        Category::parse(text)
    }

    fn name(self) -> &'static str {
        self.as_str()
    }
}

/// The known values named in `list` (`key` in errors): at least one, each once.
fn names<T: BoardName>(
    list: Spanned<Vec<Spanned<String>>>,
    key: &str,
    locate: &Locate<'_>,
) -> Result<Vec<T>, ContentError> {
    let all: Vec<&str> = T::ALL.iter().map(|value| value.name()).collect();
    let span = list.span();
    let list = list.into_inner();
    if list.is_empty() {
        return Err(locate(span, key, "is empty; name at least one".to_owned()));
    }
    let mut known = Vec::with_capacity(list.len());
    for name in list {
        let value = T::parse(name.get_ref()).ok_or_else(|| {
            locate(
                name.span(),
                key,
                format!(
                    "`{}` is unknown; write one of {}",
                    name.get_ref(),
                    all.join(", ")
                ),
            )
        })?;
        if known.contains(&value) {
            return Err(locate(
                name.span(),
                key,
                format!("`{}` is named twice", name.get_ref()),
            ));
        }
        known.push(value);
    }
    Ok(known)
}
