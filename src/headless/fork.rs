//! `conclave fork`: a recorded run served from its recording up to a gate
//! and run live from there, with other flags, goal, model or seed; and the
//! line that says how many calls a run from a cassette was served.

use super::HeadlessRun;
use crate::bus::{Event, EventKind, EventSink};
use crate::cassette::{Cassette, GateTarget, MissPolicy};
use crate::engine::{CassettePlan, ForkPlan, ProviderChoice};
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
    pub provider: ProviderChoice,
    pub record: Option<PathBuf>,
    pub allow_exec: bool,
    pub otlp: Option<crate::telemetry::OtlpConfig>,
}

/// Run the fork and print its result as `run --headless` does.
pub fn fork(args: HeadlessFork) -> Exit {
    let (cassette, plan) = match plan_fork(&args) {
        Ok(found) => found,
        Err(words) => {
            output::message(&words);
            return Exit::BadInput;
        }
    };
    let started = cassette.parent().started.clone();
    // The fork starts as its parent did: its flags at launch; the fork's
    // own changes come at the gate.
    let flags = started
        .flags
        .iter()
        .map(|flag| (flag.name.clone(), flag.on))
        .collect();
    let run = HeadlessRun {
        scenario: args.recording.clone(),
        seed: Some(args.seed.unwrap_or(started.seed)),
        clock: None,
        flags,
        record: args.record,
        goal: Some(args.goal.unwrap_or(started.goal)),
        provider: args.provider,
        allow_exec: args.allow_exec,
        decide: None,
        cache: None,
        otlp: args.otlp,
        nats: None,
        cassette: Some(plan),
    };
    super::run_scenario(run, Arc::clone(&started.scenario))
}

/// The fork's cassette and plan; what is wrong with the recording or the
/// gate, in words.
pub(crate) fn plan_fork(args: &HeadlessFork) -> Result<(Arc<Cassette>, CassettePlan), String> {
    let (cassette, problems) = Cassette::load(&args.recording).map_err(|e| e.to_string())?;
    for problem in problems {
        output::message(&problem);
    }
    let at = GateTarget::resolve(&args.at, &cassette.parent().events).map_err(|e| {
        format!(
            "{}: {e}",
            crate::sanitize::clean(&args.recording.display().to_string())
        )
    })?;
    let goal_changed = args
        .goal
        .as_ref()
        .is_some_and(|goal| *goal != cassette.parent().started.goal);
    let cassette = if goal_changed {
        cassette.ignoring_prompts()
    } else {
        cassette
    };
    let cassette = Arc::new(cassette.with_miss(MissPolicy::Stop));
    let plan = CassettePlan {
        cassette: Arc::clone(&cassette),
        fork: Some(ForkPlan {
            at,
            flags: args.flags.clone(),
        }),
    };
    Ok((cassette, plan))
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
