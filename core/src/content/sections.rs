//! The content file's sections as read before validation, each on its own: a file whose
//! sections do not all read (a wrong type, a missing or unknown key) is read again section by
//! section, so that one section's problem does not hide another's.

use serde::Deserialize;
use serde::de::IgnoredAny;
use toml::Spanned;

use super::{ContentError, client, deals, extras, friend_code, iaps, items, packs};
use super::{modes, progression, quests, reward_types, tracks};

/// The file as written, before validation, when it reads whole.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ContentFile {
    client: client::ClientSection,
    #[serde(default)]
    extras: extras::ExtrasSection,
    #[serde(default)]
    items: Vec<Spanned<items::ItemSection>>,
    #[serde(default)]
    packs: Vec<Spanned<packs::PackSection>>,
    #[serde(default)]
    timed_deals: Vec<Spanned<deals::DealSection>>,
    #[serde(default)]
    iaps: Vec<Spanned<iaps::IapSection>>,
    #[serde(default)]
    reward_types: Vec<Spanned<reward_types::RewardTypeSection>>,
    friend_code: friend_code::FriendCodeSection,
    progression: progression::ProgressionSection,
    #[serde(default)]
    quests: quests::QuestsSection,
    #[serde(default)]
    tracks: Vec<Spanned<tracks::TrackSection>>,
    #[serde(default)]
    modes: Vec<Spanned<modes::ModeSection>>,
    boards: Option<modes::BoardsSection>,
}

/// The file's top-level keys: those [`ContentFile`] knows, whatever their values.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code, reason = "read only to refuse unknown keys")]
struct Keys {
    #[serde(default)]
    client: IgnoredAny,
    #[serde(default)]
    extras: IgnoredAny,
    #[serde(default)]
    items: IgnoredAny,
    #[serde(default)]
    packs: IgnoredAny,
    #[serde(default)]
    timed_deals: IgnoredAny,
    #[serde(default)]
    iaps: IgnoredAny,
    #[serde(default)]
    reward_types: IgnoredAny,
    #[serde(default)]
    friend_code: IgnoredAny,
    #[serde(default)]
    progression: IgnoredAny,
    #[serde(default)]
    quests: IgnoredAny,
    #[serde(default)]
    tracks: IgnoredAny,
    #[serde(default)]
    modes: IgnoredAny,
    #[serde(default)]
    boards: IgnoredAny,
}

/// Each section as read, or `None` when it did not read (its problem is among the problems
/// answered with it).
pub(super) struct Sections {
    pub client: Option<client::ClientSection>,
    pub extras: Option<extras::ExtrasSection>,
    pub items: Option<Vec<Spanned<items::ItemSection>>>,
    pub packs: Option<Vec<Spanned<packs::PackSection>>>,
    pub timed_deals: Option<Vec<Spanned<deals::DealSection>>>,
    pub iaps: Option<Vec<Spanned<iaps::IapSection>>>,
    pub reward_types: Option<Vec<Spanned<reward_types::RewardTypeSection>>>,
    pub friend_code: Option<friend_code::FriendCodeSection>,
    pub progression: Option<progression::ProgressionSection>,
    pub quests: Option<quests::QuestsSection>,
    pub tracks: Option<Vec<Spanned<tracks::TrackSection>>>,
    pub modes: Option<Vec<Spanned<modes::ModeSection>>>,
    /// `[boards]`: `Some(None)` when left out.
    pub boards: Option<Option<modes::BoardsSection>>,
}

/// Reads one section of `$text` on its own (the other keys are ignored), as `$ty`, defaulting
/// when absent unless the section is `required`; its problem goes to `$problems`.
macro_rules! section {
    ($text:expr, $origin:expr, $problems:expr, $field:ident: $ty:ty) => {{
        #[derive(Deserialize)]
        struct Only {
            #[serde(default)]
            $field: $ty,
        }
        read_one::<Only>($text, $origin, $problems).map(|only| only.$field)
    }};
    ($text:expr, $origin:expr, $problems:expr, $field:ident: $ty:ty, required) => {{
        #[derive(Deserialize)]
        struct Only {
            $field: $ty,
        }
        read_one::<Only>($text, $origin, $problems).map(|only| only.$field)
    }};
}

/// `text` read as `T`, or `None` with its problem added to `problems`.
fn read_one<T: for<'de> Deserialize<'de>>(
    text: &str,
    origin: &str,
    problems: &mut Vec<ContentError>,
) -> Option<T> {
    toml::from_str::<T>(text)
        .map_err(|error| problems.push(ContentError::syntax(origin, text, &error)))
        .ok()
}

/// Reads `text` (named `origin` in its problems): every section, and the problems of those
/// that do not read. A file that is not TOML at all has that one problem.
pub(super) fn read(text: &str, origin: &str) -> (Sections, Vec<ContentError>) {
    let whole = match toml::from_str::<ContentFile>(text) {
        Ok(file) => return (Sections::from(file), Vec::new()),
        Err(error) => ContentError::syntax(origin, text, &error),
    };
    let mut problems = Vec::new();
    if toml::from_str::<toml::Table>(text).is_err() {
        return (Sections::none(), vec![whole]);
    }
    let p = &mut problems;
    read_one::<Keys>(text, origin, p);
    let sections = Sections {
        client: section!(text, origin, p, client: client::ClientSection, required),
        extras: section!(text, origin, p, extras: extras::ExtrasSection),
        items: section!(text, origin, p, items: Vec<Spanned<items::ItemSection>>),
        packs: section!(text, origin, p, packs: Vec<Spanned<packs::PackSection>>),
        timed_deals: section!(text, origin, p, timed_deals: Vec<Spanned<deals::DealSection>>),
        iaps: section!(text, origin, p, iaps: Vec<Spanned<iaps::IapSection>>),
        reward_types: section!(
            text,
            origin,
            p,
            reward_types: Vec<Spanned<reward_types::RewardTypeSection>>
        ),
        friend_code: section!(
            text,
            origin,
            p,
            friend_code: friend_code::FriendCodeSection,
            required
        ),
        progression: section!(
            text,
            origin,
            p,
            progression: progression::ProgressionSection,
            required
        ),
        quests: section!(text, origin, p, quests: quests::QuestsSection),
        tracks: section!(text, origin, p, tracks: Vec<Spanned<tracks::TrackSection>>),
        modes: section!(text, origin, p, modes: Vec<Spanned<modes::ModeSection>>),
        boards: section!(text, origin, p, boards: Option<modes::BoardsSection>),
    };
    // Whatever failed the whole read is among the sections' problems; should it not be, the
    // whole read's own problem still refuses the file.
    if problems.is_empty() {
        problems.push(whole);
    }
    (sections, problems)
}

impl Sections {
    /// No section read.
    fn none() -> Self {
        Self {
            client: None,
            extras: None,
            items: None,
            packs: None,
            timed_deals: None,
            iaps: None,
            reward_types: None,
            friend_code: None,
            progression: None,
            quests: None,
            tracks: None,
            modes: None,
            boards: None,
        }
    }
}

impl From<ContentFile> for Sections {
    fn from(file: ContentFile) -> Self {
        Self {
            client: Some(file.client),
            extras: Some(file.extras),
            items: Some(file.items),
            packs: Some(file.packs),
            timed_deals: Some(file.timed_deals),
            iaps: Some(file.iaps),
            reward_types: Some(file.reward_types),
            friend_code: Some(file.friend_code),
            progression: Some(file.progression),
            quests: Some(file.quests),
            tracks: Some(file.tracks),
            modes: Some(file.modes),
            boards: Some(file.boards),
        }
    }
}
