//! A game server's side of Safezone: four players sign in, play a squad match, and the game
//! server reports it to `POST /internal/matches` with its credential. The report is sent twice,
//! as a game server retrying after a lost answer would: the second changes nothing.
//!
//! In process (`tower::ServiceExt::oneshot`), on a temporary SQLite file:
//!
//! ```text
//! cargo run -p safezone-examples --example game_server
//! ```

use std::sync::Arc;

use bytes::Bytes;
use http::{Method, Request, header};
use http_body_util::{BodyExt, Full};
use safezone_core::http::BoxError;
use safezone_core::{Safezone, SafezoneService, ServerToken, Settings};
use serde_json::{Value, json};
use tower::ServiceExt;

/// The credential this example's game server shares with Safezone.
const CREDENTIAL: &str = "example-game-server-credential";

/// Sends one request (with a JSON body and a bearer credential when given) and answers the
/// status, whether it was a replay, and the JSON body.
async fn call(
    service: &SafezoneService,
    method: Method,
    path: &str,
    body: Option<&Value>,
) -> Result<(u16, bool, Value), BoxError> {
    let mut request = Request::builder().method(method).uri(path);
    if body.is_some() {
        request = request
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::AUTHORIZATION, format!("Bearer {CREDENTIAL}"));
    }
    let bytes = body
        .map(serde_json::to_vec)
        .transpose()?
        .unwrap_or_default();
    let response = service
        .clone()
        .oneshot(request.body(Full::new(Bytes::from(bytes)))?)
        .await?;
    let status = response.status().as_u16();
    let replayed = response.headers().contains_key("idempotent-replayed");
    let body = response.into_body().collect().await?.to_bytes();
    Ok((status, replayed, serde_json::from_slice(&body)?))
}

#[tokio::main]
async fn main() -> Result<(), BoxError> {
    let directory =
        std::env::temp_dir().join(format!("safezone-game-server-{}", std::process::id()));
    std::fs::create_dir_all(&directory)?;
    let database_url = format!("sqlite://{}", directory.join("example.db").display());
    let settings = Settings::builder()
        .game_server_token(ServerToken::parse(CREDENTIAL)?)
        .build();
    let store = safezone_storage::open(&database_url).await?;
    let service = Safezone::new(Arc::clone(&store))
        .settings(settings)
        .service();

    let mut players = Vec::new();
    for (place, device) in [
        "ios-squad-a",
        "ios-squad-b",
        "android-squad-c",
        "android-squad-d",
    ]
    .into_iter()
    .enumerate()
    {
        let (_, _, signed_in) = call(
            &service,
            Method::POST,
            &format!("/api/validate/device/{device}"),
            None,
        )
        .await?;
        players.push(json!({
            "accountId": signed_in["user"]["id"],
            "placement": place + 1,
            "kills": 4 - place,
            "timeAlive": 1300 - 60 * place,
            "stats": {"damage": 900 - 150 * place, "chests": 3},
        }));
    }
    let ended = time::OffsetDateTime::now_utc();
    let started = ended - time::Duration::minutes(22);
    let rfc3339 = &time::format_description::well_known::Rfc3339;
    let report = json!({
        "matchId": format!("example-{}", std::process::id()),
        "mode": "squad",
        "startedAt": started.format(rfc3339)?,
        "endedAt": ended.format(rfc3339)?,
        "players": players,
    });

    for attempt in ["report", "retry"] {
        let (status, replayed, answer) =
            call(&service, Method::POST, "/internal/matches", Some(&report)).await?;
        println!("{attempt}: {status}, replayed: {replayed}");
        for player in answer["players"].as_array().into_iter().flatten() {
            println!(
                "  account {}: +{} experience, level {} -> {}, {} rewards",
                player["accountId"],
                player["experience"],
                player["levelBefore"],
                player["levelAfter"],
                player["rewards"].as_array().map_or(0, Vec::len),
            );
        }
    }

    std::fs::remove_dir_all(&directory)?;
    Ok(())
}
