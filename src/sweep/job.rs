//! One run of a sweep: which seed under which flags ([`Job`]), what it came
//! to ([`JobResult`]), and running it alone on a runtime of its own. Jobs
//! share nothing: each has its own runtime, hub, clock and random source,
//! so a job's result depends only on the scenario and the job.

use super::SweepError;
use super::fork::SweepFork;
use super::measure::{Measure, Measured, ToolCalls};
use super::used::Used;
use crate::bus::{ClockMode, EventSink, GivenAnswer, Hub, RunStatus, RunSummary};
use crate::control::Controller;
use crate::engine::{self, LaunchOptions, ProviderChoice};
use crate::patterns::figures::{self, FAILED_TASKS, Read};
use crate::record::RecordMode;
use crate::scenario::{PatternKind, ProviderKind, Scenario};
use crate::stop::StopReason;
use crate::telemetry::Exporter;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

/// One seed under one combination of flag values.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Job {
    /// Unique within a sweep: "c<combination>-s<seed>", e.g. "c1-s17".
    pub id: String,
    pub combination: usize,
    pub seed: u64,
    pub flags: Vec<(String, bool)>,
}

impl Job {
    pub fn new(combination: usize, seed: u64, flags: Vec<(String, bool)>) -> Job {
        Job {
            id: format!("c{combination}-s{seed}"),
            combination,
            seed,
            flags,
        }
    }
}

/// What a job's run came to, in the measures a sweep tallies.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobResult {
    /// [`Job::id`].
    pub job: String,
    pub combination: usize,
    pub seed: u64,
    /// "<status>/<stop_reason>/<verdict>" as the sweep document keys it.
    pub outcome: String,
    pub status: RunStatus,
    pub stop_reason: StopReason,
    /// The round table's decision, the orchestrator's health or the swarm's
    /// or coordinator's final agent; `None` where the run has none.
    pub verdict: Option<String>,
    pub used: Used,
    /// Model call attempts that reached the model.
    pub model_calls: u64,
    /// Worker or tool call attempts that reached the tool.
    pub tool_calls: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// Of the input tokens, those the endpoint served from its prompt
    /// cache; of the output tokens, those the model spent reasoning. Left
    /// out when none (a run on the sim), and 0 from a worker that did not
    /// count them.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cached_tokens: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub reasoning_tokens: u64,
    /// The run finished with work undone: safe mode skipped calls or tasks
    /// failed. Its outcome key ends in `/partial`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
    /// Tasks that failed (orchestrator).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_tasks: Option<u64>,
    /// Tool call attempts per tool, and how many of them failed.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tool_calls_by_tool: BTreeMap<String, ToolCalls>,
    /// What the run's priced model calls cost, in US dollars; `None` when
    /// its model has no price.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
}

fn is_zero(count: &u64) -> bool {
    *count == 0
}

/// How a sweep's runs are set up beyond the job: the same for every job.
#[derive(Clone, Debug, Default)]
pub struct JobSetup {
    /// `--provider`, `--model` and the like, over the scenario's.
    pub provider: ProviderChoice,
    /// The user allowed the scenario's programs to run.
    pub allow_exec: bool,
    /// `--answer` (or `--decide`): each run's answer to the first question
    /// it asks a person that offers it, checked against the scenario's
    /// questions before the sweep starts.
    pub answer: Option<String>,
    /// Record the run's events to a file of this name, numbered while it is
    /// taken (to replay one run of a sweep).
    pub record: Option<PathBuf>,
    /// `--otlp`: every run goes to the collector as a trace of its own.
    pub exporter: Option<Arc<Exporter>>,
    /// The run's number in this engine; a worker gives each job its own,
    /// so that its published events and control subject are the job's.
    pub run: Option<u32>,
    /// Told of each run once it is launched, with its number and its
    /// controller (a worker answers control requests for it).
    pub on_launch: Option<OnLaunch>,
    /// `sweep --from REC --at GATE`: every run is a fork of that recorded
    /// run at that gate, with the job's seed and its flags set at the gate.
    pub fork: Option<Arc<SweepFork>>,
}

/// What [`JobSetup::on_launch`] calls.
#[derive(Clone)]
pub struct OnLaunch(pub Arc<dyn Fn(u32, Controller) + Send + Sync>);

impl std::fmt::Debug for OnLaunch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OnLaunch")
    }
}

impl JobSetup {
    /// Whether the runs call a model over the network.
    pub fn remote(&self, scenario: &Scenario) -> bool {
        self.provider.kind.unwrap_or(scenario.provider.kind) == ProviderKind::Openai
    }

    /// The clock the runs are on: virtual, unless they call a remote model
    /// or real workers, which answer in real time.
    pub fn clock(&self, scenario: &Scenario) -> ClockMode {
        if self.remote(scenario) || scenario.has_real_calls() {
            ClockMode::Real
        } else {
            ClockMode::Virtual
        }
    }
}

