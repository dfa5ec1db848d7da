//! Which client `x-request-id` a request keeps: one that is short visible ASCII (1 to
//! [`LONGEST_CLIENT_ID`] characters from `!` to `~`), fit to go into every log line of the
//! request and back in its answer. Any other (too long, with spaces, control or non-ASCII
//! bytes, or sent more than once) is dropped, and the request-id layer makes a fresh one.

use http::header::HeaderName;
use http::{HeaderValue, Request};

/// The header that carries the request id.
const X_REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// The longest client request id kept, in characters.
pub(crate) const LONGEST_CLIENT_ID: usize = 64;

/// `request` without its client's `x-request-id` unless that is one id fit to keep.
pub(crate) fn without_unfit_client_id<B>(mut request: Request<B>) -> Request<B> {
    let headers = request.headers_mut();
    let mut ids = headers.get_all(&X_REQUEST_ID).iter();
    let keep = match (ids.next(), ids.next()) {
        (None, _) => return request,
        (Some(only), None) => is_fit(only),
        (Some(_), Some(_)) => false,
    };
    if !keep {
        headers.remove(&X_REQUEST_ID);
    }
    request
}

/// Whether `id` is 1 to [`LONGEST_CLIENT_ID`] visible ASCII characters (0x21 to 0x7E).
fn is_fit(id: &HeaderValue) -> bool {
    let bytes = id.as_bytes();
    (1..=LONGEST_CLIENT_ID).contains(&bytes.len())
        && bytes.iter().all(|byte| (0x21..=0x7e).contains(byte))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ids left after filtering a request that sent `ids`.
    fn kept(ids: &[&[u8]]) -> Vec<Vec<u8>> {
        let mut request = Request::new(());
        for id in ids {
            request.headers_mut().append(
                X_REQUEST_ID,
                HeaderValue::from_bytes(id).expect("a header value"),
            );
        }
        without_unfit_client_id(request)
            .headers()
            .get_all(X_REQUEST_ID)
            .iter()
            .map(|value| value.as_bytes().to_vec())
            .collect()
    }

    #[test]
    fn short_visible_ascii_is_kept() {
        let longest = "~".repeat(LONGEST_CLIENT_ID);
        for id in [
            "abc-123",
            "!",
            longest.as_str(),
            "f9e8d7c6-0000-4abc-8def-0123456789ab",
        ] {
            assert_eq!(kept(&[id.as_bytes()]), [id.as_bytes()], "{id}");
        }
        assert!(kept(&[]).is_empty());
    }

    #[test]
    fn anything_else_is_dropped() {
        let too_long = "a".repeat(LONGEST_CLIENT_ID + 1);
        let three_kilobytes = "b".repeat(3000);
        let unfit: [&[u8]; 6] = [
            b"",
            b"abc def",
            b"abc\tdef",
            "caf\u{e9}".as_bytes(),
            too_long.as_bytes(),
            three_kilobytes.as_bytes(),
        ];
        for id in unfit {
            assert!(kept(&[id]).is_empty(), "{id:?}");
        }
        assert!(kept(&[b"one", b"two"]).is_empty());
    }
}
