//! `GET /operator/api/activity?metric=&bucket=`: what the activity rollup counted, per hour for
//! the last 48 hours or per day for the last 60 days, zeros included, each subject (an item, a
//! mode, a provider) apart and by the name players see where it names an item or a pack.

use http::Method;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::OperatorState;
use super::endpoint::{Endpoint, NoBody, Read, Reads};
use super::views::{self, When};
use crate::activity::{Series, window};
use crate::http::ApiError;
use crate::http::params::request_parameters;
use crate::store::{ActivityMetric, Bucket};

/// How many hours an hourly series covers.
const HOURS: u16 = 48;
/// How many days a daily series covers.
const DAYS: u16 = 60;

request_parameters! {
    /// The series asked for.
    pub(crate) struct ActivityQuery {
        /// What: `sign_ins`, `new_players`, `purchases`, `coins_granted`, `coins_spent`, `gems_granted`, `gems_spent`, `match_reports`, `match_players`
        metric: String = Query "metric",
        /// `hour` (the last 48 hours) or `day` (the last 60 days)
        bucket: String = Query "bucket",
    }
}

impl ActivityQuery {
    /// `metric` per `bucket` (`hour` or `day`).
    pub(crate) fn of(metric: &str, bucket: &str) -> Self {
        Self {
            metric: metric.to_owned(),
            bucket: bucket.to_owned(),
        }
    }
}

/// Every metric's name.
pub(crate) fn metrics() -> impl Iterator<Item = &'static str> {
    ActivityMetric::ALL.into_iter().map(ActivityMetric::as_str)
}

/// One subject's values.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub(crate) struct SubjectSeries {
    /// Of what (`item:7`, `solo`, `device`; empty when the metric has none).
    pub subject: String,
    /// The subject as players see it: an item's or a pack's name, else the subject.
    pub name: String,
    /// Its value per bucket, oldest first.
    pub values: Vec<i64>,
}

/// A metric's series.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub(crate) struct ActivityAnswer {
    /// The metric.
    pub metric: String,
    /// `hour` or `day`.
    pub bucket: String,
    /// Each bucket's start, oldest first (the last one holds now).
    pub starts: Vec<When>,
    /// Each subject's values.
    pub subjects: Vec<SubjectSeries>,
    /// Every subject's values added up, per bucket.
    pub totals: Vec<i64>,
}

/// `GET /activity`.
pub(crate) struct Activity;

impl Endpoint for Activity {
    const METHOD: Method = Method::GET;
    const PATH: &'static str = "/activity";
    const ID: &'static str = "activity";
    const TAG: &'static str = "activity";
    const ABOUT: &'static str = "What the activity rollup counted of `metric` per hour for the \
        last 48 hours (`bucket=hour`) or per day for the last 60 days (`bucket=day`), oldest \
        first, zeros included, per subject (purchases by item, currency by the kind of event, \
        reports by mode, sign-ins by provider) and in total. The rollup follows the events' \
        outbox on every node, so the last minute may not be counted yet.";
    type Params = ActivityQuery;
    type Answer = ActivityAnswer;
}

impl Reads for Activity {
    type Body = NoBody;

    async fn answer(
        state: OperatorState,
        call: Read<ActivityQuery>,
    ) -> Result<ActivityAnswer, ApiError> {
        let query = call.params;
        let metric = ActivityMetric::parse(&query.metric).ok_or_else(|| {
            ApiError::invalid(
                "metric",
                format!(
                    "must be one of {}",
                    metrics().collect::<Vec<_>>().join(", ")
                ),
            )
        })?;
        let (bucket, count) = match query.bucket.as_str() {
            "hour" => (Bucket::Hour, HOURS),
            "day" => (Bucket::Day, DAYS),
            _ => return Err(ApiError::invalid("bucket", "must be `hour` or `day`")),
        };
        let (from, until) = window(bucket, count, state.app.clock.now());
        let points = state
            .app
            .store
            .activity(metric, bucket, from, until)
            .await?;
        let series = Series::zero_filled(&points, bucket, from, usize::from(count));
        let totals = series.totals();
        let published = state.app.content.current();
        let catalog = &published.content.catalog;
        Ok(ActivityAnswer {
            metric: query.metric,
            bucket: query.bucket,
            starts: series.starts.into_iter().map(When::from).collect(),
            subjects: series
                .subjects
                .into_iter()
                .map(|(subject, values)| SubjectSeries {
                    name: views::named(catalog, &subject).unwrap_or_else(|| subject.clone()),
                    subject,
                    values,
                })
                .collect(),
            totals,
        })
    }
}
