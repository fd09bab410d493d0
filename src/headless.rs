//! `conclave run --headless`: run one scenario without a screen and print
//! its result document on stdout, nothing else. Virtual time is the default
//! for the sim, so a run takes no wall time and is exactly reproducible.
//! Everything it prints goes through [`crate::output`].

use crate::bus::{ClockMode, Event, EventKind, Hub, RunStatus};
use crate::engine::{self, LaunchError, LaunchOptions, ProviderChoice};
use crate::exit::Exit;
use crate::output;
use crate::scenario::{self, ProviderKind};
use crate::telemetry::{Exporter, OtlpConfig};
use crate::trust::TrustStore;
use std::path::{Path, PathBuf};
use std::sync::Arc;

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
    /// `--decide`: the answer when the run escalates to a person.
    pub decide: Option<crate::bus::HumanChoice>,
    /// `--cache DIR`: where the tools' last good answers are kept.
    pub cache: Option<PathBuf>,
    /// `--otlp`: send the run as an OpenTelemetry trace.
    pub otlp: Option<OtlpConfig>,
    /// `--nats URL`: publish the run's events there and answer control
    /// requests from other machines (`conclave attach`).
    pub nats: Option<crate::nats::publish::PublishTo>,
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
    let remote = args.provider.kind.unwrap_or(scenario.provider.kind) == ProviderKind::Openai;
    let real_workers = scenario.has_real_calls();
    let clock = match (args.clock, remote, real_workers) {
        (Some(ClockMode::Virtual), true, _) => {
            output::message(
                "conclave: a remote model runs on the real clock; drop --clock virtual or use --provider sim",
            );
            return Exit::BadInput;
        }
        (Some(ClockMode::Virtual), _, true) => {
            output::message(&format!(
                "conclave: {} calls real workers, which run on the real clock; drop --clock virtual",
                args.scenario.display()
            ));
            return Exit::BadInput;
        }
        (Some(clock), _, _) => clock,
        (None, true, _) | (None, _, true) => ClockMode::Real,
        (None, false, false) => ClockMode::Virtual,
    };
    let allow_exec = match crate::trust::consent_for(&scenario) {
        None => false,
        Some(_) => {
            let store = TrustStore::from_env();
            if args.allow_exec
                && !store.allows(&scenario)
                && let Err(e) = store.remember(&scenario)
            {
                output::message(&format!(
                    "conclave: cannot remember that {} may run its programs: {e}",
                    args.scenario.display()
                ));
            }
            args.allow_exec || store.allows(&scenario)
        }
    };
    let runtime = match clock {
        ClockMode::Virtual => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .start_paused(true)
            .build(),
        ClockMode::Real => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build(),
    };
    let runtime = match runtime {
        Ok(rt) => rt,
        Err(e) => {
            output::message(&format!("conclave: cannot start the runtime: {e}"));
            return Exit::Internal;
        }
    };
    let exporter = match Exporter::start_or_say(args.otlp.as_ref()) {
        Ok(exporter) => exporter,
        Err(exit) => return exit,
    };
    // The link has its own thread and real-time runtime: this run's clock
    // may be virtual.
    let link = match &args.nats {
        Some(to) => {
            let warn: crate::nats::publish::Warn =
                Arc::new(|warning: String| output::message(&format!("conclave: {warning}")));
            match crate::nats::publish::EventLink::start(to, warn) {
                Ok(link) => Some(link),
                Err(e) => {
                    output::message(&format!("conclave: {e}"));
                    return Exit::BadInput;
                }
            }
        }
        None => None,
    };
    let options = LaunchOptions {
        run: 1,
        seed: args.seed,
        goal: args.goal,
        flags: args.flags,
        record: args.record,
        start_paused: false,
        clock: Some(clock),
        source: Some(args.scenario.display().to_string()),
        provider: args.provider,
        allow_exec,
        decide: args.decide,
        attended: false,
        cache: args.cache,
        observers: exporter.iter().map(Exporter::observer).collect(),
    };
    let exit = runtime.block_on(async {
        let hub = Hub::default();
        let launched = match &link {
            Some(link) => link.launch(scenario, &hub, options),
            None => engine::launch(scenario, &hub, options),
        };
        let handle = match launched {
            Ok(handle) => handle,
            Err(
                e
                @ (LaunchError::Flag(_) | LaunchError::Provider(_) | LaunchError::Unpriced { .. }),
            ) => {
                output::message(&format!("{}: {e}", args.scenario.display()));
                return Exit::BadInput;
            }
            Err(e @ (LaunchError::Recording(_) | LaunchError::Cache(_))) => {
                output::message(&format!("conclave: {e}"));
                return Exit::BadInput;
            }
            Err(
                e @ (LaunchError::Tools(_)
                | LaunchError::ExecNotAllowed(_)
                | LaunchError::VirtualClock),
            ) => {
                output::message(&e.to_string());
                return Exit::BadInput;
            }
        };
        let controller = handle.controller.clone();
        let mut signals = crate::signals::Signals::new().ok();
        let run = handle.end();
        tokio::pin!(run);
        // A signal cancels the run, which stops every program it started,
        // and the run's result so far is printed as usual.
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
        crate::provider::real::groups::kill_every_group();
        let exit = match ended {
            Ok(ended) => {
                let outcome = ended.outcome;
                output::json_text(outcome.result.text());
                if let Some(error) = &outcome.error {
                    output::message(&format!("conclave: {}: {error}", outcome.stop_reason));
                }
                if let Some(failed) = &ended.cache_failed {
                    output::message(&format!("conclave: {failed}"));
                }
                // The result stands; the recording the user asked for does not.
                if let Some(failed) = ended.recording_failed {
                    output::message(&format!("conclave: {failed}"));
                    return Exit::Internal;
                }
                match outcome.status {
                    RunStatus::Ok => Exit::Ok,
                    RunStatus::Stopped => Exit::Stopped,
                }
            }
            Err(e) => {
                output::message(&format!("conclave: {e}"));
                Exit::Internal
            }
        };
        signalled.map_or(exit, Exit::Signalled)
    });
    if let Some(link) = link {
        link.close(LINK_CLOSE);
    }
    // The result is out; the trace follows (on a signal too), and a
    // collector that is down changes neither the result nor the exit.
    if let Some(warning) = exporter.and_then(|e| e.finish()) {
        output::message(&warning);
    }
    exit
}

