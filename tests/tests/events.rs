//! The events' external sinks against real receivers: a signed webhook to a local HTTP
//! receiver that fails its first attempts (retries in the delivery log) or always fails
//! (dead-lettered, visible to operators), and the NATS JetStream publisher against the local
//! server at 127.0.0.1:4222 (a stream of its own per test). Each sink advances on its own: a
//! receiver that always fails or never answers, or NATS refusing every publication, neither
//! delays a healthy webhook nor makes it receive an event twice, and backs off (SQLite and
//! PostgreSQL).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use safezone_core::Safezone;
use safezone_core::clock::ManualClock;
use safezone_core::events::DomainEvent;
use safezone_core::events::nats::NatsSettings;
use safezone_core::events::webhook::{self, WebhookRetries, WebhookSettings};
use safezone_core::store::{AccountId, Store, WebhookOutcome};
use safezone_core::{SafezoneService, Settings};
use safezone_storage::test_support;
use serde_json::Value;
use time::macros::datetime;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

const NOW: time::OffsetDateTime = datetime!(2026-11-23 12:00 UTC);

const SECRET: &str = "webhook-secret-for-tests";

/// One request a receiver got: its signature header, its body and when it arrived.
#[derive(Clone)]
struct Request {
    signature: String,
    body: Vec<u8>,
    at: Instant,
}

impl Request {
    /// The events the request carried.
    fn events(&self) -> Vec<DomainEvent> {
        let body: Value = serde_json::from_slice(&self.body).expect("a JSON body");
        serde_json::from_value(body["events"].clone()).expect("events")
    }
}

/// What the receiver got.
type Received = Arc<Mutex<Vec<Request>>>;

/// How a receiver answers.
#[derive(Clone, Copy)]
enum Answer {
    /// 500 to the first this many requests, 200 after them.
    FailFirst(usize),
    /// Never: it reads the request and keeps the connection open without a word.
    Never,
}

/// A tiny HTTP/1.1 receiver on a free port, answering as `answer` says; keeps every request.
/// Answers its URL.
async fn receiver(failures: usize) -> (String, Received) {
    receiver_answering(Answer::FailFirst(failures)).await
}

