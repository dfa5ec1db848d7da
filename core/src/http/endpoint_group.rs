//! Endpoint groups: the routes that share a rate limit, named by what they do.

use std::fmt;
use std::str::FromStr;

use http::Method;

/// A set of endpoints that share one rate limit per scope, decided by method and route
/// pattern ([`EndpointGroup::of`]).
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
}

impl EndpointGroup {
    /// Every group, in [`index`](Self::index) order.
    pub const ALL: [Self; 5] = [
        Self::SignIn,
        Self::Purchase,
        Self::Write,
        Self::Read,
        Self::GameServer,
    ];

    /// The group of the endpoint answering `method` on the route `pattern`.
    pub fn of(method: &Method, pattern: &str) -> Self {
        const SIGN_IN: [&str; 3] = ["/api/validate/", "/user/login/", "/user/validate/"];
        const PURCHASE_ENDS: [&str; 5] = [
            "/buy",
            "/skip",
            "/pack/open",
            "/rewards/claim",
            "/friend-code/update",
        ];
        if pattern.starts_with("/internal/") {
            Self::GameServer
        } else if SIGN_IN.iter().any(|prefix| pattern.starts_with(prefix)) {
            Self::SignIn
        } else if method == Method::GET || method == Method::HEAD {
            Self::Read
        } else if pattern.starts_with("/api/shop/")
            || PURCHASE_ENDS.iter().any(|end| pattern.ends_with(end))
        {
            Self::Purchase
        } else {
            Self::Write
        }
    }

    /// The group's name on the command line and in messages (`sign-in`).
    pub fn name(self) -> &'static str {
        match self {
            Self::SignIn => "sign-in",
            Self::Purchase => "purchase",
            Self::Write => "write",
            Self::Read => "read",
            Self::GameServer => "game-server",
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
                    "unknown endpoint group `{text}` (sign-in, purchase, write, read, game-server)"
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_fall_into_their_groups() {
        let cases = [
            (
                Method::POST,
                "/api/validate/device/{deviceId}",
                EndpointGroup::SignIn,
            ),
            (Method::GET, "/user/login/{provider}", EndpointGroup::SignIn),
            (
                Method::POST,
                "/user/validate/{provider}",
                EndpointGroup::SignIn,
            ),
            (
                Method::POST,
                "/api/user/{userKey}/buy",
                EndpointGroup::Purchase,
            ),
            (
                Method::POST,
                "/api/user/{userKey}/pack/open",
                EndpointGroup::Purchase,
            ),
            (
                Method::POST,
                "/api/user/{userKey}/rewards/claim",
                EndpointGroup::Purchase,
            ),
            (
                Method::POST,
                "/api/user/{userKey}/friend-code/update",
                EndpointGroup::Purchase,
            ),
            (
                Method::POST,
                "/api/reward/tracks/{trackId}/skip",
                EndpointGroup::Purchase,
            ),
            (
                Method::POST,
                "/api/reward/tracks/mid-season/buy",
                EndpointGroup::Purchase,
            ),
            (
                Method::POST,
                "/api/shop/engine/handle",
                EndpointGroup::Purchase,
            ),
            (Method::POST, "/api/clan/create", EndpointGroup::Write),
            (Method::GET, "/api/leaderboard", EndpointGroup::Read),
            (Method::HEAD, "/api/shop/available", EndpointGroup::Read),
            (Method::POST, "/internal/matches", EndpointGroup::GameServer),
        ];
        for (method, pattern, group) in cases {
            assert_eq!(
                EndpointGroup::of(&method, pattern),
                group,
                "{method} {pattern}"
            );
        }
    }

    #[test]
    fn names_read_back() {
        for group in EndpointGroup::ALL {
            assert_eq!(group.name().parse::<EndpointGroup>(), Ok(group));
            assert_eq!(EndpointGroup::ALL[group.index()], group);
        }
        assert!("signin".parse::<EndpointGroup>().is_err());
    }
}
