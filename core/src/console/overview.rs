//! `GET /operator/console/overview`: charts of what players do, drawn on the server as SVG
//! from the API's activity series: sign-ins, new players, purchases by item, coins and gems
//! granted and spent, match reports and the players in them, per hour for the last 48 hours
//! and per day for the last 60.

use askama::Template;
use http::StatusCode;

use super::frame::Frame;
use super::session::Session;
use super::{ConsoleState, response};
use crate::chart::{Chart, Style};
use crate::http::{ApiError, Incoming, Reply};
use crate::operator_api::Failure;
use crate::operator_api::activity::{Activity, ActivityAnswer, ActivityQuery, metrics};

/// One metric's two charts.
struct MetricCharts {
    metric: &'static str,
    title: &'static str,
    /// Per hour, the last 48 hours (SVG).
    hourly: String,
    /// Per day, the last 60 days (SVG).
    daily: String,
    last_48_hours: i64,
    last_60_days: i64,
}

/// The overview page.
#[derive(Template)]
#[template(path = "console/overview.html")]
struct OverviewPage {
    frame: Frame,
    charts: Vec<MetricCharts>,
    error: Option<String>,
}

/// A metric's name for a person.
fn title(metric: &str) -> &'static str {
    match metric {
        "sign_ins" => "Sign-ins",
        "new_players" => "New players",
        "purchases" => "Purchases by item",
        "coins_granted" => "Coins granted",
        "coins_spent" => "Coins spent",
        "gems_granted" => "Gems granted",
        "gems_spent" => "Gems spent",
        "match_reports" => "Match reports",
        "match_players" => "Players in match reports",
        _ => "Activity",
    }
}

/// A series drawn as stacked bars, its buckets labelled by `label` (from their RFC 3339
/// starts).
fn draw(answer: &ActivityAnswer, title: &str, label: fn(&str) -> &str) -> String {
    let labels: Vec<String> = answer
        .starts
        .iter()
        .map(|start| label(start.exact()).to_owned())
        .collect();
    let series: Vec<(String, Vec<i64>)> = answer
        .subjects
        .iter()
        .map(|subject| (subject.name.clone(), subject.values.clone()))
        .collect();
    Chart {
        title,
        labels: &labels,
        series: &series,
        style: Style::Bars,
    }
    .to_svg()
}

/// `12:00` of `2026-11-23T12:00:00Z`.
fn hour_label(start: &str) -> &str {
    start.get(11..16).unwrap_or(start)
}

/// `11-23` of `2026-11-23T00:00:00Z`.
fn day_label(start: &str) -> &str {
    start.get(5..10).unwrap_or(start)
}

/// Every metric's charts.
pub(super) async fn overview(
    state: ConsoleState,
    session: Session,
    incoming: Incoming,
) -> Result<Reply, ApiError> {
    let charts = async {
        let mut charts = Vec::new();
        for metric in metrics() {
            let (hourly, daily) = (
                ActivityQuery::of(metric, "hour"),
                ActivityQuery::of(metric, "day"),
            );
            let api = &state.api;
            let hours = api.read::<Activity>(session.secret(), &hourly).await?;
            let days = api.read::<Activity>(session.secret(), &daily).await?;
            let title = title(metric);
            charts.push(MetricCharts {
                metric,
                title,
                hourly: draw(
                    &hours,
                    &format!("{title} per hour, last 48 hours"),
                    hour_label,
                ),
                daily: draw(&days, &format!("{title} per day, last 60 days"), day_label),
                last_48_hours: hours.totals.iter().sum(),
                last_60_days: days.totals.iter().sum(),
            });
        }
        Ok::<_, Failure>(charts)
    };
    let (status, charts, error) = match charts.await {
        Ok(charts) => (StatusCode::OK, charts, None),
        Err(failure) => (failure.status, Vec::new(), Some(failure.to_string())),
    };
    Ok(response::page(
        status,
        &OverviewPage {
            frame: Frame::of(&session, &incoming),
            charts,
            error,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_labelled_by_hour_or_day() {
        assert_eq!(hour_label("2026-11-23T12:00:00Z"), "12:00");
        assert_eq!(day_label("2026-11-23T00:00:00Z"), "11-23");
        assert_eq!(hour_label("soon"), "soon");
    }
}
