//! The events' external sinks against real receivers: a signed webhook to a local HTTP
//! receiver that fails its first attempts (retries in the delivery log) or always fails
//! (dead-lettered, visible to operators), and the NATS JetStream publisher against the local
//! server at 127.0.0.1:4222 (a stream of its own per test).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::StreamExt;
use safezone_core::Safezone;
use safezone_core::clock::ManualClock;
use safezone_core::events::DomainEvent;
use safezone_core::events::nats::NatsSettings;
use safezone_core::events::webhook::{self, WebhookRetries, WebhookSettings};
use safezone_core::store::{Store, WebhookOutcome};
use safezone_core::{SafezoneService, Settings};
use safezone_storage::test_support;
use serde_json::Value;
use time::macros::datetime;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

const NOW: time::OffsetDateTime = datetime!(2026-11-23 12:00 UTC);

const SECRET: &str = "webhook-secret-for-tests";

/// What the receiver got: each request's signature header and body.
type Received = Arc<Mutex<Vec<(String, Vec<u8>)>>>;

/// A tiny HTTP/1.1 receiver on a free port: answers 500 to the first `failures` requests and
/// 200 after them; keeps every request's signature and body. Answers its URL.
async fn receiver(failures: usize) -> (String, Received) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("binds");
    let url = format!("http://{}/hook", listener.local_addr().expect("bound"));
    let received: Received = Arc::default();
    let kept = Arc::clone(&received);
    tokio::spawn(async move {
        loop {
            let Ok((mut stream, _)) = listener.accept().await else {
                return;
            };
            let Some((signature, body)) = read_request(&mut stream).await else {
                continue;
            };
            let count = {
                let mut kept = kept.lock().expect("not poisoned");
                kept.push((signature, body));
                kept.len()
            };
            let status = if count <= failures {
                "500 Internal Server Error"
            } else {
                "200 OK"
            };
            let answer =
                format!("HTTP/1.1 {status}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
            let _ = stream.write_all(answer.as_bytes()).await;
        }
    });
    (url, received)
}

/// One request's `Safezone-Signature` and body.
async fn read_request(stream: &mut tokio::net::TcpStream) -> Option<(String, Vec<u8>)> {
    let mut buffer = Vec::new();
    let mut chunk = [0_u8; 16 * 1024];
    let head_end = loop {
        let read = stream.read(&mut chunk).await.ok()?;
        if read == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..read]);
        if let Some(at) = buffer.windows(4).position(|window| window == b"\r\n\r\n") {
            break at + 4;
        }
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).to_string();
    let header = |name: &str| {
        head.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.eq_ignore_ascii_case(name)
                .then(|| value.trim().to_owned())
        })
    };
    let length: usize = header("content-length")?.parse().ok()?;
    let signature = header(webhook::SIGNATURE_HEADER).unwrap_or_default();
    while buffer.len() < head_end + length {
        let read = stream.read(&mut chunk).await.ok()?;
        if read == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..read]);
    }
    Some((signature, buffer[head_end..head_end + length].to_vec()))
}

/// Quick retries for tests: 3 attempts, 50 ms then 100 ms apart.
fn quick_retries() -> WebhookRetries {
    WebhookRetries {
        attempts: 3,
        first_backoff: Duration::from_millis(50),
        max_backoff: Duration::from_millis(100),
        timeout: Duration::from_secs(5),
    }
}

/// A service over a fresh SQLite store with `settings`; answers it and its store.
async fn service(dir: &tempfile::TempDir, settings: Settings) -> (SafezoneService, Arc<dyn Store>) {
    let url = test_support::fresh_sqlite_url(dir.path());
    let store = safezone_storage::open(&url).await.expect("the store opens");
    let service = Safezone::new(Arc::clone(&store))
        .clock(Arc::new(ManualClock::new(NOW)))
        .settings(settings)
        .service();
    (service, store)
}

