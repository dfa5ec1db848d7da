//! The binaries' log output: lines gathered in memory and written to standard error in batches.
//!
//! A request only appends its line to a shared buffer (one short lock, one copy). A thread of
//! its own writes the buffer out every [`FLUSH_INTERVAL`], so that a line per request costs
//! neither a system call nor a thread wake-up on the request's path: a queue whose writer wakes
//! for each line costs a context switch per request on a busy server. No line is dropped: a
//! buffer past [`HIGH_WATER`] is written out by the request that filled it, and the
//! [`LogFlusher`] writes out what is left when it is dropped. Lines keep their order.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use tracing_subscriber::fmt::MakeWriter;

/// How long a line waits in the buffer at most (when the output keeps up).
pub const FLUSH_INTERVAL: Duration = Duration::from_millis(50);

/// The buffer's size at which the line that reaches it writes the buffer out itself.
pub const HIGH_WATER: usize = 1 << 20;

/// What the writers and the flushing thread share.
struct Shared<W> {
    /// Lines not written yet.
    pending: Mutex<Vec<u8>>,
    /// The output. Taken before `pending` is emptied, so that batches leave in order.
    output: Mutex<W>,
    /// Set when the flusher is dropped: the thread writes out the rest and ends.
    stopping: AtomicBool,
}

impl<W: Write> Shared<W> {
    /// Writes out everything pending.
    fn flush(&self) {
        let mut output = lock(&self.output);
        let batch = std::mem::take(&mut *lock(&self.pending));
        if batch.is_empty() {
            return;
        }
        // Standard error that cannot be written to has nobody to tell.
        let _ = output.write_all(&batch);
        let _ = output.flush();
    }
}

/// A lock whose holder panicked is still usable: the buffer holds whole lines only.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The `MakeWriter` given to `tracing-subscriber`: each line is appended to the buffer.
pub struct BatchedLog<W> {
    shared: Arc<Shared<W>>,
}

/// Keeps the flushing thread running; dropping it writes out the lines still buffered.
#[must_use = "dropping the flusher stops the log output"]
pub struct LogFlusher<W: Write + Send + 'static> {
    shared: Arc<Shared<W>>,
    thread: Option<JoinHandle<()>>,
}

/// The batched log over `output`, and the flusher that keeps it moving.
pub fn batched<W: Write + Send + 'static>(output: W) -> (BatchedLog<W>, LogFlusher<W>) {
    let shared = Arc::new(Shared {
        pending: Mutex::new(Vec::with_capacity(64 * 1024)),
        output: Mutex::new(output),
        stopping: AtomicBool::new(false),
    });
    let flushing = Arc::clone(&shared);
    let thread = thread::Builder::new()
        .name("safezone-log".to_owned())
        .spawn(move || {
            while !flushing.stopping.load(Ordering::Acquire) {
                thread::park_timeout(FLUSH_INTERVAL);
                flushing.flush();
            }
        });
    let thread = match thread {
        Ok(thread) => Some(thread),
        Err(error) => {
            // Without the thread every line is written out at once.
            eprintln!("no log thread ({error}): log lines are written one by one");
            shared.stopping.store(true, Ordering::Release);
            None
        }
    };
    (
        BatchedLog {
            shared: Arc::clone(&shared),
        },
        LogFlusher { shared, thread },
    )
}

impl<W: Write + Send + 'static> Drop for LogFlusher<W> {
    fn drop(&mut self) {
        self.shared.stopping.store(true, Ordering::Release);
        if let Some(thread) = self.thread.take() {
            thread.thread().unpark();
            let _ = thread.join();
        }
        self.shared.flush();
    }
}

/// One line's writer: appends to the shared buffer.
pub struct LineWriter<'a, W: Write> {
    shared: &'a Shared<W>,
}

impl<W: Write> Write for LineWriter<'_, W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let full = {
            let mut pending = lock(&self.shared.pending);
            pending.extend_from_slice(bytes);
            pending.len() >= HIGH_WATER
        };
        if full || self.shared.stopping.load(Ordering::Acquire) {
            self.shared.flush();
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl<'a, W: Write + 'a> MakeWriter<'a> for BatchedLog<W> {
    type Writer = LineWriter<'a, W>;

    fn make_writer(&'a self) -> Self::Writer {
        LineWriter {
            shared: &self.shared,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An output that several owners can read back.
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl Write for Captured {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            lock(&self.0).extend_from_slice(bytes);
            Ok(bytes.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    impl Captured {
        fn text(&self) -> String {
            String::from_utf8(lock(&self.0).clone()).expect("text")
        }
    }

    #[test]
    fn lines_reach_the_output_in_order_within_the_interval() {
        let output = Captured::default();
        let (log, _flusher) = batched(output.clone());
        for n in 0..100 {
            log.make_writer()
                .write_all(format!("line {n}\n").as_bytes())
                .expect("written");
        }
        let mut waited = Duration::ZERO;
        while output.text().lines().count() < 100 && waited < Duration::from_secs(5) {
            thread::sleep(FLUSH_INTERVAL);
            waited += FLUSH_INTERVAL;
        }
        let expected: String = (0..100).map(|n| format!("line {n}\n")).collect();
        assert_eq!(output.text(), expected);
    }

    #[test]
    fn dropping_the_flusher_writes_out_every_line() {
        let output = Captured::default();
        let (log, flusher) = batched(output.clone());
        log.make_writer()
            .write_all(b"last words\n")
            .expect("written");
        drop(flusher);
        assert_eq!(output.text(), "last words\n");
        log.make_writer()
            .write_all(b"after the stop\n")
            .expect("written");
        assert_eq!(output.text(), "last words\nafter the stop\n");
    }

    #[test]
    fn a_full_buffer_is_written_out_by_the_line_that_fills_it() {
        let output = Captured::default();
        let (log, _flusher) = batched(output.clone());
        let line = vec![b'x'; HIGH_WATER];
        log.make_writer().write_all(&line).expect("written");
        assert_eq!(lock(&output.0).len(), HIGH_WATER);
    }
}
