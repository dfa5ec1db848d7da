//! Group commit: concurrent requests of one kind written by one statement and one commit.
//!
//! A request joins the queue and waits for its answer. When no batch is being written, the
//! request that found the queue idle starts a drainer task, which takes everything waiting (up
//! to [`MOST_AT_ONCE`]), writes it with one statement, answers each request and goes on while
//! more wait. An idle queue adds no wait: a lone request is written at once, as a batch of
//! one; under load, requests arriving while a batch is written make up the next one, so the
//! database commits once per batch instead of once per request. The drainer is a task of its
//! own, so a request whose client goes away cannot cancel a batch halfway.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use safezone_core::store::StoreError;
use tokio::sync::oneshot;

/// The most requests one batch takes.
pub(crate) const MOST_AT_ONCE: usize = 256;

/// One waiting request: what to write and where its answer goes.
type Waiting<Item, Answer> = (Item, oneshot::Sender<Result<Answer, StoreError>>);

/// The queue of one kind of request.
pub(crate) struct GroupCommit<Item, Answer> {
    queue: Arc<Mutex<Queue<Item, Answer>>>,
}

/// The requests waiting, and whether a drainer is writing.
struct Queue<Item, Answer> {
    waiting: Vec<Waiting<Item, Answer>>,
    draining: bool,
}

impl<Item, Answer> Default for GroupCommit<Item, Answer> {
    fn default() -> Self {
        Self {
            queue: Arc::new(Mutex::new(Queue {
                waiting: Vec::new(),
                draining: false,
            })),
        }
    }
}

impl<Item, Answer> Clone for GroupCommit<Item, Answer> {
    /// The same queue.
    fn clone(&self) -> Self {
        Self {
            queue: Arc::clone(&self.queue),
        }
    }
}

impl<Item, Answer> std::fmt::Debug for GroupCommit<Item, Answer> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GroupCommit").finish_non_exhaustive()
    }
}

impl<Item, Answer> GroupCommit<Item, Answer>
where
    Item: Send + 'static,
    Answer: Send + 'static,
{
    /// Writes `item` in the next batch and answers what `write` answered for it. `write`
    /// takes a batch and answers one result per item, in the batch's order; the drainer
    /// started here (when none runs) writes every batch with it until the queue is empty.
    pub(crate) async fn submit<Write, Written>(
        &self,
        item: Item,
        write: Write,
    ) -> Result<Answer, StoreError>
    where
        Write: Fn(Vec<Item>) -> Written + Send + 'static,
        Written: Future<Output = Vec<Result<Answer, StoreError>>> + Send + 'static,
    {
        let (answer, answered) = oneshot::channel();
        let start = {
            let mut queue = lock(&self.queue);
            queue.waiting.push((item, answer));
            !std::mem::replace(&mut queue.draining, true)
        };
        if start {
            tokio::spawn(drain(Arc::clone(&self.queue), write));
        }
        answered.await.unwrap_or_else(|_| {
            Err(StoreError::Internal(
                "the batch writing this request ended without answering".to_owned(),
            ))
        })
    }
}

/// Writes batches until none waits.
async fn drain<Item, Answer, Write, Written>(queue: Arc<Mutex<Queue<Item, Answer>>>, write: Write)
where
    Write: Fn(Vec<Item>) -> Written,
    Written: Future<Output = Vec<Result<Answer, StoreError>>>,
{
    let stopped = Stopped(&queue);
    loop {
        let batch = {
            let mut queue = lock(&queue);
            if queue.waiting.is_empty() {
                queue.draining = false;
                break;
            }
            let take = queue.waiting.len().min(MOST_AT_ONCE);
            queue.waiting.drain(..take).collect::<Vec<_>>()
        };
        let (items, answers): (Vec<Item>, Vec<_>) = batch.into_iter().unzip();
        let count = items.len();
        let mut written = write(items).await.into_iter();
        for answer in answers {
            let result = written.next().unwrap_or_else(|| {
                Err(StoreError::Internal(format!(
                    "a batch of {count} answered fewer results"
                )))
            });
            // A request whose client went away no longer waits; its write stands.
            let _ = answer.send(result);
        }
    }
    std::mem::forget(stopped);
}