/// Waits until `check` holds, at most 15 seconds.
async fn eventually<F, Fut>(what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
    while !check().await {
        assert!(
            tokio::time::Instant::now() < deadline,
            "{what}: not within 15 s"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn settings_with_webhook(url: &str) -> Settings {
    let mut settings = Settings::default();
    settings.events.webhooks = vec![WebhookSettings {
        url: url.to_owned(),
        secret: SECRET.to_owned(),
    }];
    settings.events.webhook_retries = quick_retries();
    settings
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhook_events_are_signed_and_retried_until_delivered() {
    let (url, received) = receiver(2).await;
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (service, store) = service(&dir, settings_with_webhook(&url)).await;
    let ann = test_support::new_account(store.as_ref(), "Ann#0001", NOW).await;

    eventually("delivered", || async {
        store
            .webhook_deliveries(Some(WebhookOutcome::Delivered), 10)
            .await
            .is_ok_and(|rows| !rows.is_empty())
    })
    .await;
    let log = store.webhook_deliveries(None, 10).await.expect("reads");
    let outcomes: Vec<(i32, WebhookOutcome)> = log
        .iter()
        .rev()
        .map(|row| (row.attempt.attempt, row.attempt.outcome))
        .collect();
    assert_eq!(
        outcomes,
        [
            (1, WebhookOutcome::Failed),
            (2, WebhookOutcome::Failed),
            (3, WebhookOutcome::Delivered),
        ]
    );
    assert_eq!(log[0].attempt.status, Some(200));
    assert_eq!(log[2].attempt.status, Some(500));

    let requests = received.lock().expect("not poisoned").clone();
    assert_eq!(requests.len(), 3, "one request per attempt");
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    for (signature, body) in &requests {
        assert!(
            webhook::verify(SECRET.as_bytes(), signature, body, now, 300),
            "{signature}"
        );
        assert!(!webhook::verify(
            b"another secret",
            signature,
            body,
            now,
            300
        ));
    }
    let body: Value = serde_json::from_slice(&requests[2].1).expect("a JSON body");
    let events: Vec<DomainEvent> = serde_json::from_value(body["events"].clone()).expect("events");
    let kinds: Vec<&str> = events.iter().map(|event| event.payload.kind()).collect();
    assert_eq!(kinds, ["account_created", "signed_in"]);
    assert!(events.iter().all(|event| event.account == Some(ann.id)));
    assert_eq!(log[0].attempt.first_event, events[0].id);
    assert_eq!(log[0].attempt.last_event, events[1].id);
    drop(service);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhook_events_are_dead_lettered_when_every_attempt_fails() {
    let (url, received) = receiver(usize::MAX).await;
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (service, store) = service(&dir, settings_with_webhook(&url)).await;
    test_support::new_account(store.as_ref(), "Ann#0001", NOW).await;

    eventually("dead-lettered", || async {
        store
            .webhook_deliveries(Some(WebhookOutcome::Dead), 10)
            .await
            .is_ok_and(|rows| !rows.is_empty())
    })
    .await;
    let log = store.webhook_deliveries(None, 10).await.expect("reads");
    assert_eq!(log.len(), 3);
    assert_eq!(log[0].attempt.outcome, WebhookOutcome::Dead);
    assert_eq!(log[0].attempt.attempt, 3);
    assert_eq!(received.lock().expect("not poisoned").len(), 3);
    // Given up, the batch is relayed: later events are not held back.
    eventually("relayed", || async {
        store
            .events(0, 10)
            .await
            .is_ok_and(|events| events.iter().all(|(_, relayed)| *relayed))
    })
    .await;
    // Operators see the dead letter.
    let path = "/operator/api/webhooks?outcome=dead";
    assert_eq!(operator_get(&service, path, None).await.0, 401);
    let args = [
        "operator-token",
        "create",
        "--name",
        "ops",
        "--role",
        "read",
    ];
    let line = safezone_core::cli::AdminCommand::from_args(args)
        .expect("the command parses")
        .execute(store.as_ref(), NOW)
        .await
        .expect("the token is created");
    let secret = line.rsplit(' ').next().expect("a secret");
    let (status, body) = operator_get(&service, path, Some(secret)).await;
    assert_eq!(status, 200, "{body}");
    let dead = body["deliveries"].as_array().expect("deliveries");
    assert_eq!(dead.len(), 1);
    assert_eq!(dead[0]["outcome"], "dead");
    assert_eq!(dead[0]["attempt"], 3);
    assert_eq!(dead[0]["url"], url.as_str());
    assert_eq!(dead[0]["status"], 500);
    drop(service);
}

/// `GET path` on the service's operator API with `secret` as bearer (if any): the status and
/// body.
async fn operator_get(service: &SafezoneService, path: &str, secret: Option<&str>) -> (u16, Value) {
    use http_body_util::BodyExt;
    let mut request = http::Request::get(path);
    if let Some(secret) = secret {
        request = request.header("authorization", format!("Bearer {secret}"));
    }
    let request = request
        .body(
            http_body_util::Empty::<bytes::Bytes>::new()
                .map_err(|never| match never {})
                .boxed_unsync(),
        )
        .expect("a request");
    let response = service.operator_api().answer(request).await;
    let status = response.status().as_u16();
    let body = response
        .into_body()
        .collect()
        .await
        .expect("a body")
        .to_bytes();
    (status, serde_json::from_slice(&body).unwrap_or(Value::Null))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nats_events_are_published_in_order_with_their_ids() {
    let unique = uuid::Uuid::new_v4().simple().to_string();
    let stream_name = format!("SAFEZONE_TEST_{unique}");
    let prefix = format!("safezone-test.{unique}");
    let mut settings = Settings::default();
    settings.events.nats = Some(NatsSettings {
        url: "nats://127.0.0.1:4222".to_owned(),
        subject_prefix: prefix.clone(),
        stream: Some(stream_name.clone()),
    });
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (service, store) = service(&dir, settings).await;
    let ann = test_support::new_account(store.as_ref(), "Ann#0001", NOW).await;
    let bob = test_support::new_account(store.as_ref(), "Bob#0001", NOW).await;
    assert!(store.set_banned(bob.id, true, None).await.expect("bans"));

    eventually("relayed", || async {
        store
            .events(0, 10)
            .await
            .is_ok_and(|events| events.len() == 5 && events.iter().all(|(_, relayed)| *relayed))
    })
    .await;
    let stored: Vec<DomainEvent> = store
        .events(0, 10)
        .await
        .expect("reads")
        .into_iter()
        .map(|(event, _)| event)
        .collect();

    let client = async_nats::connect("127.0.0.1:4222")
        .await
        .expect("NATS runs on 127.0.0.1:4222 (see .ci/run)");
    let jetstream = async_nats::jetstream::new(client);
    let stream = jetstream
        .get_stream(&stream_name)
        .await
        .expect("the stream exists");
    let consumer = stream
        .create_consumer(async_nats::jetstream::consumer::pull::Config::default())
        .await
        .expect("a consumer");
    let mut messages = consumer
        .fetch()
        .max_messages(10)
        .expires(Duration::from_secs(2))
        .messages()
        .await
        .expect("messages");
    let mut published = Vec::new();
    while let Some(message) = messages.next().await {
        let message = message.expect("a message");
        let id = message
            .headers
            .as_ref()
            .and_then(|headers| headers.get("Nats-Msg-Id"))
            .map(|id| id.to_string())
            .expect("a message id");
        let event: DomainEvent = serde_json::from_slice(&message.payload).expect("an event");
        assert_eq!(id, event.id.to_string());
        assert_eq!(
            message.subject.as_str(),
            format!("{prefix}.{}", event.payload.kind())
        );
        published.push(event);
        message.ack().await.expect("acknowledged");
    }
    assert_eq!(published, stored, "every event once, in id order");
    assert_eq!(published[0].account, Some(ann.id));
    assert_eq!(published[4].payload.kind(), "banned");
    jetstream
        .delete_stream(&stream_name)
        .await
        .expect("the stream goes");
    drop(service);
}
