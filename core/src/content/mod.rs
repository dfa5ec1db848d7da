//! The content file: the human-edited catalog and rules (for now: the client configuration),
//! loaded and validated once at start-up.
//!
//! It is TOML. Loading rejects unknown keys, wrong types and bad values with a message that names
//! the file, the line and the problem.

mod client;
mod error;
mod extras;

pub use client::ClientConfig;
pub use error::ContentError;
pub use extras::{
    AbTest, Announcement, Extras, LimitedEvent, PatchNote, PatchNotes, SeasonPreview,
};

use std::path::Path;

use serde::Deserialize;

/// The shipped default content file.
pub const SHIPPED: &str = include_str!("../../content/safezone.toml");

/// Everything the game designers decide, validated.
#[derive(Debug, Clone)]
pub struct Content {
    /// What `GET /api/config` tells clients.
    pub client: ClientConfig,
    /// The optional extras of `GET /api/config`.
    pub extras: Extras,
}

/// The file as written, before validation.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ContentFile {
    client: client::ClientSection,
    #[serde(default)]
    extras: extras::ExtrasSection,
}

impl Content {
    /// The content file that ships with Safezone.
    ///
    /// # Panics
    /// Never for a released build: a test loads the shipped file.
    pub fn shipped() -> Self {
        match Self::parse(SHIPPED, "shipped content") {
            Ok(content) => content,
            Err(error) => panic!("{error}"),
        }
    }

    /// Reads and validates the content file at `path`.
    pub fn load(path: &Path) -> Result<Self, ContentError> {
        let origin = path.display().to_string();
        let text = std::fs::read_to_string(path)
            .map_err(|error| ContentError::unreadable(&origin, &error))?;
        Self::parse(&text, &origin)
    }

    /// Validates content text; `origin` names it in errors (a path, or "shipped content").
    pub fn parse(text: &str, origin: &str) -> Result<Self, ContentError> {
        let file: ContentFile =
            toml::from_str(text).map_err(|error| ContentError::syntax(origin, text, &error))?;
        let locate = |span: std::ops::Range<usize>, key: &str, problem: String| {
            ContentError::at(origin, text, span, key, problem)
        };
        Ok(Self {
            client: file.client.validate(&locate)?,
            extras: file.extras.validate(&locate)?,
        })
    }
}

/// Turns a spanned problem into a [`ContentError`]; given to each section's validation.
pub(crate) type Locate<'a> = dyn Fn(std::ops::Range<usize>, &str, String) -> ContentError + 'a;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_content_is_valid() {
        let content = Content::parse(SHIPPED, "shipped").unwrap();
        assert!(!content.client.regions.is_empty());
    }

    #[test]
    fn errors_name_line_and_key() {
        let text = SHIPPED.replacen("android = \"2.7.5\"", "android = \"2.x\"", 1);
        let error = Content::parse(&text, "test.toml").unwrap_err().to_string();
        assert!(error.contains("test.toml"), "{error}");
        assert!(error.contains("client.minimum_version.android"), "{error}");
        assert!(error.contains("line "), "{error}");
    }

    #[test]
    fn unknown_keys_are_errors() {
        let text = SHIPPED.replacen("[client]", "[client]\nmaintenence = true", 1);
        let error = Content::parse(&text, "test.toml").unwrap_err().to_string();
        assert!(error.contains("maintenence"), "{error}");
        assert!(error.contains("line "), "{error}");
    }
}
