//! Runs from a recording: `--cassette REC` read for `run`, and `conclave
//! fork`, printed (`--headless`) or launched at once in the dashboard.

use crate::cli::ForkCommand;
use conclave::exit::Exit;
use conclave::headless;
use conclave::output;
use conclave::tui::{self, TuiOptions, app::Overrides};
use std::path::PathBuf;

/// `--cassette REC` of `run`: the recording's calls, served; what is
/// wrong with the recording, said (exit 2).
pub(crate) fn cassette_of(
    path: Option<PathBuf>,
    miss: Option<conclave::cassette::MissPolicy>,
) -> Result<Option<conclave::engine::CassettePlan>, Exit> {
    let Some(path) = path else { return Ok(None) };
    match conclave::cassette::Cassette::load(&path) {
        Ok((cassette, problems)) => {
            for problem in problems {
                output::message(&problem);
            }
            Ok(Some(conclave::engine::CassettePlan {
                cassette: std::sync::Arc::new(cassette.with_miss(miss.unwrap_or_default())),
                fork: None,
            }))
        }
        Err(e) => {
            output::message(&e.to_string());
            Err(Exit::BadInput)
        }
    }
}

/// `conclave fork`: a recorded run again from one of its gates, printed
/// (`--headless`) or in the dashboard, launched at once and recorded like
/// any run there.
pub(crate) fn fork(command: ForkCommand) -> Exit {
    let otlp = match command.otlp.config() {
        Ok(otlp) => otlp,
        Err(exit) => return exit,
    };
    let args = headless::HeadlessFork {
        recording: command.recording,
        at: command.at,
        flags: command.flags,
        goal: command.goal,
        seed: command.seed,
        edits: command.outputs,
        answer: command.answer.given(),
        provider: command.model.choice(),
        record: command.record,
        allow_exec: command.exec.allow_exec,
        otlp,
        clock: command.clock.map(Into::into),
    };
    if command.headless {
        return headless::fork(args);
    }
    let theme = match command.screen.look.theme() {
        Ok(theme) => theme,
        Err(exit) => return exit,
    };
    tui::run(TuiOptions {
        fork: Some(args.request()),
        overrides: Overrides {
            record: args.record,
            answer: args.answer,
            ..Overrides::default()
        },
        record: !command.screen.no_record,
        start_paused: command.screen.paused,
        provider: args.provider,
        theme,
        allow_exec: args.allow_exec,
        otlp: args.otlp,
        ..TuiOptions::default()
    })
}
