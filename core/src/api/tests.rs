//! The declarations: each route's rate-limit group, and the tournament codes they reserve.

use http::Method;

use super::endpoint::method;
use super::{api_segments, endpoints, tournament_code};
use crate::http::EndpointGroup;

/// The group declared for `method` on `pattern` (HEAD is served, and counted, as GET).
fn declared_group(wanted: &Method, pattern: &str) -> Option<EndpointGroup> {
    let wanted = if wanted == Method::HEAD {
        &Method::GET
    } else {
        wanted
    };
    endpoints()
        .into_iter()
        .find(|endpoint| {
            endpoint.path == pattern && endpoint.methods.iter().any(|m| method(m) == wanted)
        })
        .map(|endpoint| endpoint.group)
}

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
            declared_group(&method, pattern),
            Some(group),
            "{method} {pattern}"
        );
    }
}

#[test]
fn tournament_codes_may_not_be_a_first_segment_of_the_api() {
    let segments = api_segments();
    for segment in [
        "clan",
        "config",
        "leaderboard",
        "metrics",
        "poll",
        "profile",
        "quest",
        "reward",
        "shop",
        "tournament",
        "user",
        "validate",
    ] {
        assert!(segments.contains(segment), "{segment}");
    }
    assert!(!segments.iter().any(|segment| segment.starts_with('{')));
    assert!(tournament_code("user").is_err());
    assert!(tournament_code("User").is_err());
    assert_eq!(
        tournament_code("Spring-Cup").map(|code| code.to_string()),
        Ok("spring-cup".to_owned())
    );
}
