//! A form's fields as the JSON body of an operator API call. The console only reshapes what
//! was typed (a number field as a number, a list as a list); whether it is acceptable is the
//! API's to say: a value that does not read as a number is sent as typed, and the API's
//! refusal is what the operator sees.

use serde_json::{Map, Value};
use time::PrimitiveDateTime;
use time::format_description::well_known::Rfc3339;
use time::macros::format_description;

use crate::http::Query;

/// The JSON body being built from one form.
pub(super) struct Body<'a> {
    form: &'a Query,
    json: Map<String, Value>,
}

impl<'a> Body<'a> {
    /// An empty body over the fields of `form`.
    pub fn new(form: &'a Query) -> Self {
        Self {
            form,
            json: Map::new(),
        }
    }

    /// The field `name`, trimmed, when it is not blank.
    fn field(&self, name: &str) -> Option<&'a str> {
        self.form
            .optional(name)
            .map(str::trim)
            .filter(|text| !text.is_empty())
    }

    /// `name` as text, when given.
    pub fn text(mut self, name: &str) -> Self {
        if let Some(text) = self.field(name) {
            self.json.insert(name.to_owned(), Value::from(text));
        }
        self
    }

    /// `name` as a whole number, when given (as typed when it is not one).
    pub fn number(mut self, name: &str) -> Self {
        if let Some(text) = self.field(name) {
            let value = text
                .parse::<i64>()
                .map_or_else(|_| Value::from(text), Value::from);
            self.json.insert(name.to_owned(), value);
        }
        self
    }

    /// `name` as a time, when given: a browser's `datetime-local` value (`2026-12-01T12:00`,
    /// seconds optional) read as UTC and sent as RFC 3339 (`2026-12-01T12:00:00Z`); anything
    /// else as typed.
    pub fn time(mut self, name: &str) -> Self {
        if let Some(text) = self.field(name) {
            self.json
                .insert(name.to_owned(), Value::from(rfc3339(text)));
        }
        self
    }

    /// `name` as `true` or `false` (a select's `true` and `false`), when given (as typed when
    /// it is neither).
    pub fn flag(mut self, name: &str) -> Self {
        if let Some(text) = self.field(name) {
            let value = match text {
                "true" => Value::Bool(true),
                "false" => Value::Bool(false),
                other => Value::from(other),
            };
            self.json.insert(name.to_owned(), value);
        }
        self
    }

    /// `name` as a list of words (separated by commas, spaces or lines), when any is given.
    pub fn list(mut self, name: &str) -> Self {
        let words: Vec<Value> = self
            .field(name)
            .unwrap_or_default()
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|word| !word.is_empty())
            .map(Value::from)
            .collect();
        if !words.is_empty() {
            self.json.insert(name.to_owned(), Value::Array(words));
        }
        self
    }

    /// `name` as the value `value`, whatever the form says.
    pub fn set(mut self, name: &str, value: impl Into<Value>) -> Self {
        self.json.insert(name.to_owned(), value.into());
        self
    }

    /// The operator's `reason`, always sent (blank when not given: the API requires one).
    pub fn reason(self) -> Self {
        let reason = self.field("reason").unwrap_or_default();
        self.set("reason", reason)
    }

    /// The body.
    pub fn build(self) -> Value {
        Value::Object(self.json)
    }
}

/// A `datetime-local` value as RFC 3339 in UTC; any other text as it is.
pub(super) fn rfc3339(text: &str) -> String {
    let minutes = format_description!("[year]-[month]-[day]T[hour]:[minute]");
    let seconds = format_description!("[year]-[month]-[day]T[hour]:[minute]:[second]");
    PrimitiveDateTime::parse(text, minutes)
        .or_else(|_| PrimitiveDateTime::parse(text, seconds))
        .ok()
        .and_then(|local| local.assume_utc().format(&Rfc3339).ok())
        .unwrap_or_else(|| text.to_owned())
}

/// An RFC 3339 time in UTC as a `datetime-local` input's value (`2026-12-01T12:00:00`);
/// anything else as it is.
pub(super) fn local_input(text: &str) -> String {
    text.strip_suffix('Z').unwrap_or(text).to_owned()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn fields_become_json_and_blank_ones_are_left_out() {
        let form = Query::parse(Some(
            "coins=+50+&gems=&items=outfit-ranger%2C+hat%0Aboots&packs=&note=x&amount=ten\
             &opens=2026-12-01T12%3A30&closes=2026-12-02T08%3A00%3A05&at=soon\
             &whitelistOnly=true&open=maybe",
        ));
        let body = Body::new(&form)
            .number("coins")
            .number("gems")
            .number("amount")
            .list("items")
            .list("packs")
            .text("note")
            .time("opens")
            .time("closes")
            .time("at")
            .flag("whitelistOnly")
            .flag("open")
            .set("banned", true)
            .reason()
            .build();
        assert_eq!(
            body,
            json!({
                "coins": 50, "amount": "ten", "items": ["outfit-ranger", "hat", "boots"],
                "note": "x", "banned": true, "reason": "",
                "opens": "2026-12-01T12:30:00Z", "closes": "2026-12-02T08:00:05Z", "at": "soon",
                "whitelistOnly": true, "open": "maybe",
            })
        );
        assert_eq!(local_input("2026-12-01T12:30:00Z"), "2026-12-01T12:30:00");
    }
}
