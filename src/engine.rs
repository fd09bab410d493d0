//! Launching runs: wires a scenario to its bus, recorder, control gate,
//! gateway and provider, and runs its pattern as a tokio task. The engine
//! knows nothing of viewers; they subscribe to the hub before launching.

use crate::bus::{Bus, ClockMode, EventKind, EventSink, GivenAnswer, Hub, RunId, RunStarted};
use crate::clock::RunClock;
use crate::control::{self, ControlError, Controller, Flags};
use crate::gateway::Gateway;
use crate::patterns::RunContext;
use crate::provider::{SimWorkers, Workers};
use crate::record::{RecordMode, RecordPathError, Recorder};
use crate::rng::RunRng;
use crate::scenario::{PriceTable, ProviderKind, ProviderKnobs, Scenario, ScenarioErrors};
use std::path::PathBuf;
use std::sync::Arc;
use tokio::task::JoinHandle;

mod ending;
mod fork;
mod setup;
mod task;

pub(crate) use ending::Ended;
pub use ending::EngineError;
pub use fork::{CassettePlan, ForkPlan, ForkRequest, PlannedFork};
use setup::{meter, provider, run_limit, run_model};

/// How to launch a run; everything not given comes from the scenario.
#[derive(Clone, Debug)]
pub struct LaunchOptions {
    pub run: RunId,
    /// Overrides the scenario's seed.
    pub seed: Option<u64>,
    /// Overrides the scenario's goal.
    pub goal: Option<String>,
    /// Flag states at launch, over the scenario's defaults.
    pub flags: Vec<(String, bool)>,
    /// Record every event to this JSONL file.
    pub record: Option<PathBuf>,
    /// How the recording's file is made: never over an existing one.
    pub record_mode: RecordMode,
    /// Hold at the first gate until resumed or stepped.
    pub start_paused: bool,
    /// Which clock the run is on: `Virtual` (the default) reads tokio's
    /// clock, which a paused runtime advances; `Real` is for runtimes that
    /// run in real time (the dashboard, `--clock real`).
    pub clock: Option<ClockMode>,
    /// The scenario file, for the record.
    pub source: Option<String>,
    /// Which model answers, over the scenario's `provider`.
    pub provider: ProviderChoice,
    /// The user allowed the scenario's programs to run (`--allow-exec`, a
    /// remembered allowance, the dashboard's confirmation). Without it a
    /// scenario that starts programs does not launch.
    pub allow_exec: bool,
    /// The answer to the first question the run asks a person that offers
    /// it, given in advance (`--answer`, `--decide`).
    pub answer: Option<GivenAnswer>,
    /// Someone watches the run and can answer its questions (the
    /// dashboard); without it and without `answer` a question gets its
    /// default, or none (the round table then stops with
    /// `escalated_to_human`).
    pub attended: bool,
    /// `--cache DIR`: where the tools' last good answers are kept between
    /// runs, for a scenario whose safe mode falls back to them.
    pub cache: Option<PathBuf>,
    /// Lossless viewers of the run's events besides the recorder (an
    /// exporter, a publisher to other machines): each is handed every event
    /// in seq order and must never make the engine wait.
    pub observers: Vec<Arc<dyn EventSink>>,
    /// Serve the run's calls from a recording (`run --cassette`, `fork`).
    pub cassette: Option<CassettePlan>,
}

/// A model other than the scenario's: `--provider`, `--model`, `--base-url`,
/// `--prompts`, `--no-stream`, the knobs and `--endpoint-profile`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProviderChoice {
    pub kind: Option<ProviderKind>,
    pub model: Option<String>,
    pub base_url: Option<String>,
    /// A folder of prompts over the compiled-in ones.
    pub prompts: Option<PathBuf>,
    /// Prices of models (`--pricing FILE`), over the scenario's
    /// `provider.pricing` and the compiled-in ones.
    pub pricing: Option<PriceTable>,
    /// `--no-stream`: ask for whole answers, whatever the scenario says.
    pub no_stream: bool,
    /// `--output`, `--temperature`, ...: over the scenario's `provider`.
    pub knobs: ProviderKnobs,
    /// `--endpoint-profile FILE`: what `conclave probe` found the endpoint takes.
    pub endpoint_profile: Option<crate::provider::openai::EndpointProfile>,
}

