//! Sending a request to a node the way a load balancer would (a random running node), timing
//! it, recording its outcome, and sending it again to the other node only when it went
//! unanswered and may be repeated ([`Kind::retryable`]).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{Method, header};
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use rand::Rng;

use crate::kinds::Kind;
use crate::nodes::Cluster;
use crate::stats::{Outcome, Recorder};

/// The longest a request may take before it counts as unanswered.
const TIMEOUT: Duration = Duration::from_secs(30);

/// Which listener a request goes to.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Port {
    /// The public API.
    Api,
    /// The operator listener.
    Operator,
}

/// One request to send.
pub struct Request {
    /// The method.
    pub method: Method,
    /// The listener.
    pub port: Port,
    /// The path with its query string.
    pub target: String,
    /// A JSON body.
    pub body: Option<String>,
    /// `Authorization: Bearer` (the game server's credential, an operator token).
    pub bearer: Option<String>,
    /// `Idempotency-Key`.
    pub idempotency: Option<String>,
}

impl Request {
    /// A request without body or headers.
    pub fn new(method: Method, target: String) -> Self {
        Self {
            method,
            port: Port::Api,
            target,
            body: None,
            bearer: None,
            idempotency: None,
        }
    }

    /// A GET of `target`.
    pub fn get(target: String) -> Self {
        Self::new(Method::GET, target)
    }

    /// A POST to `target`.
    pub fn post(target: String) -> Self {
        Self::new(Method::POST, target)
    }
}

/// An answer: its status and body.
pub struct Answer {
    /// The status.
    pub status: u16,
    /// The body.
    pub body: Bytes,
}

impl Answer {
    /// Whether it is 2xx.
    pub fn ok(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// The body as JSON (`Null` when it is not).
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or_default()
    }
}

/// The generator's HTTP client over the cluster, recording every request.
#[derive(Clone)]
pub struct Http {
    client: Client<HttpConnector, Full<Bytes>>,
    cluster: Arc<Cluster>,
    recorder: Arc<Mutex<Recorder>>,
}

impl Http {
    /// A client of `cluster` recording into `recorder`.
    pub fn new(cluster: Arc<Cluster>, recorder: Arc<Mutex<Recorder>>) -> Self {
        let mut connector = HttpConnector::new();
        connector.set_nodelay(true);
        let client = Client::builder(TokioExecutor::new())
            .pool_idle_timeout(Duration::from_secs(5))
            .pool_max_idle_per_host(512)
            .build(connector);
        Self {
            client,
            cluster,
            recorder,
        }
    }

    /// Sends `request` as `kind` to a random running node; unanswered, sends it again to the
    /// other node when the kind may be repeated. Answers `None` when it stayed unanswered.
    pub async fn send(&self, kind: Kind, request: &Request) -> Option<Answer> {
        let mut avoid = None;
        for attempt in 0..3 {
            let node = self.pick(avoid).await?;
            let Some(address) = self.cluster.address(node) else {
                continue;
            };
            let host = match request.port {
                Port::Api => address.api,
                Port::Operator => address.operator,
            };
            let started = Instant::now();
            let answer = self.attempt(&host, request).await;
            let latency = started.elapsed();
            let mut recorder = self
                .recorder
                .lock()
                .expect("the recorder is never poisoned");
            if attempt > 0 {
                recorder.retried(kind);
            }
            match answer {
                Some(answer) => {
                    let code = (!answer.ok()).then(|| error_code(&answer.body)).flatten();
                    recorder.record(
                        kind,
                        Outcome::Status(answer.status),
                        code.as_deref(),
                        latency,
                    );
                    return Some(answer);
                }
                None => {
                    recorder.record(kind, Outcome::Transport, None, latency);
                    if !kind.retryable() {
                        return None;
                    }
                    avoid = Some(node);
                }
            }
        }
        None
    }

    /// A running node other than `avoid` when there is one (waiting while none runs).
    async fn pick(&self, avoid: Option<usize>) -> Option<usize> {
        for _ in 0..600 {
            let running: Vec<usize> = (0..2)
                .filter(|&node| self.cluster.address(node).is_some())
                .collect();
            let preferred: Vec<usize> = running
                .iter()
                .copied()
                .filter(|&node| Some(node) != avoid)
                .collect();
            let choices = if preferred.is_empty() {
                &running
            } else {
                &preferred
            };
            if !choices.is_empty() {
                return Some(choices[rand::rng().random_range(0..choices.len())]);
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        None
    }

    /// One attempt at `host`; `None` when unanswered.
    async fn attempt(&self, host: &str, request: &Request) -> Option<Answer> {
        let mut builder = http::Request::builder()
            .method(request.method.clone())
            .uri(format!("http://{host}{}", request.target));
        if let Some(bearer) = &request.bearer {
            builder = builder.header(header::AUTHORIZATION, format!("Bearer {bearer}"));
        }
        if let Some(key) = &request.idempotency {
            builder = builder.header("idempotency-key", key);
        }
        let body = match &request.body {
            Some(body) => {
                builder = builder.header(header::CONTENT_TYPE, "application/json");
                Bytes::from(body.clone())
            }
            None => Bytes::new(),
        };
        let sent = builder.body(Full::new(body)).ok()?;
        let exchange = async {
            let response = self.client.request(sent).await.ok()?;
            let status = response.status().as_u16();
            let body = response.into_body().collect().await.ok()?.to_bytes();
            Some(Answer { status, body })
        };
        tokio::time::timeout(TIMEOUT, exchange).await.ok().flatten()
    }
}

/// The `code` of an error body.
fn error_code(body: &[u8]) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Error {
        code: String,
    }
    serde_json::from_slice::<Error>(body)
        .ok()
        .map(|error| error.code)
}
