//! The community side's document against the code: the limits that the
//! annotations repeat as literals checked against the constants the handlers use.

use serde_json::Value;

use crate::progression::{KILLS_MAX, MATCH_DURATION_MAX_SECS, MATCH_PLAYERS_MAX};
use crate::store::{MATCH_ID_MAX_CHARS, WHITELIST_EDIT_MAX};

fn document() -> Value {
    serde_json::to_value(crate::openapi::document()).expect("the document serializes")
}

fn schema<'a>(document: &'a Value, name: &str) -> &'a Value {
    let schema = &document["components"]["schemas"][name];
    assert!(schema.is_object(), "no schema {name}");
    schema
}

#[test]
fn the_match_report_schema_has_the_checks_limits() {
    let document = document();
    let report = schema(&document, "MatchReportBody");
    let player = &schema(&document, "PlayerBody")["properties"];
    let players_max = i64::try_from(MATCH_PLAYERS_MAX).expect("fits");
    assert_eq!(report["properties"]["players"]["maxItems"], players_max);
    assert_eq!(
        report["properties"]["matchId"]["pattern"],
        format!("^[A-Za-z0-9._:-]{{1,{MATCH_ID_MAX_CHARS}}}$")
    );
    assert_eq!(player["placement"]["maximum"], players_max);
    assert_eq!(player["kills"]["maximum"], KILLS_MAX);
    assert_eq!(player["timeAlive"]["maximum"], MATCH_DURATION_MAX_SECS);
}

#[test]
fn the_whitelist_edit_schema_has_the_stores_limit() {
    let document = document();
    let body = &schema(&document, "UpdateBody")["properties"];
    let most = i64::try_from(WHITELIST_EDIT_MAX).expect("fits");
    assert_eq!(body["add"]["maxItems"], most);
    assert_eq!(body["remove"]["maxItems"], most);
    assert_eq!(body["replace"]["maxItems"], most);
}