/// Run one job to its end on its own current-thread tokio runtime with a
/// paused (virtual) clock; blocking; deterministic for (scenario, job).
/// `observers` are handed every event (LaunchOptions.observers), e.g. a
/// publisher to NATS.
pub fn run_job(
    scenario: &Arc<Scenario>,
    source: Option<&str>,
    job: &Job,
    observers: Vec<Arc<dyn EventSink>>,
) -> Result<JobResult, SweepError> {
    run_job_with(scenario, source, job, &JobSetup::default(), observers)
}

/// [`run_job`] with the sweep's setup: its model, whether programs may
/// run, a recording. A scenario with real workers or a remote model runs
/// on the real clock (see [`JobSetup::clock`]).
pub fn run_job_with(
    scenario: &Arc<Scenario>,
    source: Option<&str>,
    job: &Job,
    setup: &JobSetup,
    observers: Vec<Arc<dyn EventSink>>,
) -> Result<JobResult, SweepError> {
    run_job_recorded(scenario, source, job, setup, observers).map(|(result, _)| result)
}

/// [`run_job_with`], and the file the run was recorded to: named after
/// [`JobSetup::record`], numbered while that name is taken.
pub(crate) fn run_job_recorded(
    scenario: &Arc<Scenario>,
    source: Option<&str>,
    job: &Job,
    setup: &JobSetup,
    mut observers: Vec<Arc<dyn EventSink>>,
) -> Result<(JobResult, Option<PathBuf>), SweepError> {
    let clock = setup.clock(scenario);
    let mut builder = tokio::runtime::Builder::new_current_thread();
    if clock == ClockMode::Virtual {
        // Nothing on the virtual clock waits on a socket or a process
        // (those runs are on the real clock): without the I/O driver the
        // runtime parks on a condition variable instead of polling epoll
        // at every turn of the clock, a tenth of a sweep's CPU.
        builder.enable_time().start_paused(true);
    } else {
        builder.enable_all();
    }
    let runtime = builder.build().map_err(SweepError::Runtime)?;
    let measure = Arc::new(Measure::default());
    observers.push(Arc::clone(&measure) as Arc<dyn EventSink>);
    if let Some(exporter) = &setup.exporter {
        observers.push(exporter.observer());
    }
    let run = setup.run.unwrap_or(1);
    // A fork starts as its parent did, its flags at launch the parent's;
    // the job's flags are set at the gate.
    let (flags, goal, cassette) = match &setup.fork {
        Some(fork) => (
            fork.launch_flags().to_vec(),
            Some(fork.goal().to_string()),
            Some(fork.plan(&job.flags).map_err(SweepError::Recording)?),
        ),
        None => (job.flags.clone(), None, None),
    };
    let options = LaunchOptions {
        run,
        seed: Some(job.seed),
        goal,
        flags,
        cassette,
        record: setup.record.clone(),
        record_mode: RecordMode::Numbered,
        clock: Some(clock),
        source: source.map(str::to_string),
        provider: setup.provider.clone(),
        allow_exec: setup.allow_exec,
        answer: setup
            .answer
            .as_ref()
            .map(|option| GivenAnswer::new(option.clone(), "--answer")),
        observers,
        ..LaunchOptions::default()
    };
    let outcome = runtime.block_on(async {
        // No viewer subscribes: the hub's broadcast drops what nobody reads.
        let hub = Hub::default();
        let handle = engine::launch(Arc::clone(scenario), &hub, options)
            .map_err(|error| SweepError::launch(source, error))?;
        if let Some(OnLaunch(told)) = &setup.on_launch {
            told(run, handle.controller.clone());
        }
        let recorded = handle.recording().map(std::path::Path::to_path_buf);
        let outcome = handle.finish().await.map_err(SweepError::Engine)?;
        Ok::<_, SweepError>((outcome, recorded))
    })?;
    let (outcome, recorded) = outcome;
    let result = result_of(
        job,
        scenario.pattern,
        outcome.status,
        outcome.stop_reason,
        &outcome.summary,
        measure.measured(),
    );
    Ok((result, recorded))
}

