//! Client versions, compared part by part.

use std::cmp::Ordering;
use std::fmt;

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
#[derive(Debug, Clone, Copy)]
pub struct ClientVersion {
    parts: [u32; 4],
    len: usize,
}

impl ClientVersion {
    /// Parses one to four dot-separated decimal numbers.
    pub fn parse(text: &str) -> Option<Self> {
        let mut parts = [0u32; 4];
        let mut len = 0;
        for piece in text.split('.') {
            if len == parts.len() || piece.is_empty() || !piece.bytes().all(|b| b.is_ascii_digit())
            {
                return None;
            }
            parts[len] = piece.parse().ok()?;
            len += 1;
        }
        Some(Self { parts, len })
    }
}

impl PartialEq for ClientVersion {
    fn eq(&self, other: &Self) -> bool {
        self.parts == other.parts
    }
}

impl Eq for ClientVersion {}

impl PartialOrd for ClientVersion {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for ClientVersion {
    fn cmp(&self, other: &Self) -> Ordering {
        self.parts.cmp(&other.parts)
    }
}

impl fmt::Display for ClientVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown: Vec<String> = self.parts[..self.len].iter().map(u32::to_string).collect();
        f.write_str(&shown.join("."))
    }
}