/// See [`receiver`].
async fn receiver_answering(answer: Answer) -> (String, Received) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("binds");
    let url = format!("http://{}/hook", listener.local_addr().expect("bound"));
    let received: Received = Arc::default();
    let kept = Arc::clone(&received);
    tokio::spawn(async move {
        loop {
            let Ok((mut stream, _)) = listener.accept().await else {
                return;
            };
            let kept = Arc::clone(&kept);
            tokio::spawn(async move {
                let Some((signature, body)) = read_request(&mut stream).await else {
                    return;
                };
                let count = {
                    let mut kept = kept.lock().expect("not poisoned");
                    kept.push(Request {
                        signature,
                        body,
                        at: Instant::now(),
                    });
                    kept.len()
                };
                let status = match answer {
                    Answer::Never => {
                        tokio::time::sleep(Duration::from_secs(3_600)).await;
                        return;
                    }
                    Answer::FailFirst(failures) if count <= failures => "500 Internal Server Error",
                    Answer::FailFirst(_) => "200 OK",
                };
                let answer =
                    format!("HTTP/1.1 {status}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
                let _ = stream.write_all(answer.as_bytes()).await;
            });
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
    for request in &requests {
        let (signature, body) = (&request.signature, &request.body);
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
    let events = requests[2].events();
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
    // Given up, the batch is behind the webhook's cursor: later events are not held back.
    let name = format!("webhook {url}");
    eventually("moved past the dead letter", || async {
        let head = store.relay_head().await.expect("reads");
        store.event_consumers().await.is_ok_and(|consumers| {
            consumers
                .iter()
                .any(|consumer| consumer.name == name && consumer.position == head && head == 2)
        })
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

    let name = format!("nats {prefix}");
    eventually("published", || async {
        let head = store.relay_head().await.expect("reads");
        head == 5
            && store.event_consumers().await.is_ok_and(|consumers| {
                consumers
                    .iter()
                    .any(|consumer| consumer.name == name && consumer.position == head)
            })
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

/// Where a test's store lives.
#[derive(Clone, Copy, Debug)]
enum Db {
    Sqlite,
    Postgres,
}

/// A service over a fresh store of `db` with `settings`, its store, and what to drop after.
struct Node {
    service: SafezoneService,
    store: Arc<dyn Store>,
    url: String,
    postgres: Option<String>,
    _dir: tempfile::TempDir,
}

impl Node {
    async fn start(db: Db, settings: Settings) -> Self {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let (url, postgres) = match db {
            Db::Sqlite => (test_support::fresh_sqlite_url(dir.path()), None),
            Db::Postgres => {
                let url = test_support::fresh_postgres_url().await;
                (url.clone(), Some(url))
            }
        };
        let store = safezone_storage::open(&url).await.expect("the store opens");
        let service = Safezone::new(Arc::clone(&store))
            .clock(Arc::new(ManualClock::new(NOW)))
            .settings(settings)
            .service();
        Self {
            service,
            store,
            url,
            postgres,
            _dir: dir,
        }
    }

    async fn stop(self) {
        drop(self.service);
        drop(self.store);
        if let Some(url) = self.postgres {
            test_support::drop_postgres_database(&url).await;
        }
    }
}

/// Every webhook in `urls`, with the default retries (5 attempts, 0.25 s then doubling).
fn settings_with_webhooks(urls: &[&str]) -> Settings {
    let mut settings = Settings::default();
    settings.events.webhooks = urls
        .iter()
        .map(|url| WebhookSettings {
            url: (*url).to_owned(),
            secret: SECRET.to_owned(),
        })
        .collect();
    settings
}

/// Signs up `count` accounts 200 ms apart; answers each one's id with when it committed.
async fn sign_ups(store: &Arc<dyn Store>, count: usize) -> Vec<(AccountId, Instant)> {
    let mut committed = Vec::new();
    for at in 0..count {
        let code = format!("Player{at}#0001");
        let account = test_support::new_account(store.as_ref(), &code, NOW).await;
        committed.push((account.id, Instant::now()));
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    committed
}

/// Checks that the healthy receiver got every stored event exactly once, each account's
/// sign-up within a second of its commit.
async fn healthy_got_each_event_once_and_soon(
    store: &Arc<dyn Store>,
    received: &Received,
    committed: &[(AccountId, Instant)],
) {
    let stored: Vec<i64> = store
        .events(0, 1_000)
        .await
        .expect("reads")
        .into_iter()
        .map(|(event, _)| event.id)
        .collect();
    assert_eq!(stored.len(), committed.len() * 2);
    eventually("the healthy receiver got everything", || async {
        let requests = received.lock().expect("not poisoned").clone();
        requests
            .iter()
            .map(|request| request.events().len())
            .sum::<usize>()
            >= stored.len()
    })
    .await;
    // Nothing more comes later.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let requests = received.lock().expect("not poisoned").clone();
    let mut got: Vec<i64> = requests
        .iter()
        .flat_map(|request| request.events().into_iter().map(|event| event.id))
        .collect();
    got.sort_unstable();
    assert_eq!(got, stored, "every event exactly once");
    for (account, at) in committed {
        let arrived = requests
            .iter()
            .find(|request| {
                request
                    .events()
                    .iter()
                    .any(|event| event.account == Some(*account))
            })
            .map(|request| request.at)
            .expect("the account's events arrived");
        let late = arrived.saturating_duration_since(*at);
        assert!(
            late < Duration::from_secs(1),
            "{account:?} arrived {late:?} after its commit"
        );
    }
}

/// The delivery log of `url`, oldest first: each attempt's batch, number and time.
async fn attempts_of(store: &Arc<dyn Store>, url: &str) -> Vec<(i64, i32, time::OffsetDateTime)> {
    let mut log: Vec<_> = store
        .webhook_deliveries(None, 1_000)
        .await
        .expect("reads")
        .into_iter()
        .filter(|row| row.attempt.url == url)
        .map(|row| (row.attempt.first_event, row.attempt.attempt, row.attempt.at))
        .collect();
    log.reverse();
    log
}

/// A failing receiver's attempts back off: few of them, attempt n + 1 of a batch at least the
/// default backoff after attempt n (0.25 s, doubling).
fn backed_off(attempts: &[(i64, i32, time::OffsetDateTime)], within: Duration) {
    let most = 6;
    assert!(
        (1..=most).contains(&attempts.len()),
        "{} attempts in {within:?}: {attempts:?}",
        attempts.len()
    );
    for pair in attempts.windows(2) {
        let ((batch, attempt, at), (next_batch, next_attempt, next_at)) = (pair[0], pair[1]);
        if batch != next_batch || next_attempt != attempt + 1 {
            continue;
        }
        let wait = time::Duration::milliseconds(250 * (1_i64 << (attempt - 1).min(4)));
        assert!(
            next_at - at >= wait - time::Duration::milliseconds(20),
            "{attempts:?}"
        );
    }
}

/// A receiver that always answers 500 and one that never answers, beside a healthy one: the
/// healthy one gets every event within a second of its commit, exactly once; the failing ones
/// back off on their own.
async fn dead_receivers_hold_no_other_back(db: Db) {
    let (healthy, received) = receiver(0).await;
    let (failing, _) = receiver(usize::MAX).await;
    let (silent, silent_received) = receiver_answering(Answer::Never).await;
    let started = Instant::now();
    let node = Node::start(db, settings_with_webhooks(&[&failing, &silent, &healthy])).await;
    let committed = sign_ups(&node.store, 5).await;
    healthy_got_each_event_once_and_soon(&node.store, &received, &committed).await;
    backed_off(&attempts_of(&node.store, &failing).await, started.elapsed());
    // The silent receiver is still on its first attempt (10 s timeout): one request so far.
    assert_eq!(silent_received.lock().expect("not poisoned").len(), 1);
    node.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_a_failing_or_silent_webhook_holds_no_other_back() {
    dead_receivers_hold_no_other_back(Db::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_a_failing_or_silent_webhook_holds_no_other_back() {
    dead_receivers_hold_no_other_back(Db::Postgres).await;
}

/// NATS refusing every publication (no stream takes its subjects) beside a healthy webhook:
/// the webhook gets each event once and soon; NATS backs off (a few failures, counted on its
/// cursor, which stays where it was).
async fn refused_nats_holds_no_webhook_back(db: Db) {
    let (healthy, received) = receiver(0).await;
    let mut settings = settings_with_webhooks(&[&healthy]);
    let prefix = format!("safezone-unstreamed.{}", uuid::Uuid::new_v4().simple());
    settings.events.nats = Some(NatsSettings {
        url: "nats://127.0.0.1:4222".to_owned(),
        subject_prefix: prefix.clone(),
        stream: None,
    });
    let node = Node::start(db, settings).await;
    let committed = sign_ups(&node.store, 5).await;
    healthy_got_each_event_once_and_soon(&node.store, &received, &committed).await;
    let consumers = node.store.event_consumers().await.expect("reads");
    let nats = consumers
        .iter()
        .find(|consumer| consumer.name == format!("nats {prefix}"))
        .expect("the NATS cursor");
    assert_eq!(nats.position, 0, "nothing was published");
    // About 1.5 s of failures: attempts at 0, 0.25, 0.75 s and perhaps 1.75 s.
    assert!((1..=5).contains(&nats.failures), "{nats:?}");
    assert!(nats.retry_at.is_some() && nats.error.is_some(), "{nats:?}");
    node.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_refused_nats_holds_no_webhook_back() {
    refused_nats_holds_no_webhook_back(Db::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_refused_nats_holds_no_webhook_back() {
    refused_nats_holds_no_webhook_back(Db::Postgres).await;
}

/// Appends `count` events straight to the outbox of the node's database, in one statement.
async fn append_many(node: &Node, count: i64) {
    let insert = "INSERT INTO events (account_id, kind, payload, created) \
                  SELECT NULL, 'deleted', '{\"kind\":\"deleted\"}', 0 FROM numbers";
    let numbers = "WITH RECURSIVE numbers(n) AS \
                   (SELECT 1 UNION ALL SELECT n + 1 FROM numbers WHERE n < $1) ";
    let statement = sqlx::AssertSqlSafe(format!("{numbers}{insert}"));
    match &node.postgres {
        Some(_) => {
            let pool = sqlx::PgPool::connect(&node.url).await.expect("connects");
            sqlx::query(statement)
                .bind(count)
                .execute(&pool)
                .await
                .expect("appends");
            pool.close().await;
        }
        None => {
            let pool = sqlx::SqlitePool::connect(&node.url)
                .await
                .expect("connects");
            sqlx::query(statement)
                .bind(count)
                .execute(&pool)
                .await
                .expect("appends");
            pool.close().await;
        }
    }
}

/// A subscriber that reads nothing while more events are relayed than the channel keeps
/// still receives every one, once, in relay order (from the outbox, then the channel); the
/// documented loop `while let Some(event) = events.recv().await` goes on. One subscribing from
/// position 0 gets them all too.
async fn a_subscriber_far_behind_loses_no_event(db: Db) {
    use safezone_core::events::subscription::SUBSCRIPTION_CAPACITY;
    let node = Node::start(db, Settings::default()).await;
    let mut events = node.service.subscribe_events();
    let count = i64::try_from(SUBSCRIPTION_CAPACITY).expect("fits") + 1_000;
    append_many(&node, count).await;
    eventually("relayed", || async {
        node.store
            .relay_head()
            .await
            .is_ok_and(|head| head == count)
    })
    .await;
    // The channel has dropped the oldest by now.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut positions = Vec::new();
    while positions.len() < usize::try_from(count).expect("fits") {
        let event = tokio::time::timeout(Duration::from_secs(10), events.recv())
            .await
            .unwrap_or_else(|_| panic!("{} of {count} events", positions.len()))
            .expect("the service lives");
        assert_eq!(event.payload.kind(), "deleted");
        positions.push(events.position());
    }
    assert_eq!(
        positions,
        (1..=count).collect::<Vec<_>>(),
        "each once, in order"
    );
    // A new event still comes through the channel.
    test_support::new_account(node.store.as_ref(), "Ann#0001", NOW).await;
    let next = tokio::time::timeout(Duration::from_secs(10), events.recv())
        .await
        .expect("an event")
        .expect("the service lives");
    assert_eq!(next.payload.kind(), "account_created");
    let mut from_start = node.service.subscribe_events_from(0);
    let first = from_start.recv().await.expect("the service lives");
    assert_eq!(from_start.position(), 1);
    assert_eq!(first.payload.kind(), "deleted");
    node.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_a_subscriber_far_behind_loses_no_event() {
    a_subscriber_far_behind_loses_no_event(Db::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_a_subscriber_far_behind_loses_no_event() {
    a_subscriber_far_behind_loses_no_event(Db::Postgres).await;
}

/// `POST path` on the service's operator API with `secret` as bearer and the JSON `body`: the
/// status and body.
async fn operator_post(
    service: &SafezoneService,
    path: &str,
    secret: &str,
    body: &Value,
) -> (u16, Value) {
    use http_body_util::BodyExt;
    let request = http::Request::post(path)
        .header("authorization", format!("Bearer {secret}"))
        .header("content-type", "application/json")
        .body(
            http_body_util::Full::new(bytes::Bytes::from(body.to_string()))
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

/// An operator token's secret, of `role` (`full` or `read`), named `name`.
async fn operator_token(store: &Arc<dyn Store>, name: &str, role: &str) -> String {
    let args = ["operator-token", "create", "--name", name, "--role", role];
    let line = safezone_core::cli::AdminCommand::from_args(args)
        .expect("the command parses")
        .execute(store.as_ref(), NOW)
        .await
        .expect("the token is created");
    line.rsplit(' ').next().expect("a secret").to_owned()
}

/// A receiver that was down for every attempt at a batch (dead-lettered) and is back: the
/// webhook has moved on (later events delivered, its cursor at the head); an operator's replay
/// (a read-only token refused, audited) delivers the dead batch again, the same events, signed,
/// and the cursor stays where it was.
async fn a_dead_letter_is_replayed_to_a_receiver_that_came_back(db: Db) {
    // Down for the first batch's 3 attempts, then answering 200.
    let (url, received) = receiver(3).await;
    let node = Node::start(db, settings_with_webhook(&url)).await;
    let store = &node.store;
    test_support::new_account(store.as_ref(), "Ann#0001", NOW).await;
    eventually("dead-lettered", || async {
        store
            .webhook_deliveries(Some(WebhookOutcome::Dead), 10)
            .await
            .is_ok_and(|rows| !rows.is_empty())
    })
    .await;
    let dead = store
        .webhook_deliveries(Some(WebhookOutcome::Dead), 10)
        .await
        .expect("reads")
        .remove(0);
    let dead_events = received.lock().expect("not poisoned")[2].events();
    assert_eq!(dead_events.len(), 2);
    // Later events reach the receiver, now up.
    test_support::new_account(store.as_ref(), "Bob#0001", NOW).await;
    eventually("the later batch delivered", || async {
        received.lock().expect("not poisoned").len() == 4
    })
    .await;
    let name = format!("webhook {url}");
    let cursor = || async {
        let consumers = store.event_consumers().await.expect("reads");
        let consumer = consumers.into_iter().find(|consumer| consumer.name == name);
        consumer.expect("the webhook's cursor").position
    };
    eventually("the cursor at the head", || async {
        cursor().await == store.relay_head().await.expect("reads")
    })
    .await;
    let head = cursor().await;

    let path = format!("/operator/api/webhooks/{}/replay", dead.id);
    let body = serde_json::json!({ "reason": "the receiver is back" });
    let reader = operator_token(store, "watcher", "read").await;
    let (status, refused) = operator_post(&node.service, &path, &reader, &body).await;
    assert_eq!(
        (status, &refused["code"]),
        (403, &Value::from("operator_read_only"))
    );
    let full = operator_token(store, "ops", "full").await;
    let unknown = format!("/operator/api/webhooks/{}/replay", dead.id + 1_000);
    let (status, missing) = operator_post(&node.service, &unknown, &full, &body).await;
    assert_eq!(
        (status, &missing["code"]),
        (404, &Value::from("unknown_webhook_delivery"))
    );
    let (status, answer) = operator_post(&node.service, &path, &full, &body).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["replay"]["delivery"], dead.id);
    assert_eq!(answer["replay"]["state"], "pending");

    eventually("the replay delivered", || async {
        let replays = "/operator/api/webhooks/replays";
        let (_, replays) = operator_get(&node.service, replays, Some(&full)).await;
        replays["replays"][0]["state"] == "delivered"
    })
    .await;
    let requests = received.lock().expect("not poisoned").clone();
    let again: Vec<&Request> = requests[3..]
        .iter()
        .filter(|request| request.events() == dead_events)
        .collect();
    assert_eq!(again.len(), 1, "the same events, in the same order, once");
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    assert!(webhook::verify(
        SECRET.as_bytes(),
        &again[0].signature,
        &again[0].body,
        now,
        300
    ));
    // The webhook's cursor went on past the audit's events, each delivered once, and never
    // back to the dead letter.
    eventually("the cursor at the head", || async {
        cursor().await == store.relay_head().await.expect("reads")
    })
    .await;
    assert!(cursor().await > head);
    let requests = received.lock().expect("not poisoned").clone();
    let mut ids: Vec<i64> = requests[3..]
        .iter()
        .flat_map(Request::events)
        .map(|event| event.id)
        .collect();
    let count = ids.len();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(
        ids.len(),
        count,
        "no event twice after the receiver came back"
    );
    let log = store.webhook_deliveries(None, 100).await.expect("reads");
    assert!(
        log.iter()
            .any(|row| row.attempt.outcome == WebhookOutcome::Delivered
                && row.attempt.positions == dead.attempt.positions)
    );
    // Every call was audited: the read-only token's refusal, the unknown row, the replay.
    let (_, audit) = operator_get(
        &node.service,
        "/operator/api/audit?action=webhook-replay",
        Some(&full),
    )
    .await;
    let results: Vec<&str> = audit["audit"]
        .as_array()
        .expect("audit rows")
        .iter()
        .filter_map(|row| row["result"].as_str())
        .collect();
    assert_eq!(results.len(), 3, "{audit}");
    assert_eq!(results[0], "done");
    assert!(
        results[1..]
            .iter()
            .all(|result| result.starts_with("refused"))
    );
    // A delivered attempt is no dead letter.
    let delivered = log
        .iter()
        .find(|row| row.attempt.outcome == WebhookOutcome::Delivered)
        .expect("a delivered attempt");
    let delivered = format!("/operator/api/webhooks/{}/replay", delivered.id);
    let (status, refused) = operator_post(&node.service, &delivered, &full, &body).await;
    assert_eq!(
        (status, &refused["code"]),
        (409, &Value::from("not_dead_letter"))
    );
    node.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_a_dead_letter_is_replayed_to_a_receiver_that_came_back() {
    a_dead_letter_is_replayed_to_a_receiver_that_came_back(Db::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_a_dead_letter_is_replayed_to_a_receiver_that_came_back() {
    a_dead_letter_is_replayed_to_a_receiver_that_came_back(Db::Postgres).await;
}
