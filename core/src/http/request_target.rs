//! Which request targets the API serves: a path, as origin-form (`GET /api`) or absolute-form
//! (`GET http://host/api`, served as its path). Authority-form (`CONNECT host:port`) and
//! asterisk-form (`OPTIONS *`) name nothing here: they are answered 400
//! `invalid_request_target` before the other layers see them (CORS would take `OPTIONS *` for
//! a preflight, and a router for a path).

use std::convert::Infallible;
use std::future::{Ready, ready};
use std::task::{Context, Poll};

use bytes::Bytes;
use futures_util::future::Either;
use http::{Request, Response, Uri};
use http_body_util::Full;
use tower::{Layer, Service};

use super::ApiError;

/// Whether `uri` names a path, which the API serves; an adapter whose framework cannot take
/// other targets hands those straight to the core, which refuses them.
///
/// ```
/// use safezone_core::http::is_path_target;
/// let target = |text: &str| is_path_target(&text.parse().unwrap());
/// assert!(target("/api") && target("http://example.com/api") && target("http://example.com"));
/// assert!(!target("example.com:443") && !target("*"));
/// ```
pub fn is_path_target(uri: &Uri) -> bool {
    uri.path().starts_with('/')
}

/// The layer of [`PathTargets`].
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct PathTargetsLayer;

impl<S> Layer<S> for PathTargetsLayer {
    type Service = PathTargets<S>;

    fn layer(&self, inner: S) -> PathTargets<S> {
        PathTargets { inner }
    }
}

/// `inner` for the requests whose target [is a path](is_path_target); the 400 for the others.
#[derive(Debug, Clone)]
pub(crate) struct PathTargets<S> {
    inner: S,
}

impl<S, B> Service<Request<B>> for PathTargets<S>
where
    S: Service<Request<B>, Response = Response<Full<Bytes>>, Error = Infallible>,
{
    type Response = Response<Full<Bytes>>;
    type Error = Infallible;
    type Future = Either<S::Future, Ready<Result<Response<Full<Bytes>>, Infallible>>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        if is_path_target(request.uri()) {
            Either::Left(self.inner.call(request))
        } else {
            Either::Right(ready(Ok(ApiError::InvalidRequestTarget
                .into_reply()
                .into_response())))
        }
    }
}