/// Set while a drainer runs: if it stops without emptying the queue (a panic), the queue is
/// left idle with its waiting requests answered by their dropped senders, so the next request
/// starts a drainer again.
struct Stopped<'a, Item, Answer>(&'a Mutex<Queue<Item, Answer>>);

impl<Item, Answer> Drop for Stopped<'_, Item, Answer> {
    fn drop(&mut self) {
        let mut queue = lock(self.0);
        queue.waiting.clear();
        queue.draining = false;
    }
}

/// The queue, also after a panic elsewhere (it holds no invariant a panic could break).
fn lock<Item, Answer>(queue: &Mutex<Queue<Item, Answer>>) -> MutexGuard<'_, Queue<Item, Answer>> {
    queue.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use tokio::sync::Notify;

    use super::*;

    /// A batch's answers, boxed.
    type Answers = std::pin::Pin<Box<dyn Future<Output = Vec<Result<u32, StoreError>>> + Send>>;

    /// Answers each item doubled, counting the batches, after `release` is notified when the
    /// first batch is written (so the others queue behind it).
    fn doubling(
        batches: Arc<AtomicUsize>,
        release: Arc<Notify>,
    ) -> impl Fn(Vec<u32>) -> Answers + Send + 'static {
        move |batch| {
            let batches = Arc::clone(&batches);
            let release = Arc::clone(&release);
            Box::pin(async move {
                if batches.fetch_add(1, Ordering::SeqCst) == 0 {
                    release.notified().await;
                }
                batch.into_iter().map(|item| Ok(item * 2)).collect()
            })
        }
    }

    #[tokio::test]
    async fn requests_waiting_behind_a_batch_are_written_together_and_each_gets_its_answer() {
        let queue = GroupCommit::<u32, u32>::default();
        let batches = Arc::new(AtomicUsize::new(0));
        let release = Arc::new(Notify::new());
        let first = tokio::spawn({
            let queue = queue.clone();
            let write = doubling(Arc::clone(&batches), Arc::clone(&release));
            async move { queue.submit(1, write).await }
        });
        while batches.load(Ordering::SeqCst) == 0 {
            tokio::task::yield_now().await;
        }
        let waiting: Vec<_> = (2..=20)
            .map(|item| {
                let queue = queue.clone();
                let write = doubling(Arc::clone(&batches), Arc::clone(&release));
                tokio::spawn(async move { queue.submit(item, write).await })
            })
            .collect();
        while lock(&queue.queue).waiting.len() < 19 {
            tokio::task::yield_now().await;
        }
        release.notify_one();
        assert_eq!(first.await.unwrap().unwrap(), 2);
        for (at, request) in waiting.into_iter().enumerate() {
            let item = u32::try_from(at).unwrap() + 2;
            assert_eq!(request.await.unwrap().unwrap(), item * 2);
        }
        assert_eq!(
            batches.load(Ordering::SeqCst),
            2,
            "the 19 waiting went as one batch"
        );
        assert!(!lock(&queue.queue).draining);
    }

    #[tokio::test]
    async fn a_failed_batch_answers_each_request_its_error_and_the_next_request_is_written() {
        let queue = GroupCommit::<u32, u32>::default();
        let failed = queue
            .submit(1, |batch: Vec<u32>| async move {
                batch
                    .iter()
                    .map(|_| Err(StoreError::Unavailable("down".to_owned())))
                    .collect()
            })
            .await;
        assert!(matches!(failed, Err(StoreError::Unavailable(why)) if why == "down"));
        let written = queue
            .submit(3, |batch: Vec<u32>| async move {
                batch.into_iter().map(|item| Ok(item + 1)).collect()
            })
            .await;
        assert_eq!(written.unwrap(), 4);
    }

    /// A batch with a bug.
    async fn panicking(_: Vec<u32>) -> Vec<Result<u32, StoreError>> {
        panic!("a bug in the batch")
    }

    #[tokio::test]
    async fn a_panicking_batch_fails_its_requests_and_leaves_the_queue_usable() {
        let queue = GroupCommit::<u32, u32>::default();
        let lost = queue.submit(1, panicking).await;
        assert!(matches!(lost, Err(StoreError::Internal(_))));
        let written = queue
            .submit(5, |batch: Vec<u32>| async move {
                batch.into_iter().map(Ok).collect()
            })
            .await;
        assert_eq!(written.unwrap(), 5);
    }
}
