//! The checks of a server binary, written once for both: it announces its address, serves,
//! stops on SIGTERM, and refuses a bad content file or an unusable database.
//!
//! Each server crate's `tests/binary.rs` includes this file as module `binary_checks` (with
//! `#[path]`; only there does `env!("CARGO_BIN_EXE_...")` name the binary) and calls
//! [`for_binary!`] with its binary's path.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

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
    let stdout = child.stdout.take().expect("a piped stdout");
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = sender.send(line);
    });
    let line = receiver
        .recv_timeout(Duration::from_secs(60))
        .expect("a line in time");
    line.trim_end()
        .strip_prefix("safezone listening on http://")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_owned()
}

/// The status line of `GET path`, over plain TCP.
fn status_line(address: &str, path: &str) -> String {
    let mut stream = TcpStream::connect(address).expect("a connection");
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n"
    )
    .expect("sent");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("an answer");
    answer.lines().next().unwrap_or_default().to_owned()
}

/// The binary announces its address, serves, and exits with 0 on SIGTERM.
pub fn serves_and_stops_on_sigterm(binary: &str) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let url = format!("sqlite://{}", dir.path().join("x.db").display());
    let child = Command::new(binary)
        .args(["--listen", "127.0.0.1:0", "--database-url", &url])
        .stdout(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let mut running = Running(child);
    let address = announced_address(&mut running.0);
    assert_eq!(status_line(&address, "/api"), "HTTP/1.1 200 OK");

    let pid = running.0.id().to_string();
    let killed = Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = running.0.try_wait().expect("a status") {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "still running 10 s after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{status}");
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
