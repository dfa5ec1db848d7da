//! The layer stack shared by every clone of the service. A server clones its service for each
//! request (hyper's adapter, warp's filters, the binaries' own wrappers: four times per request
//! under warp), and cloning the boxed stack copies every layer, the CORS settings' lists among
//! them. Shared, a clone is an `Arc`'s: a `GET /api/config` on warp went from 44k to 39k
//! instructions (callgrind).
//!
//! Every layer of the stack is ready at all times (the cap on requests in flight sits behind
//! `Answered`, which takes its own clone), so a call holds the stack only while it builds the
//! request's future. Should a layer ever be not ready, that request takes a clone of its own,
//! which waits for it as before.

use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use futures_util::future::Either;
use http::{Request, Response};
use tower::util::{BoxCloneSyncService, Oneshot};
use tower::{Service, ServiceExt};

use super::body::{RequestBody, ResponseBody};

/// The boxed, cloneable service with every layer in place (served shared: [`SharedStack`]).
pub(crate) type Stack =
    BoxCloneSyncService<Request<RequestBody>, Response<ResponseBody>, Infallible>;

/// The stack behind an `Arc`: cloned for the price of a reference count.
#[derive(Clone)]
pub(crate) struct SharedStack(Arc<Mutex<Stack>>);

impl SharedStack {
    /// Shares `stack`.
    pub(crate) fn new(stack: Stack) -> Self {
        Self(Arc::new(Mutex::new(stack)))
    }
}

/// The stack's own future.
type StackFuture = <Stack as Service<Request<RequestBody>>>::Future;

/// The stack's own future, or, when it was not ready, the future of a clone that waits.
pub(crate) type SharedStackFuture = Either<StackFuture, Oneshot<Stack, Request<RequestBody>>>;

impl Service<Request<RequestBody>> for SharedStack {
    type Response = Response<ResponseBody>;
    type Error = Infallible;
    type Future = SharedStackFuture;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<RequestBody>) -> Self::Future {
        let mut stack = self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        match stack.poll_ready(&mut Context::from_waker(Waker::noop())) {
            Poll::Ready(Ok(())) => Either::Left(stack.call(request)),
            Poll::Ready(Err(never)) => match never {},
            Poll::Pending => Either::Right(stack.clone().oneshot(request)),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};

    use bytes::Bytes;
    use http_body_util::{BodyExt, Empty, Full};
    use tower::util::BoxCloneSyncService;

    use super::*;

    /// A service that is not ready the first time it is asked (and wakes its caller at once),
    /// then answers 200.
    #[derive(Clone)]
    struct ReadyOnSecondAsk(Arc<AtomicBool>);

    impl Service<Request<RequestBody>> for ReadyOnSecondAsk {
        type Response = Response<ResponseBody>;
        type Error = Infallible;
        type Future = std::future::Ready<Result<Self::Response, Infallible>>;

        fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
            if self.0.swap(true, Ordering::SeqCst) {
                Poll::Ready(Ok(()))
            } else {
                cx.waker().wake_by_ref();
                Poll::Pending
            }
        }

        fn call(&mut self, _request: Request<RequestBody>) -> Self::Future {
            let body = Full::new(Bytes::from_static(b"answered"))
                .map_err(|never| match never {})
                .boxed_unsync();
            std::future::ready(Ok(Response::new(body)))
        }
    }

    fn request() -> Request<RequestBody> {
        Request::new(Empty::new().map_err(|never| match never {}).boxed_unsync())
    }

    #[tokio::test]
    async fn a_stack_not_ready_is_waited_for_through_a_clone_of_its_own() {
        let asked = Arc::new(AtomicBool::new(false));
        let mut shared = SharedStack::new(BoxCloneSyncService::new(ReadyOnSecondAsk(Arc::clone(
            &asked,
        ))));
        let future = shared.call(request());
        assert!(matches!(future, Either::Right(_)), "the first call waits");
        let Ok(response) = future.await;
        let body = response.into_body().collect().await.unwrap().to_bytes();
        assert_eq!(&body[..], b"answered");
        assert!(matches!(shared.clone().call(request()), Either::Left(_)));
    }
}
