//! The checks of a server binary, written once for both: it announces its address, serves,
//! stops on SIGTERM, refuses a bad content file or an unusable database, answers every form of
//! request target in JSON without a panic, and logs JSON lines with request ids and without
//! secrets while serving metrics on an address of its own; and what operating a node takes
//! (`operating`: migrations, probes, backups).
//!
//! Each server crate's `tests/binary.rs` includes this file as module `binary_checks` (with
//! `#[path]`; only there does `env!("CARGO_BIN_EXE_...")` name the binary) and calls
//! [`for_binary!`] with its binary's path.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

#[path = "binary_checks/operating.rs"]
pub mod operating;

#[path = "binary_checks/content_tools.rs"]
pub mod content_tools;

/// Generates one `#[test]` per check of this module, run on the binary at `$binary`.
///
/// The including crate must declare this file as the module `binary_checks` at its root.
macro_rules! for_binary {
    ($binary:expr) => {
        #[test]
        fn serves_and_stops_on_sigterm() {
            $crate::binary_checks::serves_and_stops_on_sigterm($binary);
        }

        #[test]
        fn a_bad_content_file_exits_with_code_2_naming_the_line() {
            $crate::binary_checks::a_bad_content_file_exits_with_code_2_naming_the_line($binary);
        }

        #[test]
        fn an_unusable_database_exits_with_code_1() {
            $crate::binary_checks::an_unusable_database_exits_with_code_1($binary);
        }

        #[test]
        fn check_content_and_admin_commands_exit_with_their_codes() {
            $crate::binary_checks::check_content_and_admin_commands_exit_with_their_codes($binary);
        }

        #[test]
        fn the_openapi_command_writes_the_document_without_a_database() {
            $crate::binary_checks::the_openapi_command_writes_the_document_without_a_database(
                $binary,
            );
        }

        #[test]
        fn the_command_line_names_the_binary_and_shows_no_secret() {
            $crate::binary_checks::the_command_line_names_the_binary_and_shows_no_secret(
                $binary,
                env!("CARGO_PKG_VERSION"),
            );
        }

        #[test]
        fn every_request_target_gets_json_and_nothing_panics() {
            $crate::binary_checks::every_request_target_gets_json_and_nothing_panics($binary);
        }

        #[test]
        fn a_fresh_database_gets_the_starter_community_unless_turned_off() {
            $crate::binary_checks::a_fresh_database_gets_the_starter_community_unless_turned_off(
                $binary,
            );
        }

        #[test]
        fn json_logs_carry_request_ids_and_no_secrets() {
            $crate::binary_checks::json_logs_carry_request_ids_and_no_secrets($binary);
        }

        #[tokio::test]
        async fn migrations_are_explicit_for_operators() {
            $crate::binary_checks::operating::migrations_are_explicit_for_operators($binary).await;
        }

        #[test]
        fn an_unreachable_database_is_tried_again_until_the_timeout() {
            $crate::binary_checks::operating::an_unreachable_database_is_tried_again_until_the_timeout(
                $binary,
            );
        }

        #[test]
        fn content_tools_name_every_problem_and_end_quietly() {
            $crate::binary_checks::content_tools::content_tools_name_every_problem_and_end_quietly(
                $binary,
            );
        }

        #[test]
        fn a_node_says_when_its_content_file_is_not_served() {
            $crate::binary_checks::content_tools::a_node_says_when_its_content_file_is_not_served(
                $binary,
            );
        }

        #[tokio::test]
        async fn backup_copies_sqlite_and_refuses_postgres() {
            $crate::binary_checks::operating::backup_copies_sqlite_and_refuses_postgres($binary)
                .await;
        }
    };
}
pub(crate) use for_binary;

/// A child process, killed if a test ends before it does.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The address from the first line of standard output.
fn announced_address(child: &mut Child) -> String {
    announced_lines(child, 1).remove(0)
}

