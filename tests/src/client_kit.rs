//! The client kit's Node half, run against a real server: the TypeScript client of
//! `clients/typescript` (built with `tsc`, which checks it against the generated types) playing
//! a new player's first session, its realtime client's unit tests, its check of the OpenAPI
//! documents against the OpenAPI schemas, and the API reference page in headless Chromium (`login-kit/reference-page.mjs`,
//! `playwright-core`).
//!
//! Needs `npm ci --prefix clients/typescript` and `npm ci --prefix tests/login-kit` (CI's
//! `.ci/run` does both) and Debian's Chromium at `/usr/bin/chromium` (or `CHROMIUM_PATH`).

use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::login_kit::kit_dir;

/// How long one Node run may take before it is killed.
const NODE_TIMEOUT: Duration = Duration::from_secs(120);

/// The TypeScript client's folder: `clients/typescript`.
pub fn client_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../clients/typescript")
}

/// What a Node script of the kit reported: its last JSON line, and its standard error.
#[derive(Debug)]
pub struct NodeOutcome {
    /// The script exited 0 and reported `"ok": true`.
    pub ok: bool,
    /// The report (`{"ok": false, "error": "no report"}` when it printed none).
    pub report: Value,
    /// Its progress lines.
    pub stderr: String,
}

/// Runs `node` with `args` in `dir`, killed after [`NODE_TIMEOUT`]: a script that reports one
/// JSON line.
pub(crate) async fn run_node(dir: &Path, args: &[&str]) -> NodeOutcome {
    let (succeeded, stdout, stderr) = node_process(dir, args).await;
    let report = stdout
        .lines()
        .rev()
        .find_map(|line| serde_json::from_str::<Value>(line).ok())
        .unwrap_or_else(|| json!({ "ok": false, "error": "no report", "stdout": stdout }));
    NodeOutcome {
        ok: succeeded && report["ok"] == true,
        report,
        stderr,
    }
}

/// Runs `node` with `args` in `dir`, killed after [`NODE_TIMEOUT`]: whether it exited 0, its
/// standard output and its standard error.
async fn node_process(dir: &Path, args: &[&str]) -> (bool, String, String) {
    let mut child = Command::new("node")
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node starts (is Node.js installed?)");
    let stdout = collect(child.stdout.take().expect("piped stdout"));
    let stderr = collect(child.stderr.take().expect("piped stderr"));
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if started.elapsed() > NODE_TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => tokio::time::sleep(Duration::from_millis(50)).await,
            Err(error) => panic!("waiting for node: {error}"),
        }
    };
    let stdout = stdout.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default();
    (
        status.is_some_and(|status| status.success()),
        stdout,
        stderr,
    )
}

/// Reads all of `reader` on a thread of its own; join the handle for the text.
fn collect(reader: impl Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut text = String::new();
        let _ = BufReader::new(reader).read_to_string(&mut text);
        text
    })
}

/// The TypeScript client and its scripts compiled by `tsc` into a folder of their own
/// (`clients/typescript/.test-build/<random>`, so that tests running at once never share one),
/// removed when dropped.
pub struct ClientBuild {
    dir: PathBuf,
}

impl ClientBuild {
    /// Compiles the client: a client that no longer fits its generated types fails here.
    pub fn compile() -> Self {
        let client = client_dir();
        assert!(
            client.join("node_modules/typescript").is_dir(),
            "the TypeScript client's packages are missing: run `npm ci --prefix clients/typescript`"
        );
        let dir = client
            .join(".test-build")
            .join(uuid::Uuid::new_v4().simple().to_string());
        let output = Command::new("node")
            .arg("node_modules/typescript/bin/tsc")
            .args(["-p", ".", "--outDir"])
            .arg(&dir)
            .current_dir(&client)
            .output()
            .expect("node runs tsc");
        assert!(
            output.status.success(),
            "the TypeScript client does not compile:\n{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        Self { dir }
    }

    /// Plays a new player's first session through the client against the server at `base`
    /// (`clients/typescript/test/first-session.ts`).
    pub async fn play_first_session(&self, base: &str) -> NodeOutcome {
        let script = self.dir.join("test/first-session.js");
        let script = script.to_str().expect("a UTF-8 path");
        run_node(&client_dir(), &[script, "--base", base]).await
    }

    /// Plays the realtime channel through the client's `RealtimeClient` against the server at
    /// `base` (`clients/typescript/test/realtime-session.ts`: a purchase on the open channel, a
    /// pack opened while none is, resumed after the purchase), with Node's standard `WebSocket`.
    pub async fn play_realtime_session(&self, base: &str) -> NodeOutcome {
        let script = self.dir.join("test/realtime-session.js");
        let script = script.to_str().expect("a UTF-8 path");
        let args = ["--experimental-websocket", script, "--base", base];
        run_node(&client_dir(), &args).await
    }

    /// Runs the realtime client's unit tests (`clients/typescript/test/realtime.test.ts`, a fake
    /// WebSocket) with Node's test runner: `ok` when every test passed, the runner's TAP report
    /// as `report`.
    pub async fn test_realtime_client(&self) -> NodeOutcome {
        let tests = self.dir.join("test/realtime.test.js");
        let tests = tests.to_str().expect("a UTF-8 path");
        let args = ["--test", "--test-reporter=tap", tests];
        let (succeeded, stdout, stderr) = node_process(&client_dir(), &args).await;
        NodeOutcome {
            ok: succeeded,
            report: Value::String(stdout),
            stderr,
        }
    }
}

impl Drop for ClientBuild {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Checks the OpenAPI documents in `files` against the OpenAPI schema of their version
/// (`clients/typescript/test/validate.mjs`, `@apidevtools/swagger-parser`).
pub async fn validate_documents(files: &[&Path]) -> NodeOutcome {
    let mut args = vec!["test/validate.mjs"];
    args.extend(
        files
            .iter()
            .map(|file| file.to_str().expect("a UTF-8 path")),
    );
    run_node(&client_dir(), &args).await
}

/// Opens the API reference page of the server at `base` in headless Chromium
/// (`login-kit/reference-page.mjs`).
pub async fn open_reference_page(base: &str) -> NodeOutcome {
    assert!(
        kit_dir().join("node_modules/playwright-core").is_dir(),
        "the login kit's Node packages are missing: run `npm ci --prefix tests/login-kit`"
    );
    run_node(&kit_dir(), &["reference-page.mjs", "--safezone", base]).await
}
