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
}
