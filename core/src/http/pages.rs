//! The HTML pages: the only answers that are not JSON.

/// Escapes text for an HTML element body or a quoted attribute.
pub fn escape_html(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for character in text.chars() {
        match character {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&#39;"),
            other => escaped.push(other),
        }
    }
    escaped
}

/// A small page with a title, a line of text and an optional inline script.
pub fn page(title: &str, text: &str, script: Option<&str>) -> String {
    let script = script
        .map(|code| format!("<script>{code}</script>"))
        .unwrap_or_default();
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width\"><title>{title}</title></head>\
         <body><p>{text}</p>{script}</body></html>\n",
        title = escape_html(title),
        text = escape_html(text),
    )
}

/// The sign-out page: the server already expired the cookie; the script clears a copy that
/// client code may have written without `HttpOnly`, then closes a popup.
pub fn logout_page() -> String {
    page(
        "Signed out",
        "You are signed out. You can close this window.",
        Some(
            "document.cookie='userKey=; Path=/; Max-Age=0';\
             if (window.opener) { window.close(); }",
        ),
    )
}

/// Serializes `value` as JSON that is safe inside an inline `<script>`: `<`, `>`, `&` and the
/// two JavaScript line separators are written as `\u` escapes, so no text can close the script
/// element or start markup.
pub fn json_for_script<T: serde::Serialize>(value: &T) -> String {
    let json = serde_json::to_string(value).unwrap_or_else(|_| "null".to_owned());
    let mut safe = String::with_capacity(json.len());
    for character in json.chars() {
        match character {
            '<' => safe.push_str("\\u003c"),
            '>' => safe.push_str("\\u003e"),
            '&' => safe.push_str("\\u0026"),
            '\u{2028}' => safe.push_str("\\u2028"),
            '\u{2029}' => safe.push_str("\\u2029"),
            other => safe.push(other),
        }
    }
    safe
}

/// Where the Windows client's loopback listener gets the key: `url` is its address with the
/// key.
#[derive(Debug, Clone, Copy)]
pub struct Loopback<'a> {
    /// The loopback address with `userKey` and `csrf`.
    pub url: &'a str,
    /// Load it whatever the page's opener (the login asked for `client=windows`); otherwise
    /// it is loaded only when the page has no opener, as when the desktop client opened it in
    /// the system browser.
    pub always: bool,
}

/// The page that ends a successful provider login: it posts `message` (a JSON text) to each of
/// `origins` through `window.opener` and closes; without an opener, the `loopback` address
/// (the Windows client's listener, with the key) is loaded instead.
pub fn login_success_page(
    message: &str,
    origins: &[String],
    loopback: Option<Loopback<'_>>,
) -> String {
    let image = loopback
        .map(|Loopback { url, always }| {
            // A deferred address waits in `data-src` until the script finds no opener.
            let attribute = if always { "src" } else { "data-src" };
            format!(
                "<img id=\"loopback\" alt=\"\" width=\"1\" height=\"1\" \
                 {attribute}=\"{}\">",
                escape_html(url)
            )
        })
        .unwrap_or_default();
    let script = format!(
        "var message = {message};\
         var origins = {origins};\
         var loopback = document.getElementById('loopback');\
         if (window.opener) {{\
           origins.forEach(function (origin) {{ window.opener.postMessage(message, origin); }});\
           window.close();\
         }} else if (loopback && loopback.dataset.src) {{\
           loopback.src = loopback.dataset.src;\
         }}",
        message = json_for_script(&message),
        origins = json_for_script(&origins),
    );
    result_page(
        "success",
        "Signed in",
        "You are signed in. You can close this window.",
        &image,
        &script,
    )
}

/// The page that ends a failed provider login, saying why; it carries no key.
pub fn login_error_page(reason: &str) -> String {
    result_page(
        "error",
        "Sign-in failed",
        &format!("Sign-in failed: {reason}"),
        "",
        "",
    )
}

fn result_page(status: &str, title: &str, text: &str, extra: &str, script: &str) -> String {
    let script = if script.is_empty() {
        String::new()
    } else {
        format!("<script>{script}</script>")
    };
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width\"><title>{title}</title></head>\
         <body><main id=\"login-result\" data-status=\"{status}\"><p>{text}</p>{extra}</main>\
         {script}</body></html>\n",
        title = escape_html(title),
        text = escape_html(text),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup() {
        assert_eq!(
            escape_html("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
        assert!(page("<t>", "x", None).contains("&lt;t&gt;"));
    }

    #[test]
    fn script_json_cannot_close_the_script() {
        let hostile = "</script><script>alert(1)</script>&\u{2028}";
        let json = json_for_script(&hostile);
        assert!(!json.contains('<') && !json.contains('>') && !json.contains('&'));
        let back: String = serde_json::from_str(&json).unwrap();
        assert_eq!(back, hostile);
        let page = login_success_page(hostile, &["https://play.example".to_owned()], None);
        assert_eq!(page.matches("<script>").count(), 1);
        assert_eq!(page.matches("</script>").count(), 1);
    }
}
