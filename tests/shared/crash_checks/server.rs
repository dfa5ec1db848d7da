//! The server process: started on a free port, its announced address published to the
//! clients, killed with SIGKILL.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use tokio::sync::watch;

/// Where the server listens now, its public API and its operator listener: `None` while it is
/// down; `generation` counts the starts.
#[derive(Debug, Clone, Default)]
pub(super) struct Address {
    pub(super) generation: u64,
    pub(super) address: Option<String>,
    pub(super) operator: Option<String>,
}

/// The binary run on one database, killed and started again.
pub(super) struct Server {
    binary: String,
    url: String,
    child: Option<Child>,
    addresses: watch::Sender<Address>,
}

impl Server {
    /// Starts `binary` on the database at `url`; answers it and where the clients find it.
    pub(super) fn launch(binary: &str, url: &str) -> (Self, watch::Receiver<Address>) {
        let (addresses, receiver) = watch::channel(Address::default());
        let mut server = Self {
            binary: binary.to_owned(),
            url: url.to_owned(),
            child: None,
            addresses,
        };
        server.start();
        (server, receiver)
    }

    /// Starts the binary on free ports and publishes the addresses it announces.
    pub(super) fn start(&mut self) {
        let mut child = Command::new(&self.binary)
            .args(["--listen", "127.0.0.1:0", "--database-url", &self.url])
            .args(["--operator-listen", "127.0.0.1:0"])
            .env("SAFEZONE_RATE_LIMITS", "off")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the binary starts");
        let (address, operator) = tokio::task::block_in_place(|| announced(&mut child));
        self.child = Some(child);
        self.addresses.send_modify(|current| {
            current.generation += 1;
            current.address = Some(address);
            current.operator = Some(operator);
        });
    }

    /// Stops the server with SIGTERM (a graceful stop); answers whether it exited with 0
    /// within 30 s.
    pub(super) fn terminate(&mut self) -> bool {
        let Some(mut child) = self.child.take() else {
            return false;
        };
        self.addresses.send_modify(|current| {
            current.address = None;
            current.operator = None;
        });
        let sent = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(sent.success());
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(status) = child.try_wait().expect("a status") {
                return status.success();
            }
            if std::time::Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Kills the server with SIGKILL and waits for it to be gone.
    pub(super) fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            self.addresses.send_modify(|current| {
                current.address = None;
                current.operator = None;
            });
            child.kill().expect("SIGKILL is sent");
            child.wait().expect("the killed server is reaped");
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The public address and the operator listener's, from the first two lines of standard
/// output; the rest of the output is drained.
fn announced(child: &mut Child) -> (String, String) {
    let stdout = child.stdout.take().expect("a piped stdout");
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let mut reader = BufReader::new(stdout);
        for _ in 0..2 {
            let mut line = String::new();
            let _ = reader.read_line(&mut line);
            let _ = sender.send(line);
        }
        let _ = std::io::copy(&mut reader, &mut std::io::sink());
    });
    let line = |prefix: &str, suffix: &str| {
        let line = receiver
            .recv_timeout(Duration::from_secs(30))
            .expect("the server announces its addresses in time");
        line.trim_end()
            .strip_prefix(prefix)
            .and_then(|rest| rest.strip_suffix(suffix))
            .unwrap_or_else(|| panic!("unexpected line {line:?}"))
            .to_owned()
    };
    let address = line("safezone listening on http://", "");
    let operator = line("safezone operator console on http://", "/operator/console/");
    (address, operator)
}
