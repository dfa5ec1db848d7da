//! The `Content-Security-Policy` of an HTML page: nothing but the page's own inline scripts
//! (allowed by their SHA-256 hash) and the images it names (allowed by their origin), loaded
//! at once (`src`) or by its script (`data-src`); and the API reference page's policy, which
//! allows files of this origin instead ([`REFERENCE_PAGE_POLICY`]).

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use http::HeaderValue;
use sha2::{Digest, Sha256};

/// The policy of the API reference page (`GET /api/docs`): its renderer's scripts and
/// stylesheet, the document and the calls of its "Try it out", all of this origin, and the
/// renderer's icons as `data:` images; no inline script, no other origin; never framed, no
/// forms, no `<base>`.
pub(crate) const REFERENCE_PAGE_POLICY: &str = "default-src 'none'; script-src 'self'; \
     style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; \
     base-uri 'none'; form-action 'none'";

/// The policy for `page`, a page of `pages`: each `<script>` element's text by hash, each
/// `<img src>`'s or `<img data-src>`'s origin, nothing else; never framed, no forms, no `<base>`.
pub(crate) fn page_policy(page: &str) -> HeaderValue {
    let scripts: Vec<String> = between(page, "<script>", "</script>")
        .map(|script| format!("'sha256-{}'", STANDARD.encode(Sha256::digest(script))))
        .collect();
    let images: Vec<&str> = between(page, " src=\"", "\"")
        .chain(between(page, " data-src=\"", "\""))
        .filter_map(origin)
        .collect();
    let mut policy = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; \
                      form-action 'none'"
        .to_owned();
    if !scripts.is_empty() {
        policy.push_str(&format!("; script-src {}", scripts.join(" ")));
    }
    if !images.is_empty() {
        policy.push_str(&format!("; img-src {}", images.join(" ")));
    }
    HeaderValue::from_str(&policy)
        .unwrap_or_else(|_| HeaderValue::from_static("default-src 'none'"))
}

/// The texts between each `open` and the next `close`.
fn between<'a>(text: &'a str, open: &'a str, close: &'a str) -> impl Iterator<Item = &'a str> {
    text.split(open)
        .skip(1)
        .filter_map(move |after| after.split_once(close).map(|(inside, _)| inside))
}

/// `scheme://host[:port]` of an absolute `http(s)` URL (as the pages escape it: no quote).
fn origin(url: &str) -> Option<&str> {
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))?;
    let host_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let origin = &url[..url.len() - rest.len() + host_end];
    origin
        .bytes()
        .all(|byte| byte.is_ascii_alphanumeric() || b":/.-[]".contains(&byte))
        .then_some(origin)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::pages;

    #[test]
    fn a_page_allows_exactly_its_scripts_and_images() {
        let page = pages::login_success_page(
            "{\"status\":\"success\"}",
            &["https://play.example".to_owned()],
            Some(pages::Loopback {
                url: "http://127.0.0.1:7070/login?key=abc&x=1",
                always: false,
            }),
        );
        let policy = page_policy(&page);
        let policy = policy.to_str().unwrap();
        let script = between(&page, "<script>", "</script>").next().unwrap();
        let hash = STANDARD.encode(Sha256::digest(script));
        assert!(
            policy.contains(&format!("script-src 'sha256-{hash}'")),
            "{policy}"
        );
        assert!(policy.contains("img-src http://127.0.0.1:7070"), "{policy}");
        assert!(policy.starts_with("default-src 'none'; frame-ancestors 'none'"));
    }

    #[test]
    fn a_page_without_script_allows_none() {
        let policy = page_policy(&pages::login_error_page("denied"));
        assert!(!policy.to_str().unwrap().contains("script-src"));
        assert_eq!(
            origin("https://a.example:8443/x?y"),
            Some("https://a.example:8443")
        );
        assert_eq!(origin("javascript:alert(1)"), None);
    }
}
