//! Sweeps over NATS JetStream: the sweep puts one job per run on a work
//! queue and gathers results; `conclave worker` on any machine runs them.
//! The runs themselves are the sweep's own (`sweep::run_job`); this module
//! only carries jobs and results and never counts a run twice.

mod command;
mod endpoint;
mod engine;
mod executor;
pub mod outage;
mod payload;
mod queue;
mod results;
mod scenarios;
mod sweep_error;
mod worker;

pub use command::sweep_headless;
pub use executor::{Gathered, RemoteSweepError, Until, run_nats};
pub use worker::{DEFAULT_ACK_WAIT, WorkerOptions, parse_ack_wait, worker};