/// The first `count` lines of standard output, each `... on http://ADDRESS[/path]`, as the
/// addresses they announce (`safezone listening on http://...`, then, with
/// `--metrics-listen`, `safezone metrics on http://.../metrics`, then, with
/// `--operator-listen`, `safezone operator console on http://.../operator/console/`).
fn announced_lines(child: &mut Child, count: usize) -> Vec<String> {
    let stdout = child.stdout.take().expect("a piped stdout");
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let mut stdout = BufReader::new(stdout);
        for _ in 0..count {
            let mut line = String::new();
            let _ = stdout.read_line(&mut line);
            let _ = sender.send(line);
        }
    });
    let expected = [
        ("safezone listening on http://", ""),
        ("safezone metrics on http://", "/metrics"),
        ("safezone operator console on http://", "/operator/console/"),
    ];
    (0..count)
        .map(|index| {
            let line = receiver
                .recv_timeout(Duration::from_secs(60))
                .expect("a line in time");
            expected
                .iter()
                .find_map(|(prefix, suffix)| {
                    line.trim_end().strip_prefix(prefix)?.strip_suffix(suffix)
                })
                .unwrap_or_else(|| panic!("unexpected line {index} {line:?}"))
                .to_owned()
        })
        .collect()
}

/// The status line of `GET path`, over plain TCP.
fn status_line(address: &str, path: &str) -> String {
    let answer = exchange(address, "GET", path);
    answer.lines().next().unwrap_or_default().to_owned()
}

/// The whole answer (status line, headers, body) to `METHOD path` without a body, over plain
/// TCP.
fn exchange(address: &str, method: &str, path: &str) -> String {
    let mut stream = TcpStream::connect(address).expect("a connection");
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {address}\r\nContent-Length: 0\r\n\
         Connection: close\r\n\r\n"
    )
    .expect("sent");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("an answer");
    answer
}

/// A fresh database gets the starter poll (open now) and tournament (`WELCOME-CUP`, opening
/// later) at the first start, once; `--no-starter-community` leaves it empty.
pub fn a_fresh_database_gets_the_starter_community_unless_turned_off(binary: &str) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for (file, flags, seeded) in [
        ("seeded.db", &[][..], true),
        ("seeded.db", &[][..], true),
        ("empty.db", &["--no-starter-community"][..], false),
    ] {
        let url = format!("sqlite://{}", dir.path().join(file).display());
        let child = Command::new(binary)
            .args(["--listen", "127.0.0.1:0", "--database-url", &url])
            .args(flags)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the binary starts");
        let mut running = Running(child);
        let address = announced_address(&mut running.0);
        let signed_in = exchange(
            &address,
            "POST",
            "/api/validate/device/ios-starter-check-device",
        );
        let key = signed_in
            .split("\"key\":\"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .unwrap_or_else(|| panic!("a key in {signed_in}"));
        let polls = exchange(
            &address,
            "GET",
            &format!("/api/poll/available?userKey={key}"),
        );
        assert_eq!(
            polls.matches("\"question\"").count(),
            usize::from(seeded),
            "{flags:?}: {polls}"
        );
        let cup = status_line(&address, "/api/tournament/WELCOME-CUP/join");
        let unknown = status_line(&address, "/api/tournament/NO-SUCH-CUP/join");
        assert_eq!(cup != unknown, seeded, "{flags:?}: {cup} / {unknown}");
        assert!(stop_with_sigterm(&mut running).success());
    }
}

/// The binary announces its address, serves, and exits with 0 on SIGTERM, logging that it
/// stopped; its text log, written to a pipe, has no colour codes.
pub fn serves_and_stops_on_sigterm(binary: &str) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let url = format!("sqlite://{}", dir.path().join("x.db").display());
    let child = Command::new(binary)
        .args(["--listen", "127.0.0.1:0", "--database-url", &url])
        .env_remove("RUST_LOG")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let mut running = Running(child);
    let address = announced_address(&mut running.0);
    assert_eq!(status_line(&address, "/api"), "HTTP/1.1 200 OK");

    let status = stop_with_sigterm(&mut running);
    assert!(status.success(), "{status}");
    let mut log = String::new();
    running
        .0
        .stderr
        .take()
        .expect("a piped stderr")
        .read_to_string(&mut log)
        .expect("the log");
    assert!(log.contains(" INFO "), "{log}");
    assert!(log.contains("SIGTERM: shutting down"), "{log}");
    assert!(log.contains("safezone stopped"), "{log}");
    assert!(
        !log.contains('\u{1b}'),
        "colour codes in a piped log: {log:?}"
    );
}

