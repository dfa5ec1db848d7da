//! The cookies Safezone reads and clears.

use http::HeaderMap;

/// The cookie in which the web client keeps its user key.
pub const USER_KEY_COOKIE: &str = "userKey";

/// The cookie that binds a login flow's csrf value to the browser.
pub const LOGIN_STATE_COOKIE: &str = "safezone_login";

/// The path of [`LOGIN_STATE_COOKIE`]: it travels only to the login, validate and logout pages.
pub const LOGIN_STATE_PATH: &str = "/user";

/// The value of the first cookie named `name` in the request's `Cookie` headers.
pub fn read(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(http::header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|line| line.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(key, _)| *key == name)
        .map(|(_, value)| value.trim_matches('"').to_owned())
}

/// A `Set-Cookie` value that makes the browser forget the cookie `name` of `path`.
pub fn expire(name: &str, path: &str) -> String {
    format!("{name}=; Path={path}; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; SameSite=Lax")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_among_several() {
        let mut headers = HeaderMap::new();
        headers.append(http::header::COOKIE, "a=1; userKey=abc".parse().unwrap());
        headers.append(http::header::COOKIE, "b=2".parse().unwrap());
        assert_eq!(read(&headers, USER_KEY_COOKIE).as_deref(), Some("abc"));
        assert_eq!(read(&headers, "b").as_deref(), Some("2"));
        assert_eq!(read(&headers, "c"), None);
    }
}
