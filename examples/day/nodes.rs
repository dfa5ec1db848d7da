//! The two nodes: the warp and the rocket binary on one PostgreSQL database, each started on
//! free ports, stopped with SIGTERM and started again; where the clients find them.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::RwLock;
use std::time::Duration;

/// How long a node may take to answer `/readyz` after it starts: the first start on a database
/// with a seeded history (`DAY_HISTORY_PLAYERS`) and no boards' snapshot reads the whole match
/// log, both nodes at once (about 45 s each for a million players and ten million results).
const READY_PATIENCE: Duration = Duration::from_secs(600);

/// Where a running node answers.
#[derive(Clone, Debug)]
pub struct Address {
    /// The public API, `127.0.0.1:port`.
    pub api: String,
    /// The metrics listener (`/metrics`, the probes).
    pub metrics: String,
    /// The operator listener (operator API, console).
    pub operator: String,
    /// The process id.
    pub pid: u32,
}

/// Which nodes answer now: the load balancer's view.
#[derive(Default)]
pub struct Cluster {
    nodes: [RwLock<Option<Address>>; 2],
}

impl Cluster {
    /// Node `index`'s address while it runs.
    pub fn address(&self, index: usize) -> Option<Address> {
        self.nodes[index]
            .read()
            .expect("the cluster's lock is never poisoned")
            .clone()
    }

    fn set(&self, index: usize, address: Option<Address>) {
        *self.nodes[index]
            .write()
            .expect("the cluster's lock is never poisoned") = address;
    }
}

/// How to start one node.
pub struct Node {
    /// `warp` or `rocket`.
    pub name: &'static str,
    /// Its place in the [`Cluster`].
    pub index: usize,
    binary: PathBuf,
    args: Vec<String>,
    log: PathBuf,
    log_filter: String,
    child: Option<Child>,
}

impl Node {
    /// A node of `binary` started with `args` (besides the listeners), its standard error
    /// appended to `log`, filtered by `log_filter` (`RUST_LOG`).
    pub fn new(
        name: &'static str,
        index: usize,
        binary: PathBuf,
        args: Vec<String>,
        log: PathBuf,
        log_filter: String,
    ) -> Self {
        Self {
            name,
            index,
            binary,
            args,
            log,
            log_filter,
            child: None,
        }
    }

    /// Starts the node on free ports and publishes its addresses once it announces them and
    /// its `/readyz` answers 200 (a load balancer routes only to ready nodes: a node loading
    /// its boards answers their requests 503).
    pub async fn start(&mut self, cluster: &Cluster) -> Result<(), String> {
        let log = File::options()
            .create(true)
            .append(true)
            .open(&self.log)
            .map_err(|error| format!("{}: {error}", self.log.display()))?;
        let mut child = Command::new(&self.binary)
            .args(["--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0"])
            .args(["--operator-listen", "127.0.0.1:0"])
            .args(&self.args)
            .env("SAFEZONE_RATE_LIMITS", "off")
            .env("RUST_LOG", &self.log_filter)
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .map_err(|error| format!("{}: {error}", self.binary.display()))?;
        let stdout = child.stdout.take().ok_or("a piped standard output")?;
        let pid = child.id();
        self.child = Some(child);
        let [api, metrics, operator] = tokio::task::spawn_blocking(move || announced(stdout))
            .await
            .map_err(|error| error.to_string())??;
        let started = std::time::Instant::now();
        while !ready(&metrics).await {
            if started.elapsed() > READY_PATIENCE {
                return Err(format!(
                    "{} not ready after {} s",
                    self.name,
                    READY_PATIENCE.as_secs()
                ));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        cluster.set(
            self.index,
            Some(Address {
                api,
                metrics,
                operator,
                pid,
            }),
        );
        Ok(())
    }

    /// Takes the node out of the cluster, sends it SIGTERM and waits for it to exit; answers
    /// how long it took to stop.
    pub async fn stop(&mut self, cluster: &Cluster) -> Result<Duration, String> {
        cluster.set(self.index, None);
        let Some(mut child) = self.child.take() else {
            return Ok(Duration::ZERO);
        };
        let started = std::time::Instant::now();
        let status = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .map_err(|error| error.to_string())?;
        if !status.success() {
            return Err(format!("kill -TERM {} failed", child.id()));
        }
        let exit = tokio::task::spawn_blocking(move || child.wait())
            .await
            .map_err(|error| error.to_string())?
            .map_err(|error| error.to_string())?;
        if !exit.success() {
            return Err(format!("{} exited with {exit} after SIGTERM", self.name));
        }
        Ok(started.elapsed())
    }
}

/// Whether `GET /readyz` on the metrics listener at `address` answers 200.
async fn ready(address: &str) -> bool {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let Ok(mut stream) = tokio::net::TcpStream::connect(address).await else {
        return false;
    };
    let request = format!("GET /readyz HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n");
    let mut head = [0_u8; 12];
    stream.write_all(request.as_bytes()).await.is_ok()
        && stream.read_exact(&mut head).await.is_ok()
        && head.ends_with(b" 200")
}

/// The public, metrics and operator addresses from the node's first three lines of standard
/// output (`safezone listening on http://A`, `safezone metrics on http://B/metrics`,
/// `safezone operator console on http://C/operator/console/`); the rest of the output is
/// drained by a thread of its own.
fn announced(stdout: std::process::ChildStdout) -> Result<[String; 3], String> {
    let mut reader = BufReader::new(stdout);
    let mut lines = Vec::new();
    for _ in 0..3 {
        let mut line = String::new();
        reader
            .read_line(&mut line)
            .map_err(|error| error.to_string())?;
        lines.push(line.trim_end().to_owned());
    }
    std::thread::spawn(move || std::io::copy(&mut reader, &mut std::io::sink()));
    let address = |line: &str, prefix: &str, suffix: &str| {
        line.strip_prefix(prefix)
            .and_then(|rest| rest.strip_suffix(suffix))
            .map(str::to_owned)
            .ok_or_else(|| format!("the node did not announce {prefix}...{suffix}: {line:?}"))
    };
    Ok([
        address(&lines[0], "safezone listening on http://", "")?,
        address(&lines[1], "safezone metrics on http://", "/metrics")?,
        address(
            &lines[2],
            "safezone operator console on http://",
            "/operator/console/",
        )?,
    ])
}
