//! The commands that spread runs: `conclave sweep` (on this machine's
//! cores, in the dashboard or on NATS workers) and `conclave worker`.

use crate::cli::{SweepCommand, WorkerCommand};
use crate::view_in_dashboard;
use conclave::exit::Exit;
use conclave::nats::jobs::WorkerOptions;
use conclave::output;
use conclave::sweep::{SweepArgs, SweepPlan};
use conclave::tui::TuiOptions;

/// `conclave sweep`: its runs on NATS workers, on this machine's cores,
/// or in the dashboard.
pub(crate) fn sweep(command: SweepCommand) -> Exit {
    let otlp = match command.otlp.config() {
        Ok(otlp) => otlp,
        Err(exit) => return exit,
    };
    if command.nats.nats.is_some()
        && let Some(refusal) = command.refused_on_nats(otlp.is_some())
    {
        output::message(refusal);
        return Exit::BadInput;
    }
    let (file, at) = match command.file() {
        Ok(file) => file,
        Err(message) => {
            output::message(&message);
            return Exit::BadInput;
        }
    };
    let plan = match SweepPlan::new(command.seeds, command.flags) {
        Ok(plan) => plan,
        Err(e) => {
            output::message(&format!("conclave: {e}"));
            return Exit::BadInput;
        }
    };
    let args = SweepArgs {
        scenario: file,
        at,
        plan,
        parallel: command.parallel,
        provider: command.model.choice(),
        allow_real: command.allow_real,
        allow_exec: command.exec.allow_exec,
        answer: command.answer.given(),
        otlp,
    };
    if let Some(url) = command.nats.nats {
        conclave::nats::jobs::sweep_headless(args, &url)
    } else if command.headless {
        conclave::sweep::headless(args)
    } else {
        view_in_dashboard(
            &command.look,
            TuiOptions {
                sweep: Some(args),
                ..TuiOptions::default()
            },
        )
    }
}

/// `conclave worker`: run sweep jobs from a NATS server until stopped.
pub(crate) fn worker(command: WorkerCommand) -> Exit {
    let otlp = match command.otlp.config() {
        Ok(otlp) => otlp,
        Err(exit) => return exit,
    };
    let Some(events) = command.nats.to() else {
        output::message(
            "conclave: worker needs --nats URL, the NATS server the jobs are on (e.g. --nats nats://127.0.0.1:4222)",
        );
        return Exit::BadInput;
    };
    conclave::nats::jobs::worker(WorkerOptions {
        url: events.url.clone(),
        events,
        otlp,
        parallel: command
            .parallel
            .unwrap_or_else(conclave::sweep::default_parallelism),
        ack_wait: command.ack_wait,
        allow_exec: command.exec.allow_exec,
    })
}
