//! `conclave run --headless`: run one scenario without a screen and print
//! its result document on stdout, nothing else. Virtual time is the default
//! for the sim, so a run takes no wall time and is exactly reproducible.
//! Everything it prints goes through [`crate::output`].

use crate::bus::{ClockMode, Event, EventKind, EventSink, Hub, RunStatus};
use crate::engine::{self, LaunchError, LaunchOptions, ProviderChoice};
use crate::exit::Exit;
use crate::output;
use crate::scenario::{self, ProviderKind, Scenario};
use crate::telemetry::{Exporter, OtlpConfig};
use std::path::PathBuf;
use std::sync::Arc;

mod fork;
mod question;
mod recording;

pub use fork::{HeadlessFork, fork};
pub use recording::{compare, export, replay};

#[derive(Clone, Debug)]
pub struct HeadlessRun {
    pub scenario: PathBuf,
    pub seed: Option<u64>,
    /// `None`: virtual for the sim, real for a remote model.
    pub clock: Option<ClockMode>,
    pub flags: Vec<(String, bool)>,
    pub record: Option<PathBuf>,
    pub goal: Option<String>,
    pub provider: ProviderChoice,
    /// `--allow-exec`: the scenario's programs may run (and this file is
    /// remembered as allowed).
    pub allow_exec: bool,
    /// `--answer` (or `--decide`): the answer to the first question the
    /// run asks a person that offers it.
    pub answer: Option<crate::bus::GivenAnswer>,
    /// `--cache DIR`: where the tools' last good answers are kept.
    pub cache: Option<PathBuf>,
    /// `--otlp`: send the run as an OpenTelemetry trace.
    pub otlp: Option<OtlpConfig>,
    /// `--nats URL`: publish the run's events there and answer control
    /// requests from other machines (`conclave attach`).
    pub nats: Option<crate::nats::publish::PublishTo>,
    /// `--cassette REC`: serve the run's calls from a recording.
    pub cassette: Option<engine::CassettePlan>,
}

/// How long the end of a run waits for the server to acknowledge its last
/// events.
const LINK_CLOSE: std::time::Duration = std::time::Duration::from_secs(5);

/// Run and print; the exit status says how the run ended.
pub fn run(args: HeadlessRun) -> Exit {
    let scenario = match scenario::load(&args.scenario) {
        Ok(s) => Arc::new(s),
        Err(errors) => {
            output::message(&errors.to_string());
            return Exit::BadInput;
        }
    };
    run_scenario(args, scenario)
}

/// Run `scenario` (read from `args.scenario`, or a recording's) and print.
fn run_scenario(args: HeadlessRun, scenario: Arc<Scenario>) -> Exit {
    let clock = match clock_for(&args, &scenario) {
        Ok(clock) => clock,
        Err(exit) => return exit,
    };
    // Without an allowance the engine refuses, naming the first program;
    // the decision's note says what changed since the file was allowed,
    // or what an allowance would cover.
    let file = args.scenario.display().to_string();
    let trust = crate::trust::decide(&scenario, args.allow_exec, &file);
    let runtime = match runtime_for(clock) {
        Ok(rt) => rt,
        Err(e) => {
            output::message(&format!("conclave: cannot start the runtime: {e}"));
            return Exit::Internal;
        }
    };
    let exporter = match Exporter::start_or_say(args.otlp.as_ref(), crate::patterns::trace_shapes())
    {
        Ok(exporter) => exporter,
        Err(exit) => return exit,
    };
    let link = match start_link(args.nats.as_ref()) {
        Ok(link) => link,
        Err(exit) => return exit,
    };
    let asked = Arc::new(Asked::of(scenario.pattern));
    let tally = Arc::new(fork::Tally::default());
    let mut observers: Vec<Arc<dyn EventSink>> = exporter.iter().map(Exporter::observer).collect();
    observers.push(Arc::clone(&asked) as Arc<dyn EventSink>);
    if args.cassette.is_some() {
        observers.push(Arc::clone(&tally) as Arc<dyn EventSink>);
    }
    let cassette = args.cassette.clone();
    let options = LaunchOptions {
        run: 1,
        seed: args.seed,
        goal: args.goal,
        flags: args.flags,
        record: args.record,
        record_mode: crate::record::RecordMode::New,
        start_paused: false,
        clock: Some(clock),
        source: Some(file.clone()),
        provider: args.provider,
        allow_exec: trust.allow_exec,
        answer: args.answer,
        attended: false,
        cache: args.cache,
        observers,
        cassette: args.cassette,
    };
    let exit = runtime.block_on(async {
        let hub = Hub::default();
        let launched = match &link {
            Some(link) => link.launch(scenario, &hub, options),
            None => engine::launch(scenario, &hub, options),
        };
        match launched {
            Ok(handle) => run_to_its_end(handle, &asked, &file).await,
            Err(e) => refused(&e, &file, trust.refusal_note.as_deref()),
        }
    });
    if let Some(link) = link {
        link.close(LINK_CLOSE);
    }
    // The result is out; the trace follows (on a signal too), and a
    // collector that is down changes neither the result nor the exit.
    if let Some(exporter) = exporter {
        exporter
            .finish()
            .into_iter()
            .chain(exporter.notes())
            .for_each(|said| output::message(&said));
    }
    if let Some(plan) = &cassette {
        output::message(&tally.summary(plan));
    }
    exit
}

