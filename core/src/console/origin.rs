//! Whether a console POST was sent from the console's own pages: the check every form's action
//! (sign-in included) passes before anything else, so that no page elsewhere can make a
//! signed-in browser act, or sign a browser in with a token of its choosing.
//!
//! The browser's own word decides, in this order:
//!
//! 1. `Sec-Fetch-Site` (Fetch Metadata), when sent, must be `same-origin` (or `none`: the
//!    person made the request themselves).
//! 2. `Origin`, when sent, must be this listener's origin: its host and port those of the
//!    request's `Host` (the scheme is not compared: the listener speaks plain HTTP and a proxy
//!    in front may add TLS). `Origin: null` (a sandboxed frame, a data URL, a page whose
//!    referrer policy hides its origin) is refused. The console's pages ask for
//!    `Referrer-Policy: same-origin`, so its own forms send their real origin.
//! 3. Without `Origin` (browsers before they sent it on every POST), `Referer` must be of this
//!    listener's origin in the same way.
//! 4. With none of the three, the request is refused: every browser in use sends `Origin` on a
//!    form's POST, so such a request comes from a program (which should use the operator API)
//!    or from a browser that says nothing of where the form was; nothing vouches for it.
//!    With `Sec-Fetch-Site` alone (its value accepted in 1.), it is accepted.

use http::HeaderMap;
use http::header::{HOST, ORIGIN, REFERER};

/// Why a POST is refused, for the error page; `None` when it came from the console's own
/// pages.
pub(super) fn refusal(headers: &HeaderMap) -> Option<&'static str> {
    let text = |name: &str| headers.get(name).map(|value| value.to_str().unwrap_or(""));
    let site = text("sec-fetch-site");
    if site.is_some_and(|site| site != "same-origin" && site != "none") {
        return Some("the browser says it was sent from another site");
    }
    let Some(host) = text(HOST.as_str()).filter(|host| !host.is_empty()) else {
        return Some("it names no host");
    };
    let ours = |url: &str, whole: bool| {
        authority(url, whole).is_some_and(|at| at.eq_ignore_ascii_case(host))
    };
    match (text(ORIGIN.as_str()), text(REFERER.as_str())) {
        (Some("null"), _) => Some("its origin is hidden (`null`)"),
        (Some(origin), _) if !ours(origin, true) => Some("it was sent from another origin"),
        (Some(_), _) => None,
        (None, Some(referer)) if !ours(referer, false) => {
            Some("it was sent from a page of another origin")
        }
        (None, Some(_)) => None,
        (None, None) if site.is_some() => None,
        (None, None) => Some("the browser did not say where it was sent from"),
    }
}

/// The host and port of an `http` or `https` `url`: the whole of it when `whole` (an origin),
/// or up to its path, query or fragment (a referrer). `None` for another scheme, or an
/// authority with user information.
fn authority(url: &str, whole: bool) -> Option<&str> {
    let (scheme, rest) = url.split_once("://")?;
    if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
        return None;
    }
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    if whole && end != rest.len() {
        return None;
    }
    let authority = &rest[..end];
    (!authority.is_empty() && !authority.contains('@')).then_some(authority)
}

#[cfg(test)]
mod tests {
    use http::HeaderValue;

    use super::*;

    /// The refusal of a POST to `127.0.0.1:8080` with `headers`.
    fn refused(headers: &[(&'static str, &'static str)]) -> bool {
        let mut map = HeaderMap::new();
        map.insert(HOST, HeaderValue::from_static("127.0.0.1:8080"));
        for (name, value) in headers {
            map.insert(*name, HeaderValue::from_static(value));
        }
        refusal(&map).is_some()
    }

    #[test]
    fn only_the_listeners_own_pages_may_post() {
        let ours = "http://127.0.0.1:8080";
        assert!(!refused(&[("origin", ours)]));
        assert!(!refused(&[("origin", "https://127.0.0.1:8080")]));
        assert!(!refused(&[
            ("origin", ours),
            ("sec-fetch-site", "same-origin")
        ]));
        assert!(!refused(&[(
            "referer",
            "http://127.0.0.1:8080/operator/console/"
        )]));
        assert!(!refused(&[("referer", "http://127.0.0.1:8080?x")]));
        assert!(!refused(&[("sec-fetch-site", "same-origin")]));
        assert!(!refused(&[("sec-fetch-site", "none"), ("origin", ours)]));

        assert!(refused(&[]), "nothing says where it came from");
        assert!(refused(&[("origin", "http://evil.example")]));
        assert!(refused(&[("origin", "null")]));
        assert!(refused(&[
            ("origin", "null"),
            ("sec-fetch-site", "same-origin")
        ]));
        assert!(refused(&[("origin", "http://127.0.0.1:8081")]));
        assert!(refused(&[("origin", "http://127.0.0.1:8080/")]));
        assert!(refused(&[("origin", "http://x@127.0.0.1:8080")]));
        assert!(refused(&[("origin", "ftp://127.0.0.1:8080")]));
        assert!(refused(&[(
            "referer",
            "http://evil.example/operator/console/"
        )]));
        assert!(refused(&[(
            "referer",
            "http://127.0.0.1:8080.evil.example/"
        )]));
        assert!(refused(&[
            ("origin", ours),
            ("sec-fetch-site", "cross-site")
        ]));
        assert!(refused(&[
            ("origin", ours),
            ("sec-fetch-site", "same-site")
        ]));
        assert!(refused(&[
            ("origin", "http://evil.example"),
            ("referer", ours)
        ]));

        let mut no_host = HeaderMap::new();
        no_host.insert(ORIGIN, HeaderValue::from_static(ours));
        assert!(refusal(&no_host).is_some());
    }
}
