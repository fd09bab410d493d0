//! Sweeps: every seed of a range under every combination of flag values,
//! each run alone on its own virtual clock, tallied per combination. The
//! executor (local threads here, a work queue elsewhere) feeds one
//! [`Tally`]; nothing here knows of the dashboard.

mod command;
mod fork;
mod job;
mod jobs;
mod local;
mod measure;
mod plan;
mod size;
mod stats;
mod tally;
mod used;

pub use command::{Prepared, SweepArgs, headless, prepare};
pub use fork::SweepFork;
pub(crate) use job::run_job_recorded;
pub use job::{Job, JobResult, JobSetup, OnLaunch, run_job, run_job_with};
pub use jobs::{JobList, Jobs};
pub use local::{default_parallelism, run_local, run_local_with};
pub use measure::ToolCalls;
pub use plan::{PlanError, SweepPlan, parse_flag_values, parse_seeds};
pub use size::{DEFAULT_MAX_RUNS, MAX_PARALLEL, MAX_RUNS_VAR, TooManyRuns, max_runs};
pub use tally::Tally;
pub use used::Used;
pub(crate) use used::merged_names;

use crate::engine::{EngineError, LaunchError};

/// Why a sweep could not run a job.
#[derive(Debug, thiserror::Error)]
pub enum SweepError {
    /// The scenario cannot launch as asked (an undeclared flag, programs
    /// not allowed, a provider that cannot be set up): the user's to fix.
    /// `where_` is the scenario file and ": ", or nothing for an error
    /// that places itself in the file already.
    #[error("{where_}{error}")]
    Launch { where_: String, error: LaunchError },
    #[error("cannot start a runtime for a run: {0}")]
    Runtime(std::io::Error),
    #[error(transparent)]
    Engine(EngineError),
    /// A thread of the local executor ended without its result.
    #[error("a thread of the sweep's runs crashed (its message is above, on stderr)")]
    Thread,
    /// The recording a sweep forks cannot serve a run (see [`SweepFork`]).
    #[error("{0}")]
    Recording(String),
    /// The system gave the local executor no thread at all.
    #[error("cannot start a thread for the sweep's runs: {0}")]
    NoThread(std::io::Error),
}

impl SweepError {
    pub fn launch(source: Option<&str>, error: LaunchError) -> SweepError {
        let where_ = match error {
            // Placed in the file already (file, line, column, path).
            LaunchError::Tools(_) | LaunchError::ExecNotAllowed(_) => String::new(),
            _ => format!("{}: ", source.unwrap_or("the scenario")),
        };
        SweepError::Launch { where_, error }
    }

    /// The user's input is at fault (exit 2), not Conclave (exit 1).
    pub(crate) fn is_bad_input(&self) -> bool {
        matches!(self, SweepError::Launch { .. } | SweepError::Recording(_))
    }
}
