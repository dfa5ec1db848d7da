//! A value of an API answer shown as text, whatever its JSON type: what the console's views
//! use for fields it only displays (ids, dates, counts), so that a string or a number reads
//! the same and a shape the console does not know is still shown.

use std::fmt;

use serde::Deserialize;
use serde_json::Value;

/// A JSON value, displayed for a person: text as it is, nothing for `null`, lists and objects
/// as `a, b` and `key: value, ...`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(transparent)]
pub(super) struct Shown(Value);

impl fmt::Display for Shown {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_value(formatter, &self.0)
    }
}

/// Writes `value` for a person.
fn write_value(formatter: &mut fmt::Formatter<'_>, value: &Value) -> fmt::Result {
    match value {
        Value::Null => Ok(()),
        Value::String(text) => formatter.write_str(text),
        Value::Bool(yes) => formatter.write_str(if *yes { "yes" } else { "no" }),
        Value::Number(number) => write!(formatter, "{number}"),
        Value::Array(items) => {
            for (at, item) in items.iter().enumerate() {
                if at > 0 {
                    formatter.write_str(", ")?;
                }
                write_value(formatter, item)?;
            }
            Ok(())
        }
        Value::Object(fields) => {
            for (at, (name, field)) in fields.iter().enumerate() {
                if at > 0 {
                    formatter.write_str(", ")?;
                }
                write!(formatter, "{name}: ")?;
                write_value(formatter, field)?;
            }
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn any_json_reads_as_text() {
        let shown = |value| Shown(value).to_string();
        assert_eq!(shown(json!("x")), "x");
        assert_eq!(shown(json!(12)), "12");
        assert_eq!(shown(json!(null)), "");
        assert_eq!(shown(json!(true)), "yes");
        assert_eq!(shown(json!(["a", 2])), "a, 2");
        assert_eq!(shown(json!({"rank": 1})), "rank: 1");
    }
}
