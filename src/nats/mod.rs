//! NATS JetStream, for runs on more than one machine: the connection every
//! NATS feature shares, this engine's id, and what can go wrong. The NATS
//! features (the job queue and its workers, event publishing, attach) live
//! in the files beside this one; none of them is ever on the engine's path.

mod address;
pub mod command;
mod engine_id;
mod error;
pub mod jobs;
pub mod limits;
pub mod publish;
pub mod subjects;
pub mod version;
pub mod watch;

pub use address::{check_url, shown_url};
pub use engine_id::EngineId;
pub use error::NatsError;

use std::time::Duration;

/// How long connecting may take before the server counts as unreachable.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// A connection to a NATS server with JetStream, and this process's
/// engine id.
pub struct Nats {
    pub client: async_nats::Client,
    pub js: async_nats::jetstream::Context,
    pub engine: EngineId,
    /// The server's URL as it may be shown: without a password.
    pub url: String,
}

/// Connect to the server(s) at `url` (`nats://HOST:PORT`, several separated
/// by commas) and check that JetStream answers, so that a server started
/// without `-js` is reported now rather than at the first publish. After
/// this first connection the client reconnects by itself when the server
/// goes away and comes back.
pub async fn connect(url: &str) -> Result<Nats, NatsError> {
    let servers = check_url(url)?;
    let shown = shown_url(url);
    let engine = EngineId::new();
    let client = async_nats::ConnectOptions::new()
        .name(format!("conclave {engine}"))
        .connection_timeout(CONNECT_TIMEOUT)
        .connect(servers)
        .await
        .map_err(|e| NatsError::Unreachable {
            url: shown.clone(),
            problem: e.to_string(),
        })?;
    let announced = client.server_info().version;
    if !version::supported(&announced) {
        return Err(NatsError::TooOld {
            url: shown,
            version: announced,
            minimum: version::minimum_text(),
        });
    }
    let js = async_nats::jetstream::new(client.clone());
    jetstream_answers(&client)
        .await
        .map_err(|problem| NatsError::NoJetStream {
            url: shown.clone(),
            problem,
        })?;
    Ok(Nats {
        client,
        js,
        engine,
        url: shown,
    })
}

/// Ask the server for its JetStream account as JSON, and read only whether
/// it answered with an account or an error: the answer's fields differ
/// between releases (2.9 has no reserved memory or storage), and none of
/// them is needed here.
async fn jetstream_answers(client: &async_nats::Client) -> Result<(), String> {
    let answer = client
        .request("$JS.API.INFO", bytes::Bytes::new())
        .await
        .map_err(|e| e.to_string())?;
    let answer: serde_json::Value = serde_json::from_slice(&answer.payload)
        .map_err(|e| format!("the server's answer is not JSON: {e}"))?;
    match answer.get("error") {
        None => Ok(()),
        Some(error) => Err(error
            .get("description")
            .and_then(serde_json::Value::as_str)
            .map_or_else(|| error.to_string(), str::to_string)),
    }
}
