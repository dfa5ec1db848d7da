//! The clients: each sends its operations until they are answered, again with the same key
//! after no answer or a 5xx; and the counters of the run.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde_json::Value;
use tokio::sync::watch;

use super::KILLS;
use super::checks::Checked;
use super::server::Address;
use super::workload::Op;

/// How many times one request is sent before the test gives up on it.
const ATTEMPTS_MAX: u32 = 40;

/// The counters of a run.
#[derive(Default)]
pub(super) struct Figures {
    /// Requests sent, first attempts and retries alike.
    pub(super) requests: AtomicU64,
    /// Requests in flight now.
    pub(super) in_flight: AtomicU64,
    /// Requests in flight at the moments of the kills, summed.
    pub(super) in_flight_at_kills: AtomicU64,
    /// Operations with a final answer (a double click counts once).
    pub(super) settled: AtomicU64,
    /// Requests that got no answer (the server died, or the connection failed).
    pub(super) unanswered: AtomicU64,
    /// Requests answered with a 5xx, sent again.
    pub(super) server_errors: AtomicU64,
    /// Requests sent again with the same key.
    pub(super) retries: AtomicU64,
}

/// The final answer to one request.
#[derive(Debug, Clone)]
pub(super) enum Answer {
    /// 200: the operation is acknowledged (`replayed`: answered from the key's first use).
    Acknowledged { replayed: bool },
    /// A 4xx refusal with its code.
    Refused { status: u16, code: String },
}

/// An operation with one of its final answers (a double click has two).
pub(super) struct Answered {
    pub(super) op: Op,
    pub(super) answer: Answer,
    pub(super) attempts: u32,
}

/// What a client needs to send: the HTTP client, the server's address, the counters.
#[derive(Clone)]
pub(super) struct Sender {
    pub(super) client: reqwest::Client,
    pub(super) addresses: watch::Receiver<Address>,
    pub(super) figures: Arc<Figures>,
}

impl Sender {
    /// Sends `ops` one after another (a double click as two requests at once), each until it
    /// is answered.
    pub(super) async fn work(self, ops: Vec<Op>) -> Vec<Answered> {
        let mut answers = Vec::new();
        for op in ops {
            if op.double_click {
                let (first, second) = tokio::join!(self.send(&op), self.send(&op));
                answers.push(first);
                answers.push(second);
            } else {
                answers.push(self.send(&op).await);
            }
            self.figures.settled.fetch_add(1, Ordering::SeqCst);
        }
        answers
    }

    /// Sends `op` until it gets a 200 or a 4xx, again with the same key after no answer or a
    /// 5xx.
    async fn send(&self, op: &Op) -> Answered {
        let mut addresses = self.addresses.clone();
        for attempt in 1..=ATTEMPTS_MAX {
            let current = addresses
                .wait_for(|current| current.address.is_some())
                .await
                .expect("the server's address is published")
                .clone();
            let address = current.address.expect("an address");
            if attempt > 1 {
                self.figures.retries.fetch_add(1, Ordering::SeqCst);
            }
            self.figures.requests.fetch_add(1, Ordering::SeqCst);
            self.figures.in_flight.fetch_add(1, Ordering::SeqCst);
            let answer = self.attempt(&address, op).await;
            self.figures.in_flight.fetch_sub(1, Ordering::SeqCst);
            match answer {
                Some(answer) => {
                    return Answered {
                        op: op.clone(),
                        answer,
                        attempts: attempt,
                    };
                }
                None => {
                    // Most likely the server was killed: wait for the next start (or a short
                    // while, when the failure was something else).
                    let restarted = addresses.wait_for(|next| {
                        next.generation > current.generation && next.address.is_some()
                    });
                    let _ = tokio::time::timeout(Duration::from_secs(2), restarted).await;
                }
            }
        }
        panic!(
            "{} ({}) unanswered after {ATTEMPTS_MAX} attempts",
            op.key, op.path
        );
    }

    /// One request: its final answer, or `None` when it must be sent again.
    async fn attempt(&self, address: &str, op: &Op) -> Option<Answer> {
        let sent = self
            .client
            .post(format!("http://{address}{}", op.path))
            .header("idempotency-key", &op.key)
            .send()
            .await;
        let response = match sent {
            Ok(response) => response,
            Err(_) => {
                self.figures.unanswered.fetch_add(1, Ordering::SeqCst);
                return None;
            }
        };
        let status = response.status().as_u16();
        let replayed = response.headers().contains_key("idempotent-replayed");
        let Ok(text) = response.text().await else {
            self.figures.unanswered.fetch_add(1, Ordering::SeqCst);
            return None;
        };
        let body: Value = serde_json::from_str(&text)
            .unwrap_or_else(|_| panic!("{} answered {status} without JSON: {text}", op.path));
        match status {
            200 => {
                assert_eq!(body["status"], "success", "{text}");
                Some(Answer::Acknowledged { replayed })
            }
            400..=499 => {
                assert_eq!(body["status"], "error", "{text}");
                let code = body["code"].as_str().unwrap_or_default().to_owned();
                Some(Answer::Refused { status, code })
            }
            _ => {
                assert!(status >= 500, "{} answered {status}: {text}", op.path);
                self.figures.server_errors.fetch_add(1, Ordering::SeqCst);
                None
            }
        }
    }
}

impl Figures {
    /// Prints the figures of the run and what the checks covered to standard error.
    pub(super) fn print(
        &self,
        binary: &str,
        database: &str,
        seed: u64,
        operations: usize,
        checked: Checked,
        took: Duration,
    ) {
        let name = std::path::Path::new(binary)
            .file_name()
            .map_or_else(|| binary.into(), |name| name.to_string_lossy());
        let count = |counter: &AtomicU64| counter.load(Ordering::SeqCst);
        eprintln!(
            "crash test {name} on {database} (operations' seed {seed}): {operations} \
             operations, {} requests sent ({} retries with the same key after {} unanswered and \
             {} 5xx); {} answers acknowledged ({} replayed), {} refused; {} answers came after \
             retries, {} of them (no double click) replays of an operation applied before a kill \
             took its answer; {KILLS} SIGKILLs with {} requests in flight in all; checked {} \
             accounts, {} ledger rows, {} applied keys ({:?}), {} events; {:.1} s",
            count(&self.requests),
            count(&self.retries),
            count(&self.unanswered),
            count(&self.server_errors),
            checked.acknowledged,
            checked.replayed,
            checked.refused,
            checked.retried,
            checked.recovered,
            count(&self.in_flight_at_kills),
            checked.accounts,
            checked.ledger_rows,
            checked.applied_keys,
            checked.applied_kinds,
            checked.events,
            took.as_secs_f64()
        );
    }
}