/// `--version` names the binary; no help page shows the database URL's password from the
/// environment; an operator's command prints its result and no log lines.
pub fn the_command_line_names_the_binary_and_shows_no_secret(binary: &str, version: &str) {
    let name = std::path::Path::new(binary)
        .file_name()
        .and_then(|name| name.to_str())
        .expect("a binary name");
    let output = Command::new(binary)
        .arg("--version")
        .output()
        .expect("the binary runs");
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        format!("{name} {version}\n")
    );

    let secret_url = "postgres://safezone:pw-s3cret@127.0.0.1:1/safezone";
    for help in [
        &["--help"][..],
        &["poll", "create", "--help"],
        &["grant", "--help"],
    ] {
        let output = Command::new(binary)
            .args(help)
            .env("SAFEZONE_DATABASE_URL", secret_url)
            .output()
            .expect("the binary runs");
        let text = String::from_utf8_lossy(&output.stdout);
        assert!(text.contains("SAFEZONE_DATABASE_URL"), "{help:?}: {text}");
        assert!(
            !text.contains("pw-s3cret"),
            "{help:?} shows the password: {text}"
        );
    }

    let dir = tempfile::tempdir().expect("a temporary directory");
    let url = format!("sqlite://{}", dir.path().join("x.db").display());
    migrate_apply(binary, &url);
    let output = Command::new(binary)
        .args([
            "--database-url",
            &url,
            "poll",
            "create",
            "--question",
            "Next map?",
        ])
        .args(["--option", "Desert:#e0c080", "--option", "Jungle:#20a040"])
        .args(["--ends", "2099-01-01T00:00:00Z"])
        .env_remove("RUST_LOG")
        .output()
        .expect("the binary runs");
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert!(
        String::from_utf8_lossy(&output.stdout).starts_with("created poll 1 "),
        "{output:?}"
    );
    assert!(output.stderr.is_empty(), "log lines: {output:?}");
}

/// Runs `migrate apply` on the database at `url`, which must succeed: the operator's commands
/// never migrate.
fn migrate_apply(binary: &str, url: &str) {
    let output = Command::new(binary)
        .args(["--database-url", url, "migrate", "apply"])
        .output()
        .expect("the binary runs");
    assert_eq!(output.status.code(), Some(0), "{output:?}");
}

/// Sends SIGTERM and answers the exit status, which must come within 10 s.
fn stop_with_sigterm(running: &mut Running) -> ExitStatus {
    let pid = running.0.id().to_string();
    let killed = Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(status) = running.0.try_wait().expect("a status") {
            return status;
        }
        assert!(
            Instant::now() < deadline,
            "still running 10 s after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A bad content file stops the binary with code 2 and a message naming the line.
pub fn a_bad_content_file_exits_with_code_2_naming_the_line(binary: &str) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let content = dir.path().join("content.toml");
    std::fs::write(&content, "[client]\nmaintenance = \"sometimes\"\n").expect("written");
    let url = format!("sqlite://{}", dir.path().join("x.db").display());
    let output = Command::new(binary)
        .args([
            "--listen",
            "127.0.0.1:0",
            "--database-url",
            &url,
            "--content",
        ])
        .arg(&content)
        .output()
        .expect("the binary runs");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("line 2"), "{stderr}");
    assert!(output.stdout.is_empty());
}

/// A database that cannot be opened stops the binary with code 1.
pub fn an_unusable_database_exits_with_code_1(binary: &str) {
    let output = Command::new(binary)
        .args([
            "--listen",
            "127.0.0.1:0",
            "--database-url",
            "nonsense://nowhere",
        ])
        .output()
        .expect("the binary runs");
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("cannot open the database"));
    assert!(output.stdout.is_empty());
}

