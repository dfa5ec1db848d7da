//! Safezone embedded in a plain hyper server: no warp, no rocket.
//!
//! ```text
//! cargo run -p safezone-examples --example hyper_server -- sqlite://hyper-example.db 127.0.0.1:8090
//! curl http://127.0.0.1:8090/api/config?platform=web
//! ```

use std::error::Error;
use std::net::SocketAddr;

use hyper::server::conn::http1;
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use safezone_core::Safezone;
use tokio::net::TcpListener;

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args().skip(1);
    let database_url = args
        .next()
        .unwrap_or_else(|| "sqlite://hyper-example.db".to_owned());
    let listen: SocketAddr = args
        .next()
        .unwrap_or_else(|| "127.0.0.1:8090".to_owned())
        .parse()?;

    let store = safezone_storage::open(&database_url).await?;
    let service = Safezone::new(store).service();
    let listener = TcpListener::bind(listen).await?;
    println!(
        "safezone (plain hyper) listening on http://{}",
        listener.local_addr()?
    );

    loop {
        let (stream, _) = tokio::select! {
            accepted = listener.accept() => accepted?,
            _ = tokio::signal::ctrl_c() => break,
        };
        let connection = TowerToHyperService::new(service.clone());
        tokio::spawn(async move {
            if let Err(error) = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), connection)
                .await
            {
                eprintln!("connection ended with an error: {error}");
            }
        });
    }
    Ok(())
}
