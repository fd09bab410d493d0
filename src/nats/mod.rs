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
    let js = async_nats::jetstream::new(client.clone());
    js.query_account()
        .await
        .map_err(|e| NatsError::NoJetStream {
            url: shown.clone(),
            problem: e.to_string(),
        })?;
    Ok(Nats {
        client,
        js,
        engine,
        url: shown,
    })
}