/// `check-content` checks a file without a database (0 and `ok` for the shipped file, 2 with
/// the line for a broken one); an admin command exits 1 for an unknown account and 2 for a bad
/// friend code.
pub fn check_content_and_admin_commands_exit_with_their_codes(binary: &str) {
    let shipped =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/content/safezone.toml");
    let dir = tempfile::tempdir().expect("a temporary directory");
    // No database is opened: an unusable URL changes nothing.
    let output = Command::new(binary)
        .args(["--database-url", "nonsense://nowhere", "check-content"])
        .arg(&shipped)
        .output()
        .expect("the binary runs");
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert_eq!(String::from_utf8_lossy(&output.stdout), "ok\n");

    let broken = dir.path().join("broken.toml");
    std::fs::write(&broken, "[client]\nmaintenance = \"sometimes\"\n").expect("written");
    let output = Command::new(binary)
        .args(["check-content"])
        .arg(&broken)
        .output()
        .expect("the binary runs");
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("line 2"));
    assert!(output.stdout.is_empty());

    let url = format!("sqlite://{}", dir.path().join("x.db").display());
    migrate_apply(binary, &url);
    let output = Command::new(binary)
        .args(["--database-url", &url, "make-admin", "--to", "Nobody#0001"])
        .output()
        .expect("the binary runs");
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert!(String::from_utf8_lossy(&output.stderr).contains("Nobody#0001"));
    assert!(output.stdout.is_empty());

    let output = Command::new(binary)
        .args(["--database-url", &url, "make-admin", "--to", "nobody"])
        .output()
        .expect("the binary runs");
    assert_eq!(output.status.code(), Some(2), "{output:?}");
}

/// `openapi` writes the OpenAPI 3.1 document on standard output, or with `--openapi-3-0` its
/// 3.0 variant to `--out`, without a database (an unusable URL changes nothing); a file it
/// cannot write exits 1.
pub fn the_openapi_command_writes_the_document_without_a_database(binary: &str) {
    let output = Command::new(binary)
        .args(["--database-url", "nonsense://nowhere", "openapi"])
        .output()
        .expect("the binary runs");
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let v31: serde_json::Value = serde_json::from_slice(&output.stdout).expect("a JSON document");
    assert_eq!(v31["openapi"], "3.1.0");
    assert!(v31["paths"]["/api/docs"].is_object());

    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = dir.path().join("openapi-3.0.json");
    let output = Command::new(binary)
        .args(["openapi", "--openapi-3-0", "--out"])
        .arg(&out)
        .output()
        .expect("the binary runs");
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert!(output.stdout.is_empty());
    let v30: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("written")).expect("JSON");
    assert_eq!(v30["openapi"], "3.0.3");
    let paths =
        |document: &serde_json::Value| document["paths"].as_object().map(|paths| paths.len());
    assert_eq!(paths(&v30), paths(&v31));

    let output = Command::new(binary)
        .args(["openapi", "--out"])
        .arg(dir.path().join("no/such/folder/openapi.json"))
        .output()
        .expect("the binary runs");
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert!(String::from_utf8_lossy(&output.stderr).contains("cannot write"));
}

/// Request headers: names and values.
type Headers<'a> = Vec<(&'a str, &'a str)>;

/// An answer read over plain TCP.
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(known, _)| known.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }
}

/// Sends `method path` with `headers` (and an empty body) over plain TCP.
fn send(address: &str, method: &str, path: &str, headers: &[(&str, &str)]) -> Answer {
    let mut stream = TcpStream::connect(address).expect("a connection");
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\nContent-Length: 0\r\n"
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    stream.write_all(request.as_bytes()).expect("sent");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("an answer");
    let (head, body) = answer.split_once("\r\n\r\n").expect("a head and a body");
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|line| line.split(' ').nth(1))
        .and_then(|code| code.parse().ok())
        .expect("a status line");
    let headers = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_owned(), value.trim().to_owned()))
        .collect();
    Answer {
        status,
        headers,
        body: body.to_owned(),
    }
}

