//! Launching runs: wires a scenario to its bus, recorder, control gate,
//! gateway and provider, and runs its pattern as a tokio task. The engine
//! knows nothing of viewers; they subscribe to the hub before launching.

use crate::bus::{Bus, ClockMode, EventKind, EventSink, Hub, RunId, RunStarted};
use crate::clock::RunClock;
use crate::control::{self, ControlError, Controller, Flags};
use crate::gateway::Gateway;
use crate::patterns::{self, RunContext, RunOutcome};
use crate::provider::openai::{self, OpenAiConfig};
use crate::provider::prompts::Prompts;
use crate::provider::{OpenAiProvider, Provider, SimProvider, SimWorkers};
use crate::record::{RecordPathError, Recorder};
use crate::rng::RunRng;
use crate::scenario::{PatternKind, ProviderKind, Scenario};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};
use tokio::task::JoinHandle;

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
}

/// A model other than the scenario's: `--provider`, `--model`,
/// `--base-url`, `--prompts` and `--no-stream` on the command line.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProviderChoice {
    pub kind: Option<ProviderKind>,
    pub model: Option<String>,
    pub base_url: Option<String>,
    /// A folder of prompts over the compiled-in ones.
    pub prompts: Option<PathBuf>,
    /// `--no-stream`: ask for whole answers, whatever the scenario says.
    pub no_stream: bool,
}

