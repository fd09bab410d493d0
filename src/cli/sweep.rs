//! The arguments of the two ends of a sweep: `sweep` (on this machine's
//! cores or through NATS) and `worker` (running a sweep's jobs from NATS).

use super::{
    AnswerArgs, ExecArgs, LookArgs, ModelArgs, NatsArgs, OtlpArgs, PublishArgs, parse_flag_values,
    parse_seeds, parse_threads,
};
use clap::Args;
use std::path::PathBuf;

/// What `conclave sweep` is given: the runs, and where they run.
#[derive(Args, Debug)]
pub(crate) struct SweepCommand {
    /// The scenario file (not with --from, whose recording names it).
    #[arg(required_unless_present = "from", conflicts_with = "from")]
    pub(crate) scenario: Option<PathBuf>,
    /// Sweep from a point of a recorded run: every run is a fork of this
    /// recording at --at, served up to the gate and live from there with
    /// its seed and flags.
    #[arg(long, value_name = "REC.jsonl", requires = "at")]
    pub(crate) from: Option<PathBuf>,
    /// The gate every run of a sweep --from goes live at, as the replay
    /// timeline names it ("round 3", "wave 2", "turn 5", "step 4"), or an
    /// event number ("#120").
    #[arg(long, value_name = "GATE", requires = "from")]
    pub(crate) at: Option<String>,
    /// The seeds to run, both ends included, e.g. 1..200.
    #[arg(long, value_name = "A..B", value_parser = parse_seeds)]
    pub(crate) seeds: std::ops::RangeInclusive<u64>,
    /// A flag and the values to try, e.g. --flag legal_analyst=on,off
    /// (repeatable; every combination of the values is run).
    #[arg(long = "flag", value_name = "NAME=on,off", value_parser = parse_flag_values)]
    pub(crate) flags: Vec<(String, Vec<bool>)>,
    /// How many runs at once (threads, at most 1024); all cores by default.
    #[arg(long, value_name = "N", value_parser = parse_threads)]
    pub(crate) parallel: Option<usize>,
    /// Print the outcomes as one JSON document instead of opening the dashboard.
    #[arg(long)]
    pub(crate) headless: bool,
    /// Let the sweep call a real model endpoint (each run is paid for).
    #[arg(long)]
    pub(crate) allow_real: bool,
    // Given, every run of the sweep takes it as its answer.
    #[command(flatten)]
    pub(crate) answer: AnswerArgs,
    #[command(flatten)]
    pub(crate) model: ModelArgs,
    #[command(flatten)]
    pub(crate) exec: ExecArgs,
    #[command(flatten)]
    pub(crate) look: LookArgs,
    /// Run the jobs on `conclave worker`s through this NATS server
    /// instead of on this machine's cores.
    #[command(flatten)]
    pub(crate) nats: NatsArgs,
    #[command(flatten)]
    pub(crate) otlp: OtlpArgs,
}

impl SweepCommand {
    /// A sweep of a program scenario, run here (headless only): its exit;
    /// any other scenario is handed back to sweep as a scenario.
    pub(crate) fn launch_program(self) -> Result<conclave::exit::Exit, Box<SweepCommand>> {
        use conclave::exit::Exit;
        use conclave::output;
        let program = match self.scenario.as_deref().and_then(super::launch::program_at) {
            None => return Err(Box::new(self)),
            Some(Err(exit)) => return Ok(exit),
            Some(Ok(program)) => program,
        };
        if !self.headless || self.nats.nats.is_some() {
            output::message(
                "conclave sweep: a program scenario sweeps on this machine with --headless \
                 (the dashboard and NATS workers do not launch programs yet)",
            );
            return Ok(Exit::BadInput);
        }
        let plan = conclave::sweep::SweepPlan {
            seeds: self.seeds,
            flags: self.flags,
        };
        let parallel = self
            .parallel
            .unwrap_or_else(conclave::sweep::default_parallelism);
        Ok(conclave::launch::sweep::headless(program, &plan, parallel))
    }

    /// Why a sweep on NATS refuses the options it was given, if it does: its
    /// runs are the workers' (each takes its own `--otlp` and `--parallel`),
    /// and it prints its document rather than show it.
    pub(crate) fn refused_on_nats(&self, otlp: bool) -> Option<&'static str> {
        let (parallel, headless) = (self.parallel, self.headless);
        if otlp {
            return Some(
                "conclave: with --nats the workers run the runs: give --otlp to each conclave worker instead",
            );
        }
        if parallel.is_some() || !headless {
            return Some(if headless {
                "conclave: --parallel sets this machine's threads; with --nats each worker sets its own (conclave worker --parallel N)"
            } else {
                "conclave: a sweep on NATS prints its document: add --headless (the dashboard shows sweeps on this machine)"
            });
        }
        None
    }

    /// The file the sweep reads and, for a sweep from a point, the gate:
    /// the scenario, or the recording given with --from and its --at.
    pub(crate) fn file(&self) -> Result<(PathBuf, Option<String>), String> {
        match (&self.from, &self.at, &self.scenario) {
            (Some(recording), Some(at), _) => Ok((recording.clone(), Some(at.clone()))),
            (None, None, Some(scenario)) => Ok((scenario.clone(), None)),
            (_, _, scenario) => Err(format!(
                "conclave: --at GATE is where the runs of a sweep --from REC.jsonl go live; {} is not a recording given with --from: expected sweep --from REC.jsonl --at GATE --seeds A..B",
                scenario
                    .as_deref()
                    .map_or_else(|| "the scenario".into(), |p| p.display().to_string())
            )),
        }
    }
}

/// What `conclave worker` is given: the server its jobs are on and how
/// it runs them.
#[derive(Args, Debug)]
pub(crate) struct WorkerCommand {
    /// The server the jobs come from, where every job's events are
    /// published too (for `conclave attach`).
    #[command(flatten)]
    pub(crate) nats: PublishArgs,
    /// How many jobs at once (threads, at most 1024); all cores by default.
    #[arg(long, value_name = "N", value_parser = parse_threads)]
    pub(crate) parallel: Option<usize>,
    /// Seconds a job may go without word from its worker before the
    /// server gives it to another worker (the worker says it is still
    /// at work every third of this).
    #[arg(long, value_name = "SECONDS", default_value = "30", value_parser = conclave::nats::jobs::parse_ack_wait)]
    pub(crate) ack_wait: std::time::Duration,
    #[command(flatten)]
    pub(crate) exec: ExecArgs,
    #[command(flatten)]
    pub(crate) otlp: OtlpArgs,
}