/// `conclave export`: the recording at `path` sent as the trace its run
/// would have sent live; exit 0 when sent, 1 when the collector refused
/// or could not be reached, 2 when there is nothing to send.
pub fn export(path: &Path, otlp: Option<OtlpConfig>) -> Exit {
    let Some(config) = otlp else {
        output::message(
            "conclave: export needs somewhere to send the trace: --otlp [URL] or OTEL_EXPORTER_OTLP_ENDPOINT",
        );
        return Exit::BadInput;
    };
    let exporter = match Exporter::start(&config) {
        Ok(exporter) => exporter,
        Err(e) => {
            output::message(&e.to_string());
            return Exit::BadInput;
        }
    };
    let observer = exporter.observer();
    let mut events = 0_u64;
    let read = crate::record::read_recording_each(path, |event| {
        events += 1;
        observer.accept(event);
    });
    let problems = match read {
        Ok(problems) => problems,
        Err(e) => {
            output::message(&e.to_string());
            return Exit::BadInput;
        }
    };
    for problem in &problems {
        output::message(&problem.to_string());
    }
    if events == 0 {
        output::message(&format!("{}: no events to send", path.display()));
        return Exit::BadInput;
    }
    match exporter.finish() {
        Some(warning) => {
            output::message(&warning);
            Exit::Internal
        }
        None => {
            output::message(&format!(
                "conclave: sent {} ({events} events) to {}",
                shown(path),
                crate::secrets::scrub(&config.endpoint)
            ));
            Exit::Ok
        }
    }
}

/// How many bytes of step lines `replay --headless` writes at once.
const STEP_LINES_BLOCK: usize = 64 * 1024;

