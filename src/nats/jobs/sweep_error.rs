//! Why a sweep on NATS did not finish, and the exit status each reason
//! gives the command.

use super::outage;
use crate::exit::{Exit, Signal};
use crate::nats::NatsError;
use std::time::Duration;

/// Why a sweep on NATS did not finish.
#[derive(Debug, thiserror::Error)]
pub enum RemoteSweepError {
    #[error(transparent)]
    Nats(#[from] NatsError),
    /// A worker would not run the scenario (it starts programs and the
    /// worker was not started with `--allow-exec`).
    #[error("worker {worker} refused job {job}: {problem}")]
    Refused {
        job: String,
        worker: String,
        problem: String,
    },
    #[error("job {job} failed on worker {worker}: {problem}")]
    Failed {
        job: String,
        worker: String,
        problem: String,
    },
    /// The scenario was built in memory, so there is no text to send.
    #[error("the scenario's text is not at hand to send to workers")]
    NoText,
    /// A job would be bigger than the server takes in one message.
    #[error(
        "{file}: the {what} is {text} bytes, and a job that carries it is {size} bytes, over the NATS server's limit of {limit} bytes a message (its max_payload; 1 MB unless set); sweep it on this machine without --nats, or raise max_payload on the server"
    )]
    TooBig {
        file: String,
        what: &'static str,
        text: usize,
        size: usize,
        limit: usize,
    },
    /// Part of the sweep's setup cannot travel to other machines.
    #[error("{0}")]
    Setup(String),
    /// The server went away and did not come back within the bound.
    #[error(
        "lost the NATS server at {url}: it did not come back within {}s ({}); stopped",
        waited.as_secs_f64(),
        outage::VARIABLE
    )]
    ServerLost { url: String, waited: Duration },
    #[error("stopped by a signal; the sweep's jobs were taken off the queue")]
    Interrupted(Signal),
}

impl RemoteSweepError {
    pub fn exit(&self) -> Exit {
        match self {
            RemoteSweepError::Nats(e) => e.exit(),
            RemoteSweepError::Refused { .. }
            | RemoteSweepError::Setup(_)
            | RemoteSweepError::TooBig { .. } => Exit::BadInput,
            RemoteSweepError::Failed { .. }
            | RemoteSweepError::NoText
            | RemoteSweepError::ServerLost { .. } => Exit::Internal,
            RemoteSweepError::Interrupted(signal) => Exit::Signalled(*signal),
        }
    }
}