impl Default for LaunchOptions {
    fn default() -> Self {
        LaunchOptions {
            run: 1,
            seed: None,
            goal: None,
            flags: Vec::new(),
            record: None,
            record_mode: RecordMode::New,
            start_paused: false,
            clock: None,
            source: None,
            provider: ProviderChoice::default(),
            allow_exec: false,
            answer: None,
            attended: false,
            cache: None,
            observers: Vec::new(),
            cassette: None,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    #[error(transparent)]
    Flag(#[from] ControlError),
    #[error(transparent)]
    Recording(#[from] RecordPathError),
    #[error("cannot set up the model provider: {0}")]
    Provider(String),
    /// A real worker cannot be set up: an unset variable, a program or
    /// folder that is not there, an MCP server (each placed in the file).
    #[error(transparent)]
    Tools(ScenarioErrors),
    /// The `--cache` folder or its file for this scenario cannot be used.
    #[error(transparent)]
    Cache(#[from] crate::gateway::CacheError),
    /// The scenario starts a program and the user has not allowed it;
    /// the error names the first program, placed in the file.
    #[error(transparent)]
    ExecNotAllowed(ScenarioErrors),
    /// Real workers answer in real time; the virtual clock would expire
    /// their timeouts while they answer.
    #[error("this scenario calls real workers, which run on the real clock; drop --clock virtual")]
    VirtualClock,
    /// An answer given on the command line that no question of the
    /// scenario takes.
    #[error(transparent)]
    Answer(#[from] crate::patterns::GivenAnswerError),
    /// A dollar budget for a model without a price.
    #[error(
        "budget.max_cost_usd needs a price for the model {model:?}: give one in provider.pricing or with --pricing FILE, e.g. {{{model:?}: {{\"input\": 0.4, \"output\": 1.6}}}} (US dollars per million tokens)"
    )]
    Unpriced { model: String },
}

/// A live run.
#[derive(Debug)]
pub struct RunHandle {
    pub controller: Controller,
    clock: RunClock,
    task: JoinHandle<task::RunEnd>,
    recorder: Option<Recorder>,
}

/// Start a run on the current tokio runtime. Subscribe to `hub` first to
/// see it from its first event.
pub fn launch(
    scenario: Arc<Scenario>,
    hub: &Hub,
    options: LaunchOptions,
) -> Result<RunHandle, LaunchError> {
    let flags = Flags::new(Arc::clone(&scenario), &options.flags)?;
    let offline = options
        .cassette
        .as_ref()
        .is_some_and(CassettePlan::serves_wholly);
    refuse_unlaunchable(&scenario, &options, offline)?;
    // Masked whatever this run uses, so that a program that prints one
    // shows it masked.
    crate::known_secrets::register_environment();
    let real = setup::real_tools(&scenario, &options, offline)?;
    let seed = options.seed.or(scenario.seed).unwrap_or(0);
    let rng = RunRng::seeded(seed);
    let (provider, choice) = match options.cassette.as_ref().filter(|_| offline) {
        Some(plan) => setup::served(&scenario, &options.provider, plan, &rng)?,
        None => (
            provider(&scenario, &options.provider, &rng)?,
            options.provider.clone(),
        ),
    };
    let provider = Arc::new(provider);
    let meter = meter(&scenario, &choice, &provider)?;
    let model = run_model(&choice, &provider);
    let (sink, recorder) = match &options.record {
        Some(path) => {
            let (sink, recorder) = Recorder::create_as(path, options.record_mode)?;
            (Some(Box::new(sink) as Box<dyn EventSink>), Some(recorder))
        }
        None => (None, None),
    };
    let (clock_mode, clock) = setup::clock(&scenario, &options, offline);
    let bus = Bus::new(options.run, clock.clone(), hub.clone(), sink)
        .with_observers(options.observers.clone());
    let (controller, gate) = control::channel(flags, bus.clone(), options.start_paused);
    let gate = gate
        .with_desk(control::HumanDesk {
            preset: options.answer.as_ref().map(|a| a.option.clone()),
            attended: options.attended,
        })
        .with_replayed(fork::replayed(options.cassette.as_ref()));
    let cassette = options
        .cassette
        .as_ref()
        .map(|plan| Arc::clone(&plan.cassette));
    let workers = Arc::new(Workers::new(sim_workers(&scenario, &rng), real));
    let output_retries = setup::output_retries(&scenario, &provider);
    let gateway = Arc::new(
        Gateway::new(bus.clone(), provider, workers, gate.cancel_token())
            .with_output_retries(output_retries)
            .with_resilience(scenario.resilience.clone(), gate.switches(), rng)
            .with_run_limit(run_limit(&scenario))
            .with_meter(meter)
            .with_last_good(setup::last_good(&scenario, options.cache.as_deref())?)
            .with_cassette(cassette, offline),
    );
    let goal = options
        .goal
        .clone()
        .unwrap_or_else(|| scenario.goal.clone());

    bus.publish(EventKind::RunStarted(RunStarted {
        pattern: scenario.pattern,
        seed,
        goal: goal.clone(),
        clock: clock_mode,
        flags: gate.flags().states(),
        source: options.source.clone(),
        started_at_ms: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
        model: Some(model.clone()),
        forked_from: options
            .cassette
            .as_ref()
            .and_then(|plan| fork::forked_from(plan, &model)),
        scenario: Arc::clone(&scenario),
    }));
    let ctx = RunContext {
        scenario,
        goal,
        bus: bus.clone(),
        gate,
        gateway: Arc::clone(&gateway),
        seed,
    };
    let task = task::spawn(ctx, gateway, bus, &clock);
    Ok(RunHandle {
        controller,
        clock,
        task,
        recorder,
    })
}

/// Refuse a launch the user asked for and cannot have: programs not
/// allowed (unless nothing runs: every call served from a cassette), an
/// answer no question of the scenario takes, the virtual clock for real calls
/// that will be made.
fn refuse_unlaunchable(
    scenario: &Scenario,
    options: &LaunchOptions,
    offline: bool,
) -> Result<(), LaunchError> {
    // A run from a recording asks when a live call first needs a
    // program, for that program (see `RealTools::refusing_programs`).
    if !options.allow_exec
        && options.cassette.is_none()
        && let Some(program) = scenario.programs().into_iter().next()
    {
        let name = program.argv.first().cloned().unwrap_or_default();
        let message = format!(
            "this scenario would run the program {}; a scenario's programs run only when you allow it: run it with --allow-exec (remembered for this file where it is and the programs it runs, as they are now), or confirm in the dashboard",
            serde_json::Value::from(crate::sanitize::clean(&name))
        );
        return Err(LaunchError::ExecNotAllowed(
            scenario.errors_at(vec![(program.path, message)]),
        ));
    }
    if let Some(given) = &options.answer {
        crate::patterns::check_given(scenario, given)?;
    }
    if options.clock == Some(ClockMode::Virtual) && scenario.has_real_calls() && !offline {
        return Err(LaunchError::VirtualClock);
    }
    Ok(())
}

/// The simulated workers: the scenario's tools, its member teams' among
/// them, when it has any, else its workers and the tools its pattern
/// brings (research's, answering from its `sources`).
fn sim_workers(scenario: &Scenario, rng: &RunRng) -> SimWorkers {
    let mut tools = scenario.tools.clone();
    for (_, name, spec) in scenario.team_tools() {
        tools.insert(name, spec.clone());
    }
    if tools.is_empty() {
        SimWorkers::new(scenario.workers.clone(), rng.clone())
            .with_pattern_tools(crate::patterns::declared::sim_tools(scenario, rng))
    } else {
        SimWorkers::tools(tools, rng.clone())
    }
}

impl RunHandle {
    /// The run's clock, for showing its time while it runs.
    pub(crate) fn clock(&self) -> RunClock {
        self.clock.clone()
    }

    pub fn is_finished(&self) -> bool {
        self.task.is_finished()
    }

    /// The file the run is recorded to, as it was made.
    pub(crate) fn recording(&self) -> Option<&std::path::Path> {
        self.recorder.as_ref().map(Recorder::path)
    }
}