impl Default for LaunchOptions {
    fn default() -> Self {
        LaunchOptions {
            run: 1,
            seed: None,
            goal: None,
            flags: Vec::new(),
            record: None,
            start_paused: false,
            clock: None,
            source: None,
            provider: ProviderChoice::default(),
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
}

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("the run crashed: {0}")]
    Crashed(String),
    #[error("the recording {} is incomplete: {source}", path.display())]
    Recording {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl EngineError {
    /// A crash's words (a panic's message may quote anything), scrubbed.
    fn crashed(error: &dyn std::fmt::Display) -> Self {
        EngineError::Crashed(crate::secrets::scrub(&error.to_string()).into_owned())
    }
}

/// How a run ended, with its recording apart: a recording that could not
/// be written does not take the run's outcome with it.
#[derive(Debug)]
pub(crate) struct Ended {
    pub(crate) outcome: RunOutcome,
    /// Why the recording is incomplete ([`EngineError::Recording`]), when
    /// writing it failed.
    pub(crate) recording_failed: Option<EngineError>,
}

/// A live run.
#[derive(Debug)]
pub struct RunHandle {
    pub controller: Controller,
    clock: RunClock,
    task: JoinHandle<RunOutcome>,
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
    let (sink, recorder) = match &options.record {
        Some(path) => {
            let (sink, recorder) = Recorder::create(path)?;
            (Some(Box::new(sink) as Box<dyn EventSink>), Some(recorder))
        }
        None => (None, None),
    };
    let seed = options.seed.or(scenario.seed).unwrap_or(0);
    let rng = RunRng::seeded(seed);
    let clock = RunClock::start_on(options.clock.unwrap_or(ClockMode::Virtual));
    let bus = Bus::new(options.run, clock.clone(), hub.clone(), sink);
    let (controller, gate) = control::channel(flags, bus.clone(), options.start_paused);
    let provider = Arc::new(provider(&scenario, &options.provider, &rng)?);
    let workers = Arc::new(if scenario.tools.is_empty() {
        SimWorkers::new(scenario.workers.clone(), rng.clone())
            .with_sources(scenario.sources.clone())
    } else {
        SimWorkers::tools(scenario.tools.clone(), rng.clone())
    });
    let gateway = Arc::new(
        Gateway::new(bus.clone(), provider, workers, gate.cancel_token())
            .with_resilience(scenario.resilience.clone(), gate.switches(), rng)
            .with_run_limit(run_limit(&scenario)),
    );
    let goal = options
        .goal
        .clone()
        .unwrap_or_else(|| scenario.goal.clone());

    bus.publish(EventKind::RunStarted(RunStarted {
        pattern: scenario.pattern,
        seed,
        goal: goal.clone(),
        clock: options.clock.unwrap_or(ClockMode::Virtual),
        flags: gate.flags().states(),
        source: options.source.clone(),
        started_at_ms: SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
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
    let task = tokio::spawn(async move {
        let mut outcome = patterns::run(ctx).await;
        if let Some(words) = gateway.failure_words(&outcome.stop_reason) {
            outcome.error = Some(words);
        }
        // The result leaves the process (printed, recorded, shown): no
        // secret in it, whatever text it was built from.
        crate::secrets::scrub_json(&mut outcome.result);
        if let Some(error) = &mut outcome.error {
            *error = crate::secrets::scrub(error).into_owned();
        }
        bus.publish(EventKind::RunFinished {
            status: outcome.status,
            stop_reason: outcome.stop_reason.clone(),
            phase: outcome.phase.clone(),
            result: outcome.result.clone(),
            summary: Box::new(outcome.summary.clone()),
            error: outcome.error.clone(),
        });
        bus.close_recording();
        outcome
    });
    Ok(RunHandle {
        controller,
        clock,
        task,
        recorder,
    })
}

impl RunHandle {
    /// The run's clock, for showing its time while it runs.
    pub(crate) fn clock(&self) -> RunClock {
        self.clock.clone()
    }

    pub fn is_finished(&self) -> bool {
        self.task.is_finished()
    }

    /// Wait for the run to end and its recording to be complete on disk; a
    /// recording that could not be written is an error.
    pub async fn finish(self) -> Result<RunOutcome, EngineError> {
        let ended = self.end().await?;
        match ended.recording_failed {
            Some(e) => Err(e),
            None => Ok(ended.outcome),
        }
    }

    /// Wait for the run to end and its recording to be complete on disk;
    /// the outcome is kept when only the recording failed. An error means
    /// the run crashed.
    pub(crate) async fn end(self) -> Result<Ended, EngineError> {
        let outcome = self.task.await;
        let mut recording_failed = None;
        if let Some(recorder) = self.recorder {
            let path = recorder.path().to_path_buf();
            let written = tokio::task::spawn_blocking(move || recorder.finish())
                .await
                .map_err(|e| EngineError::crashed(&e))?;
            if let Err(source) = written {
                recording_failed = Some(EngineError::Recording { path, source });
            }
        }
        let outcome = outcome.map_err(|e| EngineError::crashed(&e))?;
        Ok(Ended {
            outcome,
            recording_failed,
        })
    }
}

/// The model of a run: the sim with the scenario's script, or an
/// OpenAI-compatible endpoint configured by the command line, the
/// scenario and the environment (the key only from the environment).
fn provider(
    scenario: &Arc<Scenario>,
    choice: &ProviderChoice,
    rng: &RunRng,
) -> Result<Provider, LaunchError> {
    match choice.kind.unwrap_or(scenario.provider.kind) {
        ProviderKind::Sim => Ok(Provider::Sim(Box::new(SimProvider::new(
            scenario.provider.clone(),
            rng.clone(),
        )))),
        ProviderKind::Openai => {
            let overrides = openai::Overrides {
                model: choice.model.clone(),
                base_url: choice.base_url.clone(),
                no_stream: choice.no_stream,
            };
            let refused = |e: &dyn std::fmt::Display| {
                LaunchError::Provider(crate::secrets::scrub(&e.to_string()).into_owned())
            };
            let config = OpenAiConfig::resolve(&scenario.provider, &overrides, |name| {
                std::env::var(name).ok()
            })
            .map_err(|e| refused(&e))?;
            let prompts = Prompts::new(choice.prompts.clone());
            OpenAiProvider::new(config, prompts, Arc::clone(scenario))
                .map(Provider::OpenAi)
                .map_err(|e| refused(&e))
        }
    }
}

/// The run's time budget: its `max_seconds`, or its pattern's default.
fn run_limit(scenario: &Scenario) -> std::time::Duration {
    let default = match scenario.pattern {
        PatternKind::Collaboration => patterns::collaboration::DEFAULT_MAX_SECONDS,
        PatternKind::Orchestrator => patterns::orchestrator::DEFAULT_MAX_SECONDS,
        PatternKind::Research => crate::scenario::DEFAULT_MAX_SECONDS,
        PatternKind::Swarm | PatternKind::Coordinator => crate::scenario::DEFAULT_TEAM_MAX_SECONDS,
    };
    let seconds = scenario
        .budget
        .as_ref()
        .and_then(|b| b.max_seconds)
        .unwrap_or(default);
    crate::duration::clamp_seconds(seconds)
}
