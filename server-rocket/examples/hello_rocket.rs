//! The rocket benchmark baseline: one rocket route answering a fixed JSON hello, on the same
//! rocket configuration and fairings as Safezone's rocket binary. `examples/bench.sh` runs it
//! beside the rocket binary, so that the binary's figures compare with what rocket itself does
//! on the same machine in the same run.
//!
//! ```text
//! cargo run --release -p safezone-server-rocket --example hello_rocket -- 127.0.0.1:8098
//! ```

use std::error::Error;
use std::net::SocketAddr;

use rocket::fairing::AdHoc;
use rocket::http::ContentType;
use rocket::shield::Shield;

const HELLO: &str = r#"{"status":"success","hello":"world"}"#;

#[rocket::get("/")]
fn hello() -> (ContentType, &'static str) {
    (ContentType::JSON, HELLO)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let listen: SocketAddr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:8098".to_owned())
        .parse()?;
    let report_address = AdHoc::on_liftoff("bound address", |rocket| {
        Box::pin(async move {
            let config = rocket.config();
            println!(
                "hello listening on http://{}:{}",
                config.address, config.port
            );
        })
    });
    rocket::custom(safezone_server_rocket::rocket_config(listen))
        .mount("/", rocket::routes![hello])
        .attach(Shield::new())
        .attach(report_address)
        .launch()
        .await?;
    Ok(())
}
