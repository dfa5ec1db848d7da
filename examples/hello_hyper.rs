//! The benchmark baseline: a bare hyper server answering a fixed JSON hello to every request.
//! `examples/bench.sh` runs it side by side with the Safezone binaries, so that figures taken
//! on a shared, noisy machine can be compared with what plain hyper does there.
//!
//! ```text
//! cargo run --release -p safezone-examples --example hello_hyper -- 127.0.0.1:8099
//! ```

use std::convert::Infallible;
use std::error::Error;
use std::net::SocketAddr;

use bytes::Bytes;
use http::{Request, Response, header};
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

const HELLO: &[u8] = br#"{"status":"success","hello":"world"}"#;

async fn hello(_request: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let mut response = Response::new(Full::new(Bytes::from_static(HELLO)));
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("application/json"),
    );
    Ok(response)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let listen: SocketAddr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:8099".to_owned())
        .parse()?;
    let listener = TcpListener::bind(listen).await?;
    println!("hello listening on http://{}", listener.local_addr()?);
    loop {
        let (stream, _) = tokio::select! {
            accepted = listener.accept() => accepted?,
            _ = tokio::signal::ctrl_c() => break,
        };
        tokio::spawn(async move {
            if let Err(error) = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service_fn(hello))
                .await
            {
                eprintln!("connection ended with an error: {error}");
            }
        });
    }
    Ok(())
}
