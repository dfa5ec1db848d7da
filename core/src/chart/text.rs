//! Text as SVG holds it, and numbers as a chart writes them.

use std::fmt::Write;

/// `text` escaped for SVG text content and attribute values.
pub(super) fn escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// `value` exactly, its thousands grouped with commas (`-1,234,567`).
pub(super) fn exact(value: i64) -> String {
    let digits = value.unsigned_abs().to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 + 1);
    if value < 0 {
        out.push('-');
    }
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// `value` (at least 0) short, for an axis tick: `950`, `1.5k`, `20k`, `3M`, `1.2G`.
pub(super) fn compact(value: i64) -> String {
    const UNITS: [(i64, &str); 3] = [(1_000_000_000, "G"), (1_000_000, "M"), (1_000, "k")];
    for (size, unit) in UNITS {
        if value >= size {
            let tenths = value / (size / 10);
            let mut out = (tenths / 10).to_string();
            if tenths % 10 != 0 {
                let _ = write!(out, ".{}", tenths % 10);
            }
            out.push_str(unit);
            return out;
        }
    }
    value.to_string()
}

/// A coordinate with one decimal at most (`12`, `12.5`).
pub(super) fn coordinate(value: f64) -> String {
    let tenths = (value * 10.0).round();
    if tenths % 10.0 == 0.0 {
        format!("{}", tenths / 10.0)
    } else {
        format!("{:.1}", tenths / 10.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_characters_are_escaped() {
        assert_eq!(
            escaped("<a href=\"x\">Tom & 'Jerry'</a>\u{7}"),
            "&lt;a href=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/a&gt;"
        );
    }

    #[test]
    fn exact_values_group_thousands() {
        assert_eq!(exact(0), "0");
        assert_eq!(exact(999), "999");
        assert_eq!(exact(1_000), "1,000");
        assert_eq!(exact(-1_234_567), "-1,234,567");
        assert_eq!(exact(i64::MIN), "-9,223,372,036,854,775,808");
    }

    #[test]
    fn ticks_are_short() {
        assert_eq!(compact(950), "950");
        assert_eq!(compact(1_500), "1.5k");
        assert_eq!(compact(20_000), "20k");
        assert_eq!(compact(3_000_000), "3M");
        assert_eq!(compact(1_250_000_000), "1.2G");
    }

    #[test]
    fn coordinates_keep_one_decimal() {
        assert_eq!(coordinate(12.0), "12");
        assert_eq!(coordinate(12.46), "12.5");
        assert_eq!(coordinate(0.04), "0");
    }
}