/// Every form of request target gets a JSON answer over plain TCP: authority-form
/// (`CONNECT host:port`, `GET api`), asterisk-form (`OPTIONS *`), methods the server does not
/// know, each a 4xx; absolute-form, served as its path. Nothing panics: standard error, where
/// a panic's message goes, never says `panicked`.
pub fn every_request_target_gets_json_and_nothing_panics(binary: &str) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let url = format!("sqlite://{}", dir.path().join("x.db").display());
    let log_path = dir.path().join("stderr.log");
    let log = std::fs::File::create(&log_path).expect("a log file");
    let child = Command::new(binary)
        .args(["--listen", "127.0.0.1:0", "--database-url", &url])
        .stdout(Stdio::piped())
        .stderr(log)
        .spawn()
        .expect("the binary starts");
    let mut running = Running(child);
    let address = announced_address(&mut running.0);
    let absolute = format!("http://{address}/api");
    let without_path = format!("http://{address}");
    let refused = [
        ("CONNECT", "127.0.0.1:80"),
        ("CONNECT", "example.com:443"),
        ("GET", "api"),
        ("OPTIONS", "*"),
        ("GET", "*"),
        ("PURGE", "*"),
        ("CONNECT", "/api"),
        ("PURGE", "/api"),
        ("GET", without_path.as_str()),
    ];
    for (method, target) in refused {
        let answer = send(&address, method, target, &[]);
        assert!(
            (400..500).contains(&answer.status),
            "{method} {target}: {} {}",
            answer.status,
            answer.body
        );
        assert_json(&answer, &format!("{method} {target}"));
    }
    let served = send(&address, "GET", &absolute, &[]);
    assert_eq!(served.status, 200, "{}", served.body);
    assert_json(&served, &absolute);
    assert_eq!(status_line(&address, "/api"), "HTTP/1.1 200 OK");

    let status = stop_with_sigterm(&mut running);
    assert!(status.success(), "{status}");
    let logs = std::fs::read_to_string(&log_path).expect("the logs");
    assert!(!logs.contains("panicked"), "a panic:\n{logs}");
}

/// Asserts that `answer` (to `request`) is the JSON envelope.
fn assert_json(answer: &Answer, request: &str) {
    assert_eq!(
        answer.header("content-type"),
        Some("application/json"),
        "{request}"
    );
    let body: serde_json::Value = serde_json::from_str(&answer.body)
        .unwrap_or_else(|error| panic!("{request}: not JSON ({error}): {}", answer.body));
    assert!(body["status"].is_string(), "{request}: {body}");
}

