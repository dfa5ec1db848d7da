//! The content's command-line tools as an operator runs them: `check-content` and `content
//! diff` naming every problem, `content diff` from the `--content` file before the first
//! publication, `content show`, output cut short by its reader ending quietly, and a node
//! saying at start and in its status that a published version is served instead of its
//! `--content` file.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use super::{Running, announced_lines, migrate_apply, send, stop_with_sigterm};

/// The shipped content file.
fn shipped() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/content/safezone.toml");
    std::fs::read_to_string(path).expect("the shipped file reads")
}

/// Writes `text` to `name` in `dir`.
fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("written");
    path
}

/// Runs the binary with `args` on the database at `url`.
fn run(binary: &str, url: &str, args: &[&str]) -> Output {
    Command::new(binary)
        .args(["--database-url", url])
        .args(args)
        .env_remove("RUST_LOG")
        .output()
        .expect("the binary runs")
}

/// `check-content` and `content diff` print every problem of a file with its line and exit 2
/// (the diff still on standard output); before any publication `content diff` and `content
/// show` start from the `--content` file; `content diff | head` ends quietly.
pub fn content_tools_name_every_problem_and_end_quietly(binary: &str) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let url = format!("sqlite://{}", dir.path().join("x.db").display());
    migrate_apply(binary, &url);
    let shipped = shipped();
    let line_of = |text: &str, at: &str| text[..text.find(at).expect("there")].lines().count() + 1;
    let bad_text = shipped
        .replacen("maintenance = false", "maintenance = 3", 1)
        .replacen("rename_cost_gems = 40", "rename_cost_gems = -1", 1);
    let bad = write(dir.path(), "bad.toml", &bad_text);
    let bad_path = bad.to_str().expect("a UTF-8 path");
    let lines = [
        line_of(&bad_text, "maintenance = 3"),
        line_of(&bad_text, "rename_cost_gems = -1"),
    ];

    let checked = run(binary, &url, &["check-content", bad_path]);
    let stderr = String::from_utf8_lossy(&checked.stderr);
    assert_eq!(checked.status.code(), Some(2), "{checked:?}");
    for line in lines {
        assert!(stderr.contains(&format!("line {line}:")), "{stderr}");
    }
    assert_eq!(stderr.lines().count(), 2, "{stderr}");

    let own = write(
        dir.path(),
        "own.toml",
        &shipped.replacen("maintenance = false", "maintenance = true", 1),
    );
    let own_path = own.to_str().expect("a UTF-8 path");
    let diffed = run(
        binary,
        &url,
        &["--content", own_path, "content", "diff", bad_path],
    );
    let (stdout, stderr) = (
        String::from_utf8_lossy(&diffed.stdout),
        String::from_utf8_lossy(&diffed.stderr),
    );
    assert_eq!(diffed.status.code(), Some(2), "{diffed:?}");
    assert!(stdout.starts_with(&format!("--- {own_path}")), "{stdout}");
    assert!(
        stdout.contains("-maintenance = true\n+maintenance = 3"),
        "{stdout}"
    );
    assert!(
        stderr.contains("does not pass the content check"),
        "{stderr}"
    );
    for line in lines {
        assert!(stderr.contains(&format!("line {line}:")), "{stderr}");
    }

    let shown = run(binary, &url, &["--content", own_path, "content", "show"]);
    assert_eq!(shown.status.code(), Some(0), "{shown:?}");
    assert_eq!(
        String::from_utf8_lossy(&shown.stdout),
        std::fs::read_to_string(&own).expect("reads")
    );

    // A reader that stops at once: the command ends quietly, without a panic.
    let every_line = write(dir.path(), "every.toml", &shipped.replace(" = ", "  =  "));
    let mut child = Command::new(binary)
        .args(["--database-url", &url, "content", "show"])
        .args(["--content", own_path])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    drop(child.stdout.take());
    let status = child.wait().expect("it ends");
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .expect("a piped stderr")
        .read_to_string(&mut stderr)
        .expect("stderr reads");
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
    let mut child = Command::new(binary)
        .args(["--database-url", &url, "content", "diff"])
        .arg(&every_line)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    drop(child.stdout.take());
    let status = child.wait().expect("it ends");
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .expect("a piped stderr")
        .read_to_string(&mut stderr)
        .expect("stderr reads");
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// A node started with a `--content` file while another version is published logs one
/// warning naming both, and its status says the file is not served.
pub fn a_node_says_when_its_content_file_is_not_served(binary: &str) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let url = format!("sqlite://{}", dir.path().join("x.db").display());
    migrate_apply(binary, &url);
    let shipped = shipped();
    let published = write(
        dir.path(),
        "published.toml",
        &shipped.replacen("maintenance = false", "maintenance = true", 1),
    );
    let publish = ["content", "publish", published.to_str().expect("UTF-8")];
    assert_eq!(run(binary, &url, &publish).status.code(), Some(0));
    let token = run(
        binary,
        &url,
        &[
            "operator-token",
            "create",
            "--name",
            "ops",
            "--role",
            "read",
        ],
    );
    let stdout = String::from_utf8_lossy(&token.stdout);
    let secret = stdout
        .split_whitespace()
        .find(|word| word.len() == 48)
        .unwrap_or_else(|| panic!("a secret in {stdout}"))
        .to_owned();
    let own = write(dir.path(), "own.toml", &shipped);
    let log_path = dir.path().join("stderr.log");
    let log = std::fs::File::create(&log_path).expect("a log file");
    let child = Command::new(binary)
        .args(["--database-url", &url, "--listen", "127.0.0.1:0"])
        .args(["--operator-listen", "127.0.0.1:0", "--content"])
        .arg(&own)
        .env_remove("RUST_LOG")
        .stdout(Stdio::piped())
        .stderr(log)
        .spawn()
        .expect("the binary starts");
    let mut running = Running(child);
    let addresses = announced_lines(&mut running.0, 2);
    let bearer = format!("Bearer {secret}");
    // The node's first check of the published versions runs at once after it starts.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let body = loop {
        let status = send(
            &addresses[1],
            "GET",
            "/operator/api/status",
            &[("Authorization", &bearer)],
        );
        assert_eq!(status.status, 200, "{}", status.body);
        let body: serde_json::Value = serde_json::from_str(&status.body).expect("JSON");
        if body["content_version"] == 1 || std::time::Instant::now() > deadline {
            break body;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert_eq!(body["content_version"], 1);
    assert_eq!(
        body["content_file"],
        serde_json::json!({"path": own.display().to_string(), "served": false})
    );
    assert!(stop_with_sigterm(&mut running).success());
    let log = std::fs::read_to_string(&log_path).expect("the log reads");
    let warnings: Vec<&str> = log
        .lines()
        .filter(|line| line.contains("is not served"))
        .collect();
    assert_eq!(warnings.len(), 1, "{log}");
    assert!(warnings[0].contains(&own.display().to_string()), "{log}");
    assert!(warnings[0].contains("published content version 1"), "{log}");
}