/// The result a finished run gives: its outcome's key and its measures.
fn result_of(
    job: &Job,
    pattern: PatternKind,
    status: RunStatus,
    stop_reason: StopReason,
    summary: &RunSummary,
    measured: Measured,
) -> JobResult {
    let declared = figures::figures_of(pattern);
    let verdict = declared.verdict.and_then(|name| verdict(summary, name));
    let counts = &summary.counts;
    // The measures the pattern declares, in its order, each read where
    // the declaration says.
    let used = Used::new(declared.swept.iter().flat_map(|swept| {
        let name = swept.name.to_string();
        match swept.read {
            Read::Count => counts
                .get(swept.name)
                .map(|n| (name, n))
                .into_iter()
                .collect(),
            Read::StepsOpened => vec![(name, measured.steps_opened)],
            Read::EachKey => each_key(summary, swept.name),
        }
    }));
    let partial = status == RunStatus::Ok && summary.falls_short();
    let mut outcome = outcome_key(status, &stop_reason, verdict.as_deref());
    if partial {
        outcome.push_str("/partial");
    }
    JobResult {
        job: job.id.clone(),
        combination: job.combination,
        seed: job.seed,
        outcome,
        status,
        stop_reason,
        verdict,
        used,
        model_calls: measured.model_calls,
        tool_calls: measured.tool_calls,
        input_tokens: measured.input_tokens,
        output_tokens: measured.output_tokens,
        cached_tokens: measured.cached_tokens,
        reasoning_tokens: measured.reasoning_tokens,
        partial,
        failed_tasks: counts.get(FAILED_TASKS),
        tool_calls_by_tool: measured.tool_calls_by_tool,
        cost_usd: measured.cost_usd,
    }
}

/// What the run came to, in the pattern's own terms: its summary's value
/// `name` in words (`go`, `green`, `billing`), a list's items joined by
/// `→` (a graph's path).
fn verdict(summary: &RunSummary, name: &str) -> Option<String> {
    match summary.value(name)? {
        Value::Null => None,
        Value::String(word) => Some(word.clone()),
        Value::Array(items) => Some(items.iter().map(words).collect::<Vec<_>>().join("→")),
        other => Some(other.to_string()),
    }
}

/// A value's word: a string as it is, anything else as JSON.
fn words(value: &Value) -> String {
    value
        .as_str()
        .map_or_else(|| value.to_string(), str::to_string)
}

/// The counts in the summary's object `name`, each as `name.KEY`, in the
/// object's order (a graph's `visits.draft`); none when it has no such
/// object.
fn each_key(summary: &RunSummary, name: &str) -> Vec<(String, u64)> {
    let Some(Value::Object(counts)) = summary.value(name) else {
        return Vec::new();
    };
    counts
        .iter()
        .filter_map(|(key, n)| Some((format!("{name}.{key}"), n.as_u64()?)))
        .collect()
}

/// "<status>/<stop_reason>/<verdict>", "-" for a run without a verdict.
pub(crate) fn outcome_key(
    status: RunStatus,
    stop_reason: &StopReason,
    verdict: Option<&str>,
) -> String {
    let status = match status {
        RunStatus::Ok => "ok",
        RunStatus::Stopped => "stopped",
    };
    format!("{status}/{stop_reason}/{}", verdict.unwrap_or("-"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checkout() -> Arc<Scenario> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("scenarios/checkout_v2_launch.json");
        Arc::new(crate::scenario::load(&path).unwrap())
    }

    #[test]
    fn a_job_runs_on_virtual_time_and_again_gives_the_same_result() {
        let scenario = checkout();
        let job = Job::new(1, 17, vec![("legal_analyst".into(), true)]);
        let first = run_job(&scenario, Some("checkout"), &job, Vec::new()).unwrap();
        let again = run_job(&scenario, Some("checkout"), &job, Vec::new()).unwrap();
        assert_eq!(first, again);
        assert_eq!(first.job, "c1-s17");
        assert_eq!((first.combination, first.seed), (1, 17));
        let verdict = first.verdict.clone().unwrap_or_else(|| "-".into());
        assert_eq!(
            first.outcome,
            format!(
                "{}/{}/{verdict}",
                if first.status == RunStatus::Ok {
                    "ok"
                } else {
                    "stopped"
                },
                first.stop_reason
            )
        );
        assert!(
            first.used.get("rounds").is_some_and(|r| r >= 1),
            "{first:?}"
        );
        assert!(first.model_calls >= 1, "{first:?}");
        assert!(first.input_tokens + first.output_tokens > 0, "{first:?}");
    }

    #[test]
    fn a_flag_the_scenario_does_not_declare_is_a_launch_error_naming_the_file() {
        let job = Job::new(0, 1, vec![("no_such_flag".into(), true)]);
        let error = run_job(&checkout(), Some("checkout.json"), &job, Vec::new()).unwrap_err();
        let message = error.to_string();
        assert!(
            message.contains("checkout.json") && message.contains("no_such_flag"),
            "{message}"
        );
        assert!(error.is_bad_input());
    }

    #[test]
    fn the_outcome_key_says_status_stop_reason_and_verdict() {
        assert_eq!(
            outcome_key(RunStatus::Ok, &StopReason::Success, Some("go")),
            "ok/success/go"
        );
        assert_eq!(
            outcome_key(RunStatus::Stopped, &StopReason::MaxSeconds, None),
            "stopped/max_seconds/-"
        );
    }
}
