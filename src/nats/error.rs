//! What can go wrong between Conclave and a NATS server, each case naming
//! the server's URL and what the user can do about it. It only describes;
//! deciding whether to retry or stop is the caller's.

use crate::exit::Exit;

/// A NATS failure, for the user.
#[derive(Debug, thiserror::Error)]
pub enum NatsError {
    /// The URL is not one of a NATS server.
    #[error(
        "{url:?} is not a NATS server URL ({problem}); expected nats://HOST:PORT, e.g. nats://127.0.0.1:4222"
    )]
    BadUrl { url: String, problem: String },
    /// Nothing answered there.
    #[error(
        "cannot reach the NATS server at {url}: {problem}; start one with `nats-server -js` or pass the right --nats URL"
    )]
    Unreachable { url: String, problem: String },
    /// A server answered but without JetStream, which jobs and events need.
    #[error(
        "the NATS server at {url} has no JetStream ({problem}); start it with `nats-server -js` (JetStream on)"
    )]
    NoJetStream { url: String, problem: String },
    /// A server older than the oldest release Conclave works with.
    #[error(
        "the NATS server at {url} is nats-server {version}; Conclave needs nats-server {minimum} or later (with JetStream on: `nats-server -js`)"
    )]
    TooOld {
        url: String,
        version: String,
        minimum: String,
    },
    /// The server refused or failed a step (a stream, a consumer, a
    /// publish) after connecting.
    #[error("NATS server at {url}: cannot {what}: {problem}")]
    Server {
        url: String,
        what: String,
        problem: String,
    },
}

impl NatsError {
    /// The exit status: what the user set up wrong (the URL, the server
    /// being down or without JetStream) is bad input (2); a server failing
    /// later is an internal failure (1).
    pub fn exit(&self) -> Exit {
        match self {
            NatsError::BadUrl { .. }
            | NatsError::Unreachable { .. }
            | NatsError::NoJetStream { .. }
            | NatsError::TooOld { .. } => Exit::BadInput,
            NatsError::Server { .. } => Exit::Internal,
        }
    }

    pub(crate) fn server(url: &str, what: &str, problem: impl std::fmt::Display) -> Self {
        NatsError::Server {
            url: url.to_string(),
            what: what.to_string(),
            problem: problem.to_string(),
        }
    }
}
