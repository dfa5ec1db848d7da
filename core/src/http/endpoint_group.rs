//! Endpoint groups: the routes that share a rate limit, named by what they do.

use std::fmt;
use std::str::FromStr;

/// A set of endpoints that share one rate limit per scope; each endpoint's declaration names
/// its group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EndpointGroup {
    /// Signing in: `/api/validate/*`, `/user/login/*`, `/user/validate/*` (the strictest).
    SignIn,
    /// Spending and claiming: buy, pack open, reward claims, track buy and skip, friend-code
    /// update, purchase receipts (`/api/shop/*` posts).
    Purchase,
    /// Every other POST.
    Write,
    /// GET and HEAD.
    Read,
    /// The game servers' match reports (`/internal/*`).
    GameServer,
    /// Opening a realtime channel (`GET /api/realtime`).
    Realtime,
}

impl EndpointGroup {
    /// Every group, in [`index`](Self::index) order.
    pub const ALL: [Self; 6] = [
        Self::SignIn,
        Self::Purchase,
        Self::Write,
        Self::Read,
        Self::GameServer,
        Self::Realtime,
    ];

    /// The group's name on the command line and in messages (`sign-in`).
    pub fn name(self) -> &'static str {
        match self {
            Self::SignIn => "sign-in",
            Self::Purchase => "purchase",
            Self::Write => "write",
            Self::Read => "read",
            Self::GameServer => "game-server",
            Self::Realtime => "realtime",
        }
    }

    /// The group's position in [`ALL`](Self::ALL).
    pub fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for EndpointGroup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for EndpointGroup {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        Self::ALL
            .into_iter()
            .find(|group| group.name() == text)
            .ok_or_else(|| {
                format!(
                    "unknown endpoint group `{text}` (sign-in, purchase, write, read, game-server, realtime)"
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back() {
        for group in EndpointGroup::ALL {
            assert_eq!(group.name().parse::<EndpointGroup>(), Ok(group));
            assert_eq!(EndpointGroup::ALL[group.index()], group);
        }
        assert!("signin".parse::<EndpointGroup>().is_err());
    }
}
