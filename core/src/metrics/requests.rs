//! Requests by route pattern, method and status: a counter and a duration histogram, recorded
//! around the whole stack when a response is ready.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use std::time::Instant;

use http::{Method, Response};
use prometheus_client::encoding::{EncodeLabelSet, LabelSetEncoder};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

use super::Metrics;
use crate::http::MatchedRoute;

/// The route label of a request that matched no route.
const UNMATCHED: &str = "unmatched";

/// Upper bounds of the duration buckets, in seconds.
const DURATION_BUCKETS: [f64; 14] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// The labels of one request: its route pattern (`/api/user/{userKey}`, never the path
/// itself), method and status.
#[derive(Debug, Clone, Hash, PartialEq, Eq)]
struct RequestLabels {
    route: Arc<str>,
    method: &'static str,
    status: u16,
}

impl EncodeLabelSet for RequestLabels {
    fn encode(&self, encoder: &mut LabelSetEncoder) -> Result<(), std::fmt::Error> {
        use prometheus_client::encoding::EncodeLabel;
        ("route", &*self.route).encode(encoder.encode_label())?;
        ("method", self.method).encode(encoder.encode_label())?;
        ("status", self.status).encode(encoder.encode_label())
    }
}

/// A duration histogram with [`DURATION_BUCKETS`].
fn duration_histogram() -> Histogram {
    Histogram::new(DURATION_BUCKETS)
}

/// The request families.
pub(crate) struct RequestMetrics {
    count: Family<RequestLabels, Counter>,
    duration: Family<RequestLabels, Histogram, fn() -> Histogram>,
    unmatched: Arc<str>,
}

impl RequestMetrics {
    /// The families, registered in `registry`.
    pub(super) fn register(registry: &mut Registry) -> Self {
        let count = Family::default();
        let duration = Family::<RequestLabels, Histogram, fn() -> Histogram>::new_with_constructor(
            duration_histogram,
        );
        registry.register(
            "http_requests",
            "Requests answered, by route pattern (`unmatched` for none), method and status",
            count.clone(),
        );
        registry.register(
            "http_request_duration_seconds",
            "Time from a request's arrival to its response, by route pattern, method and status",
            duration.clone(),
        );
        Self {
            count,
            duration,
            unmatched: Arc::from(UNMATCHED),
        }
    }

    /// Counts one response to a `method` request that arrived at `started`.
    fn record<B>(&self, method: &'static str, started: Instant, response: &Response<B>) {
        let route = response
            .extensions()
            .get::<MatchedRoute>()
            .map_or(&self.unmatched, |matched| &matched.0);
        let labels = RequestLabels {
            route: Arc::clone(route),
            method,
            status: response.status().as_u16(),
        };
        self.count.get_or_create(&labels).inc();
        self.duration
            .get_or_create(&labels)
            .observe(started.elapsed().as_secs_f64());
    }
}

/// The method as a label: the standard ones by name, any other as `other` (so that clients
/// cannot grow the label set).
fn method_label(method: &Method) -> &'static str {
    match *method {
        Method::GET => "GET",
        Method::HEAD => "HEAD",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::DELETE => "DELETE",
        Method::PATCH => "PATCH",
        Method::OPTIONS => "OPTIONS",
        _ => "other",
    }
}

/// What a request being recorded needs once it is answered.
struct Recording {
    metrics: Arc<Metrics>,
    method: &'static str,
    started: Instant,
}

/// The future of a [`SafezoneService`](crate::SafezoneService) call: the stack's own, and,
/// when the service records requests, their count and duration once it is ready.
pub struct Recorded<F> {
    inner: F,
    recording: Option<Recording>,
}

impl<F> Recorded<F> {
    /// `inner`, recorded in `metrics` (when given) as a `method` request arriving now.
    pub(crate) fn new(inner: F, metrics: Option<&Arc<Metrics>>, method: &Method) -> Self {
        Self {
            inner,
            recording: metrics.map(|metrics| Recording {
                metrics: Arc::clone(metrics),
                method: method_label(method),
                started: Instant::now(),
            }),
        }
    }
}

impl<F, B> Future for Recorded<F>
where
    F: Future<Output = Result<Response<B>, Infallible>> + Unpin,
{
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        let output = ready!(Pin::new(&mut this.inner).poll(cx));
        if let (Some(recording), Ok(response)) = (this.recording.take(), &output) {
            recording
                .metrics
                .requests
                .record(recording.method, recording.started, response);
        }
        Poll::Ready(output)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_methods_share_one_label() {
        assert_eq!(method_label(&Method::GET), "GET");
        let odd = Method::from_bytes(b"BREW").unwrap();
        assert_eq!(method_label(&odd), "other");
    }
}
