//! `conclave sweep`: the checks every sweep passes before a run starts
//! (the plan against the scenario, the cost of a real model, the
//! scenario's programs), and the headless sweep that prints one document.
//! The dashboard's sweep starts from the same [`prepare`].

use super::SweepError;
use super::fork::SweepFork;
use super::job::JobSetup;
use super::local::{default_parallelism, run_local_with};
use super::plan::SweepPlan;
use super::size::{MAX_PARALLEL, max_runs};
use super::tally::Tally;
use crate::bus::GivenAnswer;
use crate::engine::{LaunchError, ProviderChoice};
use crate::exit::Exit;
use crate::output;
use crate::scenario::{self, Scenario};
use crate::telemetry::{Exporter, OtlpConfig};
use std::path::PathBuf;
use std::sync::Arc;

/// What `conclave sweep` was asked.
#[derive(Clone, Debug)]
pub struct SweepArgs {
    /// The scenario file; with `at`, the recording every run forks.
    pub scenario: PathBuf,
    /// `--from REC --at GATE`: every run is a fork of the recording
    /// `scenario` at this gate (its scenario is the recording's).
    pub at: Option<String>,
    pub plan: SweepPlan,
    /// Threads; all cores when not given.
    pub parallel: Option<usize>,
    pub provider: ProviderChoice,
    /// `--allow-real`: the runs may call a real model, which costs money.
    pub allow_real: bool,
    /// `--allow-exec`: the scenario's programs may run.
    pub allow_exec: bool,
    /// `--answer` (or `--decide`): every run's answer to the first
    /// question it asks a person that offers it.
    pub answer: Option<GivenAnswer>,
    /// `--otlp`: each run is sent as a trace.
    pub otlp: Option<OtlpConfig>,
}

/// A sweep ready to run: everything checked.
#[derive(Clone, Debug)]
pub struct Prepared {
    pub scenario: Arc<Scenario>,
    /// The scenario file as messages and recordings name it.
    pub source: String,
    pub plan: SweepPlan,
    pub setup: JobSetup,
    pub parallel: usize,
    /// Said after a refused program: what changed since the file was
    /// allowed, or what an allowance would cover.
    pub trust_note: Option<String>,
}

/// Load the scenario and check the sweep against it; the error is the
/// message to print before exiting 2.
pub fn prepare(args: SweepArgs) -> Result<Prepared, String> {
    // Counted first, from the arguments alone: a sweep past its cap is
    // refused before the scenario is read or anything is made.
    let cap = max_runs().map_err(|e| format!("conclave: {e}"))?;
    args.plan
        .within(cap)
        .map_err(|e| format!("conclave: {e}"))?;
    if let Some(n) = args.parallel.filter(|n| !(1..=MAX_PARALLEL).contains(n)) {
        return Err(format!(
            "conclave: --parallel {n}: expected a number of threads, 1 or more and at most {MAX_PARALLEL}"
        ));
    }
    let (source, scenario, fork) = load(&args)?;
    args.plan
        .check(&scenario, &source)
        .map_err(|e| e.to_string())?;
    if let Some(given) = &args.answer {
        crate::patterns::check_given(&scenario, given).map_err(|e| format!("{source}: {e}"))?;
    }
    let mut setup = JobSetup {
        provider: args.provider,
        allow_exec: args.allow_exec,
        answer: args.answer.map(|given| given.option),
        fork,
        ..JobSetup::default()
    };
    if setup.remote(&scenario) && !args.allow_real {
        return Err(format!(
            "{source}: its model is a real endpoint, and a sweep of {} runs would call it for each; give --allow-real to accept the cost, or sweep it on the simulator with --provider sim",
            args.plan.total()
        ));
    }
    // Without an allowance the first run refuses, naming the program, and
    // the sweep exits 2 having started nothing.
    let trust = crate::trust::decide(&scenario, args.allow_exec, &source);
    setup.allow_exec = trust.allow_exec;
    // Last, so that a sweep refused above has sent nothing anywhere.
    if let Some(config) = &args.otlp {
        setup.exporter = Some(Arc::new(
            Exporter::start(config, crate::patterns::trace_shapes()).map_err(|e| e.to_string())?,
        ));
    }
    Ok(Prepared {
        scenario,
        source,
        plan: args.plan,
        setup,
        parallel: args.parallel.unwrap_or_else(default_parallelism),
        trust_note: trust.refusal_note,
    })
}

/// A sweep's file as messages name it, its scenario, and its fork.
type Loaded = (String, Arc<Scenario>, Option<Arc<SweepFork>>);

/// The scenario the sweep runs, as messages name its file, and for a
/// sweep from a point the recording it forks (whose scenario it runs).
fn load(args: &SweepArgs) -> Result<Loaded, String> {
    if let Some(at) = &args.at {
        let fork = SweepFork::load(&args.scenario, at)?;
        return Ok((
            fork.source(),
            Arc::clone(fork.scenario()),
            Some(Arc::new(fork)),
        ));
    }
    let source = args.scenario.display().to_string();
    let scenario = Arc::new(scenario::load(&args.scenario).map_err(|e| e.to_string())?);
    Ok((source, scenario, None))
}

impl Prepared {
    /// The sweep's document: the tally's, with `"from"` (the recording,
    /// its run and the gate) when every run is a fork.
    pub fn document(&self, tally: &Tally) -> serde_json::Value {
        let mut document = tally.document();
        if let (Some(fork), Some(fields)) = (&self.setup.fork, document.as_object_mut()) {
            fields.insert("from".into(), fork.document());
        }
        document
    }
}

/// `conclave sweep --headless`: run every job, a progress bar on stderr
/// when it is a terminal, and print the document on stdout.
pub fn headless(args: SweepArgs) -> Exit {
    let sweep = match prepare(args) {
        Ok(sweep) => sweep,
        Err(message) => {
            output::message(&message);
            return Exit::BadInput;
        }
    };
    let mut tally = Tally::new(&sweep.plan);
    let bar = progress_bar(tally.total());
    let never = std::sync::atomic::AtomicBool::new(false);
    let ran = run_local_with(
        &sweep.scenario,
        Some(&sweep.source),
        sweep.plan.jobs(),
        sweep.parallel,
        &sweep.setup,
        &never,
        |result| {
            tally.add(result);
            bar.inc(1);
        },
    );
    bar.finish_and_clear();
    // Every run's trace is sent before the document is printed; a
    // collector that is down changes neither the document nor the exit.
    if let Some(warning) = sweep.setup.exporter.as_ref().and_then(|e| e.finish()) {
        output::message(&warning);
    }
    match ran {
        Ok(note) => {
            if let Some(note) = note {
                output::message(&note);
            }
            output::document(&sweep.document(&tally));
            Exit::Ok
        }
        // The user's to fix: the message names the file; else Conclave's.
        Err(error) if error.is_bad_input() => {
            output::message(&error.to_string());
            if let SweepError::Launch {
                error: LaunchError::ExecNotAllowed(_),
                ..
            } = &error
                && let Some(note) = &sweep.trust_note
            {
                output::message(note);
            }
            Exit::BadInput
        }
        Err(error) => {
            output::message(&format!("conclave: {error}"));
            Exit::Internal
        }
    }
}

/// A bar on stderr, drawn only when stderr is a terminal.
fn progress_bar(total: usize) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(total as u64),
        indicatif::ProgressDrawTarget::stderr(),
    );
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{bar:40} {pos}/{len} runs  {elapsed_precise} (eta {eta})",
    ) {
        bar.set_style(style);
    }
    bar
}
