//! The realtime channel's load client, driven by `examples/bench-realtime.sh`:
//!
//! - `connections BASE ACCOUNTS PER_ACCOUNT HOLD_SECS`: signs in `ACCOUNTS` device accounts on
//!   the server at `BASE` and opens `PER_ACCOUNT` channels for each, reads every welcome, prints
//!   `open N` and holds them (reading) for `HOLD_SECS`, so that the script measures the server's
//!   memory with them open;
//! - `latency CHANGE_BASE CHANNEL_BASE ACCOUNTS CHANGES`: signs in `ACCOUNTS` accounts, opens
//!   their channels on the node at `CHANNEL_BASE`, then makes `CHANGES` changes (each a sign-in
//!   of one of the accounts' devices again, which commits a `signed_in` event) through the node
//!   at `CHANGE_BASE`, one account's at a time, and times each from the moment its request was
//!   sent (before the commit) to its message on the other node's channel: p50, p99 and max.
//!
//! ```text
//! cargo run --release -p safezone-examples --example bench_realtime -- connections http://127.0.0.1:8080 2000 5 10
//! ```

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use futures_util::future::join_all;
use tokio::sync::Semaphore;
use tokio_tungstenite::tungstenite::Message;

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// How many requests or handshakes run at once.
const AT_ONCE: usize = 64;

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |at: usize| -> usize {
        args.get(at)
            .and_then(|text| text.parse().ok())
            .unwrap_or_else(|| usage())
    };
    match args.first().map(String::as_str) {
        Some("connections") if args.len() == 5 => {
            connections(&args[1], number(2), number(3), number(4)).await;
        }
        Some("latency") if args.len() == 5 => {
            latency(&args[1], &args[2], number(3), number(4)).await;
        }
        _ => usage(),
    }
}

fn usage() -> ! {
    eprintln!(
        "usage: bench_realtime connections BASE ACCOUNTS PER_ACCOUNT HOLD_SECS\n       \
         bench_realtime latency CHANGE_BASE CHANNEL_BASE ACCOUNTS CHANGES"
    );
    std::process::exit(2)
}

/// Signs in the device `device` at `base`; answers its user key.
async fn sign_in(client: &reqwest::Client, base: &str, device: &str) -> String {
    let answer: serde_json::Value = client
        .post(format!("{base}/api/validate/device/{device}"))
        .send()
        .await
        .expect("the server answers")
        .json()
        .await
        .expect("a JSON answer");
    answer["user"]["key"]
        .as_str()
        .unwrap_or_else(|| panic!("no key: {answer}"))
        .to_owned()
}

/// `count` new device accounts at `base`: their devices and keys.
async fn accounts(client: &reqwest::Client, base: &str, count: usize) -> Vec<(String, String)> {
    let limit = Arc::new(Semaphore::new(AT_ONCE));
    join_all((0..count).map(|number| {
        let limit = Arc::clone(&limit);
        async move {
            let _permit = limit.acquire().await.expect("open");
            let device = format!("android-bench-realtime-{number}");
            let key = sign_in(client, base, &device).await;
            (device, key)
        }
    }))
    .await
}

/// Opens `key`'s channel at `base` and reads its welcome.
async fn open(base: &str, key: &str) -> Socket {
    let url = format!(
        "{}/api/realtime?userKey={key}",
        base.replacen("http", "ws", 1)
    );
    let (mut socket, _) = tokio_tungstenite::connect_async(url)
        .await
        .expect("the channel opens");
    loop {
        match socket.next().await {
            Some(Ok(Message::Text(text))) if text.contains("\"welcome\"") => return socket,
            Some(Ok(_)) => {}
            other => panic!("no welcome: {other:?}"),
        }
    }
}

async fn connections(base: &str, count: usize, per_account: usize, hold_secs: usize) {
    let client = reqwest::Client::new();
    let keys = accounts(&client, base, count).await;
    let started = Instant::now();
    let limit = Arc::new(Semaphore::new(AT_ONCE));
    let sockets = join_all(
        keys.iter()
            .flat_map(|(_, key)| std::iter::repeat_n(key, per_account))
            .map(|key| {
                let limit = Arc::clone(&limit);
                async move {
                    let _permit = limit.acquire().await.expect("open");
                    open(base, key).await
                }
            }),
    )
    .await;
    println!(
        "open {} in {:.1} s",
        sockets.len(),
        started.elapsed().as_secs_f64()
    );
    // Each socket is read (answering the server's pings) while they are held.
    let held: Vec<_> = sockets
        .into_iter()
        .map(|mut socket| {
            tokio::spawn(async move { while let Some(Ok(_)) = socket.next().await {} })
        })
        .collect();
    tokio::time::sleep(Duration::from_secs(hold_secs as u64)).await;
    println!("held {} for {hold_secs} s", held.len());
}

async fn latency(change_base: &str, channel_base: &str, count: usize, changes: usize) {
    let client = reqwest::Client::new();
    let accounts = accounts(&client, change_base, count).await;
    // The sign-ins' own events are relayed before the channels open.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let per_account = changes.div_ceil(count);
    let started = Instant::now();
    let timings = join_all(accounts.iter().map(|(device, key)| {
        let client = &client;
        async move {
            let mut socket = open(channel_base, key).await;
            let mut timings = Vec::with_capacity(per_account);
            for _ in 0..per_account {
                let sent = Instant::now();
                sign_in(client, change_base, device).await;
                loop {
                    match socket.next().await {
                        Some(Ok(Message::Text(text))) if text.contains("\"signed_in\"") => break,
                        Some(Ok(_)) => {}
                        other => panic!("the channel ended: {other:?}"),
                    }
                }
                timings.push(sent.elapsed());
            }
            timings
        }
    }))
    .await;
    let mut all: Vec<Duration> = timings.into_iter().flatten().collect();
    all.sort();
    let at = |fraction: f64| all[((all.len() as f64 * fraction) as usize).min(all.len() - 1)];
    println!(
        "changes {} over {} accounts in {:.1} s: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        all.len(),
        count,
        started.elapsed().as_secs_f64(),
        at(0.50).as_secs_f64() * 1e3,
        at(0.99).as_secs_f64() * 1e3,
        all.last().map_or(0.0, |max| max.as_secs_f64() * 1e3),
    );
}