/// The clock the run keeps: `--clock`, else virtual for the sim and real
/// for a remote model or real workers; a virtual clock asked for where
/// real time must pass is refused (exit 2).
fn clock_for(args: &HeadlessRun, scenario: &Scenario) -> Result<ClockMode, Exit> {
    // Served wholly from a cassette, nothing real is called.
    let offline = args
        .cassette
        .as_ref()
        .is_some_and(engine::CassettePlan::serves_wholly);
    let remote =
        args.provider.kind.unwrap_or(scenario.provider.kind) == ProviderKind::Openai && !offline;
    let real_workers = scenario.has_real_calls() && !offline;
    match (args.clock, remote, real_workers) {
        (Some(ClockMode::Virtual), true, _) => {
            output::message(
                "conclave: a remote model runs on the real clock; drop --clock virtual or use --provider sim",
            );
            Err(Exit::BadInput)
        }
        (Some(ClockMode::Virtual), _, true) => {
            output::message(&format!(
                "conclave: {} calls real workers, which run on the real clock; drop --clock virtual",
                args.scenario.display()
            ));
            Err(Exit::BadInput)
        }
        (Some(clock), _, _) => Ok(clock),
        (None, true, _) | (None, _, true) => Ok(ClockMode::Real),
        (None, false, false) => Ok(ClockMode::Virtual),
    }
}

/// A runtime on this thread; on the virtual clock, paused from the start.
fn runtime_for(clock: ClockMode) -> std::io::Result<tokio::runtime::Runtime> {
    let mut builder = tokio::runtime::Builder::new_current_thread();
    builder.enable_all();
    if clock == ClockMode::Virtual {
        builder.start_paused(true);
    }
    builder.build()
}

/// The link to NATS `--nats` asks for, on its own thread and real-time
/// runtime (this run's clock may be virtual); a server that cannot be
/// reached is said and refused (exit 2).
fn start_link(
    to: Option<&crate::nats::publish::PublishTo>,
) -> Result<Option<crate::nats::publish::EventLink>, Exit> {
    let Some(to) = to else { return Ok(None) };
    let warn: crate::nats::publish::Warn =
        Arc::new(|warning: String| output::message(&format!("conclave: {warning}")));
    crate::nats::publish::EventLink::start(to, warn)
        .map(Some)
        .map_err(|e| {
            output::message(&format!("conclave: {e}"));
            Exit::BadInput
        })
}

/// A launch the engine refused: said on stderr, naming `file` where the
/// fault is the scenario's, and the trust note after a refused program.
fn refused(error: &LaunchError, file: &str, trust_note: Option<&str>) -> Exit {
    match error {
        LaunchError::Flag(_)
        | LaunchError::Provider(_)
        | LaunchError::Unpriced { .. }
        | LaunchError::Answer(_) => {
            output::message(&format!("{file}: {error}"));
        }
        LaunchError::Recording(_) | LaunchError::Cache(_) => {
            output::message(&format!("conclave: {error}"));
        }
        LaunchError::ExecNotAllowed(_) => {
            output::message(&error.to_string());
            if let Some(note) = trust_note {
                output::message(note);
            }
        }
        LaunchError::Tools(_) | LaunchError::VirtualClock => {
            output::message(&error.to_string());
        }
    }
    Exit::BadInput
}

/// The question the run asks a person, kept while it is unanswered, for
/// the person who started the run to read when it ends asking.
#[derive(Debug)]
struct Asked {
    pattern: crate::scenario::PatternKind,
    open: std::sync::Mutex<Option<crate::bus::Question>>,
}

