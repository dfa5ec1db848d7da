//! The client platforms.

use std::fmt;

/// A client platform, as the `platform` parameter names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Platform {
    /// The browser client.
    Web,
    /// The Windows desktop client.
    Windows,
    /// The Android app.
    Android,
    /// The iOS app.
    Ios,
}

impl Platform {
    /// Every platform, in the order of the spec.
    pub const ALL: [Self; 4] = [Self::Web, Self::Windows, Self::Android, Self::Ios];

    /// Reads a platform name (`web`, `windows`, `android`, `ios`); case matters.
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.as_str() == text)
    }

    /// The platform's wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Web => "web",
            Self::Windows => "windows",
            Self::Android => "android",
            Self::Ios => "ios",
        }
    }

    /// Whether device accounts may be used from this platform (only the mobile apps).
    pub fn allows_device_accounts(self) -> bool {
        matches!(self, Self::Android | Self::Ios)
    }
}

impl fmt::Display for Platform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
