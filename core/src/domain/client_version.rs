//! Client versions, compared part by part.

/// A dotted numeric version such as `1.4.2` (one to four parts). Missing parts count as zero,
/// so `1.4` equals `1.4.0`. A pre-release or build suffix (`4.7.0b1`, `4.7.0-beta.2`,
/// `4.7.0+42`) is read by its numeric part.
///
/// ```
/// use safezone_core::domain::ClientVersion;
/// let old = ClientVersion::parse("1.9.3").unwrap();
/// let new = ClientVersion::parse("1.10").unwrap();
/// assert!(old < new);
/// assert_eq!(ClientVersion::parse("4.7.0-beta.2"), ClientVersion::parse("4.7"));
/// assert!(ClientVersion::parse("1.x").is_none());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct ClientVersion {
    /// The parts, missing ones zero; compared left to right.
    parts: [u32; 4],
}

impl ClientVersion {
    /// Parses one to four dot-separated decimal numbers, optionally followed by a suffix that
    /// starts with a letter, `-`, `+` or `~`, holds only visible ASCII and at least one
    /// letter or digit.
    pub fn parse(text: &str) -> Option<Self> {
        let numeric_end = text
            .find(|c: char| !c.is_ascii_digit() && c != '.')
            .unwrap_or(text.len());
        let (numeric, suffix) = text.split_at(numeric_end);
        if !is_suffix(suffix) {
            return None;
        }
        let mut parts = [0u32; 4];
        for (index, piece) in numeric.split('.').enumerate() {
            let slot = parts.get_mut(index)?;
            if piece.is_empty() || !piece.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            *slot = piece.parse().ok()?;
        }
        Some(Self { parts })
    }
}

/// Whether `suffix` may follow a version's numbers: empty, or a pre-release or build label.
fn is_suffix(suffix: &str) -> bool {
    let Some(first) = suffix.chars().next() else {
        return true;
    };
    (first.is_ascii_alphabetic() || matches!(first, '-' | '+' | '~'))
        && suffix.bytes().all(|b| b.is_ascii_graphic())
        && suffix.bytes().any(|b| b.is_ascii_alphanumeric())
}

#[cfg(test)]
mod tests {
    use super::ClientVersion;

    #[test]
    fn missing_parts_are_zero_and_five_parts_are_refused() {
        assert_eq!(ClientVersion::parse("1.4"), ClientVersion::parse("1.4.0.0"));
        assert!(ClientVersion::parse("2.7.4") < ClientVersion::parse("2.7.5"));
        assert!(ClientVersion::parse("1.2.3.4").is_some());
        assert!(ClientVersion::parse("1.2.3.4.5").is_none());
        assert!(ClientVersion::parse("1..2").is_none());
        assert!(ClientVersion::parse("").is_none());
        assert!(ClientVersion::parse("1.+2").is_none());
        assert!(ClientVersion::parse("99999999999").is_none());
    }

    #[test]
    fn a_pre_release_or_build_suffix_is_read_by_its_numbers() {
        let plain = ClientVersion::parse("4.7.0");
        for text in [
            "4.7.0b1",
            "4.7.0-beta.2",
            "4.7.0+build.5",
            "4.7.0rc1",
            "4.7-alpha",
            "4.7.0~1",
        ] {
            assert_eq!(ClientVersion::parse(text), plain, "{text}");
        }
        for text in [
            "beta",
            "4.7.0 beta",
            "4.7.0.b1",
            "4.7.0-",
            "4.7.0-bé",
            "-1",
            "4.7..0b",
        ] {
            assert!(ClientVersion::parse(text).is_none(), "{text}");
        }
    }
}
