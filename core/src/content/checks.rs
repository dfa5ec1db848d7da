//! Checks shared by the catalog and reward sections: where an entry is, SKUs, names, labels,
//! amounts and unique ids.

use std::collections::HashMap;
use std::fmt::Display;
use std::hash::Hash;
use std::ops::{Range, RangeInclusive};

use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;
use toml::Spanned;

use super::{ContentError, Locate};
use crate::domain::check_shown_text;

/// The longest label (an item's type or category), in characters.
pub(super) const LABEL_MAX_CHARS: usize = 32;

/// One entry of an array of tables (`items[3]`), named in its errors by what it is
/// ("item `outfit-frostbite`"), so that a message says where and which.
pub(super) struct Entry<'l, 'a> {
    locate: &'l Locate<'a>,
    path: String,
    label: String,
}

impl<'l, 'a> Entry<'l, 'a> {
    /// The entry `index` (counted from 0) of the array `path`, e.g. `items`, `packs[1].drops`.
    pub(super) fn new(locate: &'l Locate<'a>, path: &str, index: usize, label: String) -> Self {
        Self {
            locate,
            path: format!("{path}[{index}]"),
            label,
        }
    }

    /// A table of this entry that is itself an array of entries (`packs[1].drops`).
    pub(super) fn nested(&self, field: &str, index: usize, label: String) -> Self {
        Self::new(self.locate, &self.key(field), index, label)
    }

    /// The full key of one of the entry's fields: `items[3].cost_coins`.
    pub(super) fn key(&self, field: &str) -> String {
        format!("{}.{field}", self.path)
    }

    /// What the entry is, as its errors name it.
    pub(super) fn label(&self) -> &str {
        &self.label
    }

    /// A problem with `field`, whose value is at `span`.
    pub(super) fn error(
        &self,
        span: Range<usize>,
        field: &str,
        problem: impl Display,
    ) -> ContentError {
        (self.locate)(span, &self.key(field), format!("{}: {problem}", self.label))
    }

    /// An integer `field` that must lie in `range`.
    pub(super) fn int<T>(
        &self,
        value: &Spanned<T>,
        field: &str,
        range: RangeInclusive<T>,
    ) -> Result<T, ContentError>
    where
        T: Copy + PartialOrd + Display,
    {
        let number = *value.get_ref();
        if range.contains(&number) {
            Ok(number)
        } else {
            Err(self.error(
                value.span(),
                field,
                format!(
                    "{number} is out of range; write {} to {}",
                    range.start(),
                    range.end()
                ),
            ))
        }
    }

    /// A SKU: 1 to 64 lower-case ASCII letters, digits and dashes, starting with a letter.
    pub(super) fn sku(&self, value: &Spanned<String>, field: &str) -> Result<String, ContentError> {
        let sku = value.get_ref();
        if is_sku(sku) {
            Ok(sku.clone())
        } else {
            Err(self.error(
                value.span(),
                field,
                format!(
                    "`{sku}` is not a SKU; write 1 to 64 lower-case letters, digits and dashes, \
                     starting with a letter (e.g. outfit-frostbite)"
                ),
            ))
        }
    }

    /// A name shown to players: not blank, at most 100 characters.
    pub(super) fn name(
        &self,
        value: &Spanned<String>,
        field: &str,
    ) -> Result<String, ContentError> {
        let name = value.get_ref();
        if name.trim().is_empty() {
            Err(self.error(value.span(), field, "must not be empty"))
        } else if name.chars().count() > 100 {
            Err(self.error(value.span(), field, "is longer than 100 characters"))
        } else {
            Ok(name.clone())
        }
    }

    /// A label that clients show or group by as written (an item's type or category, e.g.
    /// `outfit`, `OutfitSkin`, `Winter Storm`): 1 to [`LABEL_MAX_CHARS`] characters, not blank,
    /// and no control, format or invisible characters.
    pub(super) fn shown_label(
        &self,
        value: &Spanned<String>,
        field: &str,
    ) -> Result<String, ContentError> {
        let label = value.get_ref();
        if label.trim().is_empty() {
            Err(self.error(value.span(), field, "must not be empty"))
        } else if label.chars().count() > LABEL_MAX_CHARS {
            Err(self.error(
                value.span(),
                field,
                format!("`{label}` is longer than {LABEL_MAX_CHARS} characters"),
            ))
        } else if let Err(hidden) = check_shown_text(label) {
            Err(self.error(value.span(), field, hidden))
        } else {
            Ok(label.clone())
        }
    }