impl Asked {
    fn of(pattern: crate::scenario::PatternKind) -> Self {
        Asked {
            pattern,
            open: std::sync::Mutex::default(),
        }
    }

    fn open(&self) -> Option<crate::bus::Question> {
        self.open
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }
}

impl EventSink for Asked {
    fn accept(&self, event: Arc<Event>) {
        let asked = crate::patterns::question_of(self.pattern, &event.kind);
        if asked.is_some() || matches!(event.kind, EventKind::HumanDecided { .. }) {
            let mut open = self
                .open
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            question::follow(&mut open, asked, &event.kind);
        }
    }
}

/// Wait for the run to end, cancelling it on a signal (which stops every
/// program it started), then print its result as usual. A long result is
/// printed while the recorder finishes the recording's last lines.
async fn run_to_its_end(handle: engine::RunHandle, asked: &Asked, file: &str) -> Exit {
    let controller = handle.controller.clone();
    let mut signals = crate::signals::Signals::new().ok();
    let run = async {
        let (ended, writing) = handle.end_while_written().await?;
        crate::provider::real::groups::kill_every_group();
        let exit = printed(ended, asked, file);
        // The result stands; the recording the user asked for does not.
        Ok::<_, engine::EngineError>(match writing.written().await? {
            Some(failed) => {
                output::message(&format!("conclave: {failed}"));
                Exit::Internal
            }
            None => exit,
        })
    };
    tokio::pin!(run);
    let mut signalled = None;
    let ended = loop {
        tokio::select! {
            ended = &mut run => break ended,
            Some(signal) = async {
                match signals.as_mut() {
                    Some(signals) => signals.next().await,
                    None => std::future::pending().await,
                }
            }, if signalled.is_none() => {
                signalled = Some(signal);
                controller.cancel();
            }
        }
    };
    let exit = ended.unwrap_or_else(|e: engine::EngineError| {
        crate::provider::real::groups::kill_every_group();
        output::message(&format!("conclave: {e}"));
        Exit::Internal
    });
    signalled.map_or(exit, Exit::Signalled)
}

/// Print an ended run's result and what failed beside it; the exit its
/// status calls for.
fn printed(ended: engine::Ended, asked: &Asked, file: &str) -> Exit {
    // Stopped before a program nobody allowed: a refusal, not a result.
    if let Some(refusal) = &ended.refused_program {
        output::message(refusal);
        return Exit::BadInput;
    }
    let outcome = ended.outcome;
    output::result(&outcome.result);
    if let Some(open) = asked.open() {
        output::message(&format!(
            "{}\nconclave: nobody here can answer: run it again with --decide {} (or --answer, the same), or answer in the dashboard (conclave run {}), where a note can go with the answer",
            open.prompt,
            question::choices(&open),
            crate::sanitize::shell_word(file)
        ));
    }
    if let Some(error) = &outcome.error {
        output::message(&format!("conclave: {}: {error}", outcome.stop_reason));
    }
    if let Some(failed) = &ended.cache_failed {
        output::message(&format!("conclave: {failed}"));
    }
    match outcome.status {
        RunStatus::Ok => Exit::Ok,
        RunStatus::Stopped => Exit::Stopped,
    }
}

/// `conclave schema`: the JSON Schema of scenario files on stdout.
pub fn schema(program: bool) -> Exit {
    if program {
        output::document(&crate::launch::scenario::json_schema());
        return Exit::Ok;
    }
    output::document(scenario::json_schema());
    Exit::Ok
}

/// `conclave validate`: check every file, print every error, and say
/// whether all were valid.
pub fn validate(files: &[PathBuf]) -> Exit {
    let mut all_valid = true;
    for file in files {
        if let Some(program) = crate::launch::sniff(file) {
            match program {
                Ok(_) => output::line(&format!("{}: ok", file.display())),
                Err(errors) => {
                    all_valid = false;
                    output::message(&errors.to_string());
                }
            }
            continue;
        }
        match scenario::load(file) {
            Ok(scenario) => {
                output::line(&format!("{}: ok", file.display()));
                if let Some(advice) = crate::patterns::graph::advice(&scenario) {
                    output::message(&format!("{}: {advice}", file.display()));
                }
            }
            Err(errors) => {
                all_valid = false;
                output::message(&errors.to_string());
            }
        }
    }
    if all_valid { Exit::Ok } else { Exit::BadInput }
}
