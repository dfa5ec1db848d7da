//! Client versions, compared part by part.

/// A dotted numeric version such as `1.4.2` (one to four parts). Missing parts count as zero,
/// so `1.4` equals `1.4.0`.
///
/// ```
/// use safezone_core::domain::ClientVersion;
/// let old = ClientVersion::parse("1.9.3").unwrap();
/// let new = ClientVersion::parse("1.10").unwrap();
/// assert!(old < new);
/// assert!(ClientVersion::parse("1.x").is_none());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct ClientVersion {
    /// The parts, missing ones zero; compared left to right.
    parts: [u32; 4],
}

impl ClientVersion {
    /// Parses one to four dot-separated decimal numbers.
    pub fn parse(text: &str) -> Option<Self> {
        let mut parts = [0u32; 4];
        for (index, piece) in text.split('.').enumerate() {
            let slot = parts.get_mut(index)?;
            if piece.is_empty() || !piece.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            *slot = piece.parse().ok()?;
        }
        Some(Self { parts })
    }
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
}