    /// A TOML date-time with an offset (`2026-12-31T23:59:59Z`) as a point in time.
    pub(super) fn instant(
        &self,
        value: &Spanned<toml::value::Datetime>,
        field: &str,
    ) -> Result<OffsetDateTime, ContentError> {
        let text = value.get_ref().to_string();
        OffsetDateTime::parse(&text, &Rfc3339).map_err(|_| {
            self.error(
                value.span(),
                field,
                format!("`{text}` needs a date, a time and an offset, e.g. 2026-12-31T23:59:59Z"),
            )
        })
    }
}

/// Whether `text` is a well-formed SKU (see [`Entry::sku`]); also tells an item type written
/// in the SKUs' style (`weapon-skin`), which its SKU starts with.
pub(super) fn is_sku(text: &str) -> bool {
    (1..=64).contains(&text.len())
        && text.starts_with(|c: char| c.is_ascii_lowercase())
        && text
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// Finds values that must be unique within a section (ids, SKUs), remembering who used each.
pub(super) struct Unique<K> {
    what: &'static str,
    seen: HashMap<K, String>,
}

impl<K: Hash + Eq + Display> Unique<K> {
    /// Tracks values named `what` in errors ("id", "sku", "apple_id").
    pub(super) fn new(what: &'static str) -> Self {
        Self {
            what,
            seen: HashMap::new(),
        }
    }

    /// Records that `entry` uses `value` (written at `span` in `field`); an error if another
    /// entry already does.
    pub(super) fn claim(
        &mut self,
        entry: &Entry<'_, '_>,
        span: Range<usize>,
        field: &str,
        value: K,
    ) -> Result<(), ContentError> {
        if let Some(first) = self.seen.get(&value) {
            return Err(entry.error(
                span,
                field,
                format!("{} {value} is already used by {first}", self.what),
            ));
        }
        self.seen.insert(value, entry.label().to_owned());
        Ok(())
    }
}

/// What every catalog entry has: an id and a SKU, each at its place in the file.
pub(super) trait CatalogEntry {
    /// The array of tables the entries are in (`timed_deals`).
    const PATH: &str;
    /// What an entry is, as its errors name it (`timed deal`).
    const KIND: &str;
    /// The entry's `id` as written.
    fn id(&self) -> &Spanned<i64>;
    /// The entry's `sku` as written.
    fn sku(&self) -> &Spanned<String>;
}

/// Implements [`CatalogEntry`] for a section that has the fields `id` and `sku`, written in the
/// array `$path`, each entry a `$kind`.
macro_rules! catalog_entry {
    ($section:ty, $path:literal, $kind:literal) => {
        impl super::checks::CatalogEntry for $section {
            const PATH: &str = $path;
            const KIND: &str = $kind;

            fn id(&self) -> &toml::Spanned<i64> {
                &self.id
            }

            fn sku(&self) -> &toml::Spanned<String> {
                &self.sku
            }
        }
    };
}
pub(super) use catalog_entry;

/// Validates each entry of the array [`CatalogEntry::PATH`] with `validate` (given the entry's
/// span and its [`Entry`], which names it "`KIND` `sku`" in errors), and refuses an id or a SKU
/// that an earlier entry uses.
pub(super) fn validate_entries<S: CatalogEntry, T>(
    sections: Vec<Spanned<S>>,
    locate: &Locate<'_>,
    mut validate: impl FnMut(&S, Range<usize>, &Entry<'_, '_>) -> Result<T, ContentError>,
) -> Result<Vec<T>, ContentError> {
    let mut ids = Unique::new("id");
    let mut skus = Unique::new("sku");
    let mut validated = Vec::with_capacity(sections.len());
    for (index, section) in sections.into_iter().enumerate() {
        let span = section.span();
        let section = section.into_inner();
        let (id, sku) = (section.id(), section.sku());
        let label = format!("{} `{}`", S::KIND, sku.get_ref());
        let entry = Entry::new(locate, S::PATH, index, label);
        let value = validate(&section, span, &entry)?;
        ids.claim(&entry, id.span(), "id", *id.get_ref())?;
        skus.claim(&entry, sku.span(), "sku", sku.get_ref().clone())?;
        validated.push(value);
    }
    Ok(validated)
}

#[cfg(test)]
mod tests {
    use super::is_sku;

    #[test]
    fn skus_are_lower_case_words_with_dashes() {
        for good in ["a", "outfit-frostbite", "weapon-skin-2", "basic-chest"] {
            assert!(is_sku(good), "{good}");
        }
        let too_long = "a".repeat(65);
        for bad in [
            "",
            "Outfit",
            "2-outfit",
            "-a",
            "outfit_frost",
            "outfit frost",
            &too_long,
        ] {
            assert!(!is_sku(bad), "{bad}");
        }
    }
}
