//! A response as tests read it.

use std::collections::BTreeMap;

use reqwest::header::HeaderMap;
use serde_json::Value;

/// A finished response: status, headers, raw body and the body parsed as JSON when it is JSON.
#[derive(Debug)]
pub struct Answer {
    /// The HTTP status code.
    pub status: u16,
    /// The response headers.
    pub headers: HeaderMap,
    /// The body as text.
    pub text: String,
    /// The body as JSON (`Value::Null` when it is not JSON).
    pub json: Value,
}

impl Answer {
    /// Reads a whole response: its status, headers, body, and the body as JSON when it is.
    pub async fn read(response: reqwest::Response) -> Self {
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let text = response.text().await.expect("body reads");
        let json = serde_json::from_str(&text).unwrap_or(Value::Null);
        Self {
            status,
            headers,
            text,
            json,
        }
    }

    /// Asserts the status and the success envelope, and returns the body.
    #[track_caller]
    pub fn success(&self) -> &Value {
        assert_eq!(
            self.status, 200,
            "expected 200, got {}: {}",
            self.status, self.text
        );
        assert_eq!(self.json["status"], "success", "{}", self.text);
        &self.json
    }

    /// Asserts an error answer: its status, the envelope and its `code`.
    #[track_caller]
    pub fn error(&self, status: u16, code: &str) -> &Value {
        assert_eq!(
            self.status, status,
            "expected {status}, got {}: {}",
            self.status, self.text
        );
        assert_eq!(self.json["status"], "error", "{}", self.text);
        assert_eq!(self.json["code"], code, "{}", self.text);
        assert!(
            self.json["message"].as_str().is_some_and(|m| !m.is_empty()),
            "error without a message: {}",
            self.text
        );
        &self.json
    }

    /// Asserts an error whose message names `parameter`.
    #[track_caller]
    pub fn error_naming(&self, status: u16, code: &str, parameter: &str) {
        let body = self.error(status, code);
        let message = body["message"].as_str().unwrap_or_default();
        assert!(
            message.contains(parameter),
            "message does not name `{parameter}`: {message}"
        );
    }

    /// Every value of header `name`.
    pub fn header_values(&self, name: &str) -> Vec<String> {
        self.headers
            .get_all(name)
            .iter()
            .filter_map(|value| value.to_str().ok().map(str::to_owned))
            .collect()
    }
}

/// How many answers had each `(status, code)`; `code` is empty for successes (which must say
/// `"status": "success"`).
pub fn tally(answers: &[Answer]) -> BTreeMap<(u16, String), usize> {
    let mut counts = BTreeMap::new();
    for answer in answers {
        let code = if answer.status == 200 {
            assert_eq!(answer.json["status"], "success", "{}", answer.text);
            String::new()
        } else {
            answer.json["code"].as_str().unwrap_or("?").to_owned()
        };
        *counts.entry((answer.status, code)).or_insert(0) += 1;
    }
    counts
}

/// The tally [`tally`] should give, from `(status, code, count)`; counts of 0 are left out.
pub fn expected_tally(entries: &[(u16, &str, usize)]) -> BTreeMap<(u16, String), usize> {
    entries
        .iter()
        .filter(|(_, _, count)| *count > 0)
        .map(|(status, code, count)| ((*status, (*code).to_owned()), *count))
        .collect()
}