/// `conclave replay --headless`: the recorded run's result on stdout (from
/// its finish event), the problems found reading it and a line per round
/// or step on stderr; the exit status says how the run ended.
pub fn replay(path: &Path) -> Exit {
    // One event at a time: a step's line as it is read, and only the last
    // event kept, so a recording of any length replays in little memory.
    let mut last: Option<Arc<Event>> = None;
    // The lines go out in blocks: a recording of 100,000 tasks has as many
    // lines, each of which would otherwise be a write of its own.
    let mut steps = String::new();
    let read = crate::record::read_recording_each(path, |event| {
        if let Some(line) = step_summary(&event.kind) {
            if !steps.is_empty() {
                steps.push('\n');
            }
            steps.push_str(&line);
            if steps.len() >= STEP_LINES_BLOCK {
                output::message(&steps);
                steps.clear();
            }
        }
        last = Some(event);
    });
    if !steps.is_empty() {
        output::message(&steps);
    }
    let problems = match read {
        Ok(problems) => problems,
        Err(e) => {
            output::message(&e.to_string());
            return Exit::BadInput;
        }
    };
    for problem in &problems {
        output::message(&problem.to_string());
    }
    match last.as_deref().map(|e| &e.kind) {
        Some(EventKind::RunFinished { status, result, .. }) => {
            output::json_text(result.text());
            match status {
                RunStatus::Ok => Exit::Ok,
                RunStatus::Stopped => Exit::Stopped,
            }
        }
        _ => {
            let seq = last.map_or(0, |e| e.seq);
            output::message(&format!(
                "{}: ends at seq {seq}, no finish event",
                path.display()
            ));
            Exit::Stopped
        }
    }
}

/// One line for an event that closes a round, a task, a turn or a
/// research step.
fn step_summary(kind: &EventKind) -> Option<String> {
    match kind {
        EventKind::RoundFinished { .. }
        | EventKind::TaskFinished { .. }
        | EventKind::TurnFinished { .. }
        | EventKind::ResearchStepFinished(_) => Some(crate::bus::describe::describe(kind)),
        _ => None,
    }
}

/// `conclave compare A B --headless`: the two recordings compared, as one
/// JSON document on stdout (see [`crate::compare::Comparison`]); the
/// problems found reading them on stderr. Exit 0 when compared, whether or
/// not the runs differ; 2 when a file cannot be compared.
pub fn compare(a: &Path, b: &Path) -> Exit {
    let (events_a, events_b) = match (compared_events(a), compared_events(b)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => {
            output::message(&e);
            return Exit::BadInput;
        }
    };
    let (label_a, label_b) = (shown(a), shown(b));
    let sides = crate::compare::Side::new(&label_a, &events_a)
        .and_then(|side_a| Ok((side_a, crate::compare::Side::new(&label_b, &events_b)?)));
    match sides {
        Ok((side_a, side_b)) => {
            output::document(&crate::compare::compare(side_a, side_b));
            Exit::Ok
        }
        Err(e) => {
            output::message(&e.to_string());
            Exit::BadInput
        }
    }
}

/// The events of the recording at `path`, its problems said on stderr;
/// the error names the file and the place when none can be compared.
fn compared_events(path: &Path) -> Result<Vec<Arc<Event>>, String> {
    let recording = crate::record::read_recording(path).map_err(|e| e.to_string())?;
    for problem in &recording.problems {
        output::message(&problem.to_string());
    }
    Ok(recording.events)
}

/// A path as the comparison names it.
fn shown(path: &Path) -> String {
    crate::sanitize::clean(&path.display().to_string()).into_owned()
}

/// `conclave validate`: check every file, print every error, and say
/// whether all were valid.
pub fn validate(files: &[PathBuf]) -> Exit {
    let mut all_valid = true;
    for file in files {
        match scenario::load(file) {
            Ok(_) => output::line(&format!("{}: ok", file.display())),
            Err(errors) => {
                all_valid = false;
                output::message(&errors.to_string());
            }
        }
    }
    if all_valid { Exit::Ok } else { Exit::BadInput }
}
