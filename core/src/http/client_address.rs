//! The client's address: the peer the adapter saw, or the right-most `X-Forwarded-For` entry
//! when the operator trusts the proxy in front.

use std::net::IpAddr;

use http::{Extensions, HeaderMap};

/// The address of the peer that opened the connection, put in the request's extensions by
/// the server adapter. A request without one (an in-process call) has no address limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientAddress(pub IpAddr);

/// The address a request is counted against: with `trust_forwarded_for`, the right-most
/// `X-Forwarded-For` entry (the one the trusted proxy added; entries to its left are the
/// client's own words), else, or when that entry is not an address, the peer's.
pub(crate) fn client_address(
    headers: &HeaderMap,
    extensions: &Extensions,
    trust_forwarded_for: bool,
) -> Option<IpAddr> {
    let forwarded = trust_forwarded_for
        .then(|| right_most_forwarded(headers))
        .flatten();
    forwarded.or_else(|| extensions.get::<ClientAddress>().map(|address| address.0))
}

/// The last entry of the last `X-Forwarded-For` header, if it is an address.
fn right_most_forwarded(headers: &HeaderMap) -> Option<IpAddr> {
    let last_header = headers.get_all("x-forwarded-for").iter().next_back()?;
    let last_entry = last_header.to_str().ok()?.rsplit(',').next()?;
    last_entry.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(values: &[&str]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for value in values {
            headers.append("x-forwarded-for", value.parse().unwrap());
        }
        headers
    }

    fn peer(address: &str) -> Extensions {
        let mut extensions = Extensions::new();
        extensions.insert(ClientAddress(address.parse().unwrap()));
        extensions
    }

    #[test]
    fn the_peer_unless_the_proxy_is_trusted() {
        let forwarded = headers(&["203.0.113.9, 198.51.100.7"]);
        let extensions = peer("10.0.0.1");
        assert_eq!(
            client_address(&forwarded, &extensions, false),
            Some("10.0.0.1".parse().unwrap())
        );
        assert_eq!(
            client_address(&forwarded, &extensions, true),
            Some("198.51.100.7".parse().unwrap())
        );
    }

    #[test]
    fn the_right_most_entry_of_the_last_header() {
        let forwarded = headers(&["1.1.1.1", "2001:db8::1 , 2.2.2.2"]);
        assert_eq!(
            client_address(&forwarded, &Extensions::new(), true),
            Some("2.2.2.2".parse().unwrap())
        );
    }

    #[test]
    fn a_bad_entry_falls_back_to_the_peer() {
        let forwarded = headers(&["1.1.1.1, unknown"]);
        assert_eq!(
            client_address(&forwarded, &peer("10.0.0.1"), true),
            Some("10.0.0.1".parse().unwrap())
        );
        assert_eq!(
            client_address(&HeaderMap::new(), &Extensions::new(), true),
            None
        );
    }
}
