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
    if conclave::watch::record::is_watch_recording(&command.recording) {
        return launch_fork(command);
    }
    if command.live || command.upstream.is_some() || command.upstream_key_env.is_some() {
        output::message(&format!(
            "conclave fork: --live, --upstream and --upstream-key-env fork a launched program's run at a model call; {} is a recording of one of Conclave's own runs",
            command.recording.display()
        ));
        return Exit::BadInput;
    }
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

/// `conclave fork` of a launched program's recording: at a model call,
/// with the options that fork one; any other refused by name (exit 2).
fn launch_fork(command: ForkCommand) -> Exit {
    let (answer, decide) = command.answer.as_written();
    let model = &command.model;
    let other = [
        ("--goal", command.goal.is_some()),
        ("--decide", decide),
        ("--output", !command.outputs.is_empty()),
        ("--provider", model.provider.is_some()),
        ("--model", model.model.is_some()),
        ("--base-url", model.base_url.is_some()),
        ("--clock", command.clock.is_some()),
    ];
    if let Some((flag, _)) = other.iter().find(|(_, given)| *given) {
        output::message(&format!(
            "conclave fork: {flag}: {} is a launched program's recording, whose fork takes --at \"model call N\", --answer FILE or --live, --upstream, --upstream-key-env, --flag, --seed, --pricing, --record and --allow-exec",
            command.recording.display()
        ));
        return Exit::BadInput;
    }
    if !command.headless {
        output::message(&format!(
            "conclave fork: {} records another framework's run: a launched program's run is forked at a model call with --headless (the dashboard does not fork one yet), and a run `conclave watch` recorded is not forked",
            command.recording.display()
        ));
        return Exit::BadInput;
    }
    let record = crate::cli::launch::recording(command.record, command.screen.no_record);
    conclave::launch::fork::fork_headless(conclave::launch::fork::LaunchFork {
        recording: command.recording,
        at: command.at,
        answer: answer.map(PathBuf::from),
        upstream: command.upstream,
        upstream_key_env: command.upstream_key_env,
        flags: command.flags,
        seed: command.seed,
        prices: command.model.pricing,
        record,
        allow_exec: command.exec.allow_exec,
    })
}
