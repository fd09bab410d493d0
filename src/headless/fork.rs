//! `conclave fork`: a recorded run served from its recording up to a gate
//! and run live from there, with other flags, goal, model or seed; and the
//! line that says how many calls a run from a cassette was served.

use super::HeadlessRun;
use crate::bus::{Event, EventKind, EventSink};
use crate::engine::{CassettePlan, ForkRequest, ProviderChoice};
use crate::exit::Exit;
use crate::output;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// What `conclave fork --headless` is given.
#[derive(Clone, Debug)]
pub struct HeadlessFork {
    pub recording: PathBuf,
    /// The gate, as the replay timeline names it, or an event number.
    pub at: String,
    /// Flags set at the gate.
    pub flags: Vec<(String, bool)>,
    pub goal: Option<String>,
    pub seed: Option<u64>,
    /// Recorded outputs served changed.
    pub edits: Vec<crate::cassette::OutputEdit>,
    /// The answer to the run's question, over the recorded person's.
    pub answer: Option<crate::bus::GivenAnswer>,
    pub provider: ProviderChoice,
    pub record: Option<PathBuf>,
    pub allow_exec: bool,
    pub otlp: Option<crate::telemetry::OtlpConfig>,
    /// `--clock`: the run's clock, else the one a run of it would keep.
    pub clock: Option<crate::clock::ClockMode>,
}

/// Run the fork and print its result as `run --headless` does.
pub fn fork(args: HeadlessFork) -> Exit {
    let planned = match args.request().plan() {
        Ok(planned) => planned,
        Err(words) => {
            output::message(&words);
            return Exit::BadInput;
        }
    };
    for problem in &planned.problems {
        output::message(problem);
    }
    let run = HeadlessRun {
        scenario: args.recording.clone(),
        seed: Some(planned.seed),
        clock: args.clock,
        flags: planned.flags,
        record: args.record,
        goal: Some(planned.goal),
        provider: planned.plan.provider_over(&args.provider),
        allow_exec: args.allow_exec,
        answer: args.answer,
        cache: None,
        otlp: args.otlp,
        nats: None,
        cassette: Some(planned.plan),
    };
    super::run_scenario(run, planned.scenario)
}

impl HeadlessFork {
    /// The fork asked for, as every front plans it.
    pub fn request(&self) -> ForkRequest {
        ForkRequest {
            recording: self.recording.clone(),
            at: self.at.clone(),
            flags: self.flags.clone(),
            goal: self.goal.clone(),
            seed: self.seed,
            edits: self.edits.clone(),
        }
    }
}

/// How many of a run's calls were served and how many made live.
#[derive(Debug, Default)]
pub(super) struct Tally {
    served: AtomicU64,
    live: AtomicU64,
}

impl EventSink for Tally {
    fn accept(&self, event: Arc<Event>) {
        if let EventKind::CallFinished { served, .. } = &event.kind {
            let count = if *served { &self.served } else { &self.live };
            count.fetch_add(1, Ordering::Relaxed);
        }
    }
}

impl Tally {
    /// `conclave: served 7 calls from REC, 3 live`.
    pub(super) fn summary(&self, plan: &CassettePlan) -> String {
        let served = self.served.load(Ordering::Relaxed);
        let live = self.live.load(Ordering::Relaxed);
        let from =
            crate::sanitize::clean(&plan.cassette.parent().path.display().to_string()).into_owned();
        format!(
            "conclave: served {} from {from}, {live} live",
            crate::words::plural(served, "call")
        )
    }
}