/// With `--log-format json` and `--metrics-listen`: every line on standard error is a JSON
/// object; the lines of each request carry the request id its `x-request-id` header gave (a
/// fresh one instead of a client's 3 kB id, which is never logged); no
/// credential (a user key in the path, the `userKey` query, a Bearer header or a cookie; a
/// device id, a chat token, a provider's code, the game-server credential) is ever logged;
/// and the metrics address answers `/metrics`.
pub fn json_logs_carry_request_ids_and_no_secrets(binary: &str) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let url = format!("sqlite://{}", dir.path().join("x.db").display());
    let log_path = dir.path().join("stderr.log");
    let log = std::fs::File::create(&log_path).expect("a log file");
    let server_token = "game-server-credential-5f2a9c71";
    let child = Command::new(binary)
        .args([
            "--listen",
            "127.0.0.1:0",
            "--metrics-listen",
            "127.0.0.1:0",
            "--log-format",
            "json",
            "--database-url",
            &url,
            "--game-server-token",
            server_token,
        ])
        // Debug lines too: every line must be free of secrets, not only the default ones.
        .env("RUST_LOG", "debug")
        .stdout(Stdio::piped())
        .stderr(log)
        .spawn()
        .expect("the binary starts");
    let mut running = Running(child);
    let announced = announced_lines(&mut running.0, 2);
    let (address, metrics) = (announced[0].as_str(), announced[1].as_str());

    let device = "android-6f0c2d9e-81b4-4a57-9e0d-3c1b7a2f5e48";
    let signed_in = send(
        address,
        "POST",
        &format!("/api/validate/device/{device}"),
        &[],
    );
    assert_eq!(signed_in.status, 200, "{}", signed_in.body);
    let body: serde_json::Value = serde_json::from_str(&signed_in.body).expect("JSON");
    let key = body["user"]["key"].as_str().expect("a key").to_owned();
    let chat_token = "chat-token-0d8e1f2a3b4c";
    let idp_code = "idp-code-9a8b7c6d5e4f";
    let wrong_token = "not-the-game-server-credential-77";
    let bearer = format!("Bearer {key}");
    let cookie = format!("userKey={key}");
    let server_bearer = format!("Bearer {server_token}");
    let wrong_bearer = format!("Bearer {wrong_token}");
    let requests: Vec<(&str, String, Headers)> = vec![
        ("GET", format!("/api/user/{key}"), vec![]),
        ("GET", format!("/user/{key}"), vec![]),
        ("GET", format!("/api/user/{key}/no-such-thing"), vec![]),
        (
            "GET",
            format!("/api/config?platform=web&userKey={key}"),
            vec![],
        ),
        (
            "GET",
            "/api/config?platform=web".to_owned(),
            vec![("Authorization", &bearer)],
        ),
        (
            "GET",
            "/api/config?platform=web".to_owned(),
            vec![("Cookie", &cookie)],
        ),
        ("POST", format!("/api/validate/chat/{chat_token}"), vec![]),
        ("POST", format!("/api/validate/idpone/{idp_code}"), vec![]),
        // Paths that match no route are redacted like those that do.
        ("POST", format!("/api//validate/device//{device}"), vec![]),
        (
            "POST",
            format!("/api/validate/chat/{chat_token}/more"),
            vec![],
        ),
        (
            "POST",
            "/internal/matches".to_owned(),
            vec![("Authorization", &server_bearer)],
        ),
        (
            "POST",
            "/internal/matches".to_owned(),
            vec![("Authorization", &wrong_bearer)],
        ),
    ];
    let mut request_ids = vec![
        signed_in
            .header("x-request-id")
            .expect("a request id")
            .to_owned(),
    ];
    let unfit_id = "x".repeat(3000);
    let with_unfit_id = send(address, "GET", "/api", &[("x-request-id", &unfit_id)]);
    let fresh_id = with_unfit_id.header("x-request-id").expect("a request id");
    assert!(fresh_id.len() <= 64 && fresh_id != unfit_id, "{fresh_id}");
    request_ids.push(fresh_id.to_owned());
    for (method, path, headers) in &requests {
        let answer = send(address, method, path, headers);
        // 501 answers the sign-ins that need an auth file; nothing fails.
        assert!(
            answer.status < 500 || answer.status == 501,
            "{method} {path}: {}",
            answer.body
        );
        let request_id = answer.header("x-request-id").expect("a request id");
        request_ids.push(request_id.to_owned());
    }

    let scrape = send(metrics, "GET", "/metrics", &[]);
    assert_eq!(scrape.status, 200);
    assert!(
        scrape.body.contains("safezone_http_requests_total{"),
        "{}",
        scrape.body
    );
    assert!(!scrape.body.contains(&key));
    assert_eq!(send(metrics, "GET", "/other", &[]).status, 404);

    let status = stop_with_sigterm(&mut running);
    assert!(status.success(), "{status}");
    let logs = std::fs::read_to_string(&log_path).expect("the logs");
    for secret in [
        key.as_str(),
        device,
        chat_token,
        idp_code,
        server_token,
        wrong_token,
    ] {
        assert!(!logs.contains(secret), "{secret} was logged:\n{logs}");
    }
    assert!(!logs.contains(&unfit_id), "a 3 kB request id was logged");
    let lines: Vec<serde_json::Value> = logs
        .lines()
        .filter(|line| !line.is_empty())
        .map(|line| {
            let value: serde_json::Value = serde_json::from_str(line)
                .unwrap_or_else(|error| panic!("not JSON ({error}): {line}"));
            assert!(value.is_object(), "not an object: {line}");
            value
        })
        .collect();
    let request_id_of = |line: &serde_json::Value| -> Option<String> {
        line["spans"]
            .as_array()?
            .iter()
            .find(|span| span["name"] == "request")
            .map(|span| span["request_id"].as_str().unwrap_or_default().to_owned())
    };
    for line in &lines {
        if let Some(request_id) = request_id_of(line) {
            assert!(
                !request_id.is_empty(),
                "a request line without its id: {line}"
            );
        }
    }
    for request_id in &request_ids {
        let carried = lines
            .iter()
            .filter(|line| request_id_of(line).as_deref() == Some(request_id.as_str()))
            .count();
        assert!(carried >= 1, "no line of request {request_id}:\n{logs}");
    }
}
