//! `conclave fork REC --at "model call N"` of a launched run: calls before
//! N served, call N from an edited answer or live, the rest live. All is
//! checked, and the program allowed (`--allow-exec`), before it starts.

use super::cassette::LaunchCassette;
use super::headless::{HeadlessLaunch, Recording, headless};
use super::launched_as::{ForkedFrom, LaunchedAs};
use super::run::LaunchSettings;
use super::scenario::LoadedProgram;
use crate::exit::Exit;
use crate::gateway::endpoint::{EditedAnswer, EndpointCall, ForkPoint};
use crate::output;
use crate::scenario::PriceTable;
use crate::watch::record::WatchRecording;
use std::path::PathBuf;

/// What `conclave fork` of a launched run is given.
#[derive(Clone, Debug, Default)]
pub struct LaunchFork {
    pub recording: PathBuf,
    /// `--at`: `model call N`, `call N` or `call:N`.
    pub at: String,
    /// `--answer FILE`: call N's answer; without it call N goes live.
    pub answer: Option<PathBuf>,
    /// `--upstream URL`: where live calls go, over the recorded upstream.
    pub upstream: Option<String>,
    /// `--upstream-key-env VAR`, over the recorded `key_env`.
    pub upstream_key_env: Option<String>,
    /// `--flag`, over the recorded run's flags.
    pub flags: Vec<(String, bool)>,
    pub seed: Option<u64>,
    pub prices: Option<PriceTable>,
    pub record: Recording,
    /// `--allow-exec`: the program the recording names may run.
    pub allow_exec: bool,
}

/// The call number `--at` names: `model call N`, `call N` or `call:N`
/// (any case), N from 1.
pub fn call_at(at: &str) -> Result<u64, String> {
    let lower = at.trim().to_ascii_lowercase();
    let rest = lower
        .strip_prefix("model")
        .map_or(lower.as_str(), str::trim_start);
    let number = rest
        .strip_prefix("call")
        .map(|n| n.trim_start_matches([':', ' ', '#']).trim());
    let expected =
        "expected `model call N` (or `call N`, `call:N`), N a model call's number from 1";
    let n: u64 = number
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| format!("--at {:?}: {expected}", crate::sanitize::clean(at)))?;
    if n == 0 {
        return Err(format!(
            "--at {:?}: the calls are numbered from 1; {expected}",
            crate::sanitize::clean(at)
        ));
    }
    Ok(n)
}

/// Fork, wait for the end, print the result as `run --headless` does.
pub fn fork_headless(fork: LaunchFork) -> Exit {
    match planned(&fork) {
        Ok(launch) => headless(launch),
        Err(words) => {
            output::message(&format!("conclave fork: {words}"));
            Exit::BadInput
        }
    }
}

/// The launch the fork is, or why there is none: every input checked,
/// the program allowed.
fn planned(fork: &LaunchFork) -> Result<HeadlessLaunch, String> {
    let ForkPlan {
        program,
        settings,
        launched,
    } = plan(fork)?;
    allowed(fork, &launched)?;
    let file = fork.recording.display().to_string();
    for name in unset_withheld(&launched) {
        output::message(&format!(
            "conclave fork: {file} keeps env.{name} by name only (it may be a secret); the program gets it from your environment, where it is not set"
        ));
    }
    Ok(HeadlessLaunch {
        program,
        settings,
        recording: fork.record.clone(),
    })
}

/// The `env` variables `launched` keeps by name only (they may be
/// secrets) that Conclave's environment does not set: the fork's program
/// runs without them.
pub(crate) fn unset_withheld(launched: &LaunchedAs) -> Vec<String> {
    launched
        .env_withheld
        .iter()
        .filter(|name| std::env::var_os(name).is_none())
        .cloned()
        .collect()
}

/// A fork planned: the program to start again and the settings that
/// serve its calls before N, with the launch kept (whose command the
/// caller shows or checks: the trust is the caller's to decide).
#[derive(Debug)]
pub(crate) struct ForkPlan {
    pub(crate) program: LoadedProgram,
    pub(crate) settings: LaunchSettings,
    pub(crate) launched: LaunchedAs,
}

/// The program and settings that fork `fork.recording` at `fork.at`,
/// every input checked; nothing is allowed to run here.
pub(crate) fn plan(fork: &LaunchFork) -> Result<ForkPlan, String> {
    let file = fork.recording.display().to_string();
    let recording = crate::watch::record::read(&fork.recording).map_err(|e| e.to_string())?;
    let Forkable {
        launched,
        mut program,
        calls,
    } = forkable(&file, &recording, fork.upstream.as_deref())?;
    let at = call_at(&fork.at).map_err(|e| format!("{file}: {e}"))?;
    let count = calls.len() as u64;
    if at > count {
        return Err(format!(
            "{file}: --at model call {at}: the recording holds {} (1 to {count})",
            crate::words::plural(count, "model call")
        ));
    }
    let api = calls
        .iter()
        .find(|c| c.call == Some(at))
        .map(|c| c.api.clone())
        .unwrap_or_default();
    let edited = match &fork.answer {
        Some(path) => Some(EditedAnswer::read(path, at, &api)?),
        None => None,
    };
    if let (Some(model), Some(key_env)) = (program.scenario.model.as_mut(), &fork.upstream_key_env)
    {
        model.key_env = Some(key_env.clone());
    }
    let forked_from = ForkedFrom {
        file: file.clone(),
        run: parent_run(&recording),
        at: format!("model call {at}"),
        answer: fork.answer.as_ref().map(|p| p.display().to_string()),
    };
    let point = ForkPoint { at, edited };
    let cassette = LaunchCassette::forking(&file, calls, point)?;
    let settings = LaunchSettings {
        flags: fork.flags.clone(),
        seed: fork.seed,
        prices: fork.prices.clone(),
        cassette: Some(cassette),
        forked_from: Some(forked_from),
        ..LaunchSettings::default()
    };
    Ok(ForkPlan {
        program,
        settings,
        launched,
    })
}

/// A recording a fork can start again: its launch, the program (its
/// upstream `upstream` when given), and its model calls.
pub(crate) struct Forkable {
    pub(crate) launched: LaunchedAs,
    pub(crate) program: LoadedProgram,
    pub(crate) calls: Vec<EndpointCall>,
}

/// Whether `recording` (read from `file`) can be forked at all, or why
/// not: a launch kept, with a `model` and an upstream, and a model call.
pub(crate) fn forkable(
    file: &str,
    recording: &WatchRecording,
    upstream: Option<&str>,
) -> Result<Forkable, String> {
    let launched = launched_of(file, recording)?;
    let mut program = launched.program(file);
    let Some(model) = program.scenario.model.as_mut() else {
        return Err(format!(
            "{file}: the launched program's scenario names no `model`: only calls through its run's endpoint can be forked"
        ));
    };
    if let Some(upstream) = upstream {
        model.upstream = upstream.to_string();
    }
    if model.upstream.is_empty() {
        return Err(format!(
            "{file}: the recorded run had no upstream (it was served from a cassette): name one with --upstream URL for the calls made live"
        ));
    }
    let calls: Vec<EndpointCall> = recording
        .model_calls
        .iter()
        .map(|(_, c)| c.clone())
        .collect();
    if calls.is_empty() {
        return Err(format!(
            "{file}: the recording holds no model call to fork at: the run made none through its endpoint"
        ));
    }
    Ok(Forkable {
        launched,
        program,
        calls,
    })
}

/// The launch `recording` keeps, or why a fork cannot start it again.
fn launched_of(file: &str, recording: &WatchRecording) -> Result<LaunchedAs, String> {
    let Some(launch) = &recording.launch else {
        return Err(format!(
            "{file}: holds no program to start again (watch_started has no `launch`): it was recorded before Conclave kept a launched program's scenario, or by `conclave watch`; launch the program again with --record to fork its run"
        ));
    };
    serde_json::from_value(launch.clone()).map_err(|e| {
        format!("{file}:1: watch_started.launch: expected the launched program's scenario as Conclave records it ({e})")
    })
}

/// The parent's run id, as its result or its first line names it.
fn parent_run(recording: &WatchRecording) -> String {
    recording
        .summary
        .as_ref()
        .and_then(|s| s.get("run_id"))
        .and_then(|r| r.as_str())
        .map_or_else(|| recording.trace_id.clone(), str::to_string)
}

/// Whether the user allowed the recording's program to run: a recording
/// may come from anyone, so its program runs only with `--allow-exec`,
/// for this fork alone (there is no file whose content an allowance
/// could be remembered for).
fn allowed(fork: &LaunchFork, launched: &LaunchedAs) -> Result<(), String> {
    if fork.allow_exec {
        return Ok(());
    }
    let s = &launched.scenario;
    let command = crate::secrets::scrub(&s.command.join(" ")).into_owned();
    let cwd = s.cwd.as_deref().unwrap_or(".");
    Err(format!(
        "{} would run the program `{}` in {} (the launch it keeps); a recording's program runs only when you allow it: fork it with --allow-exec (for this fork alone)",
        crate::sanitize::clean(&fork.recording.display().to_string()),
        crate::sanitize::clean(&command),
        crate::sanitize::clean(cwd)
    ))
}

/// `conclave replay REC --answer N`: call N's answer, whole, as the file
/// a fork takes (`--answer FILE`), on stdout.
pub fn print_answer(path: &std::path::Path, at: u64) -> Exit {
    let file = path.display().to_string();
    if !crate::watch::record::is_watch_recording(path) {
        output::message(&format!(
            "conclave replay: {file}: --answer {at} prints a model call of a launched program's recording (its first line `watch_started`); this is not one"
        ));
        return Exit::BadInput;
    }
    let found = crate::watch::record::read(path)
        .map_err(|e| e.to_string())
        .and_then(|recording| {
            let count = recording.model_calls.len() as u64;
            let call = recording
                .model_calls
                .iter()
                .map(|(_, c)| c)
                .find(|c| c.call == Some(at))
                .ok_or_else(|| {
                    format!(
                        "{file}: --answer {at}: the recording holds {} (1 to {count})",
                        crate::words::plural(count, "model call")
                    )
                })?;
            crate::gateway::endpoint::whole_of(call)
                .map_err(|why| format!("{file}: model call {at}: {why}"))
        });
    match found {
        Ok(answer) => {
            output::document(&answer);
            Exit::Ok
        }
        Err(words) => {
            output::message(&format!("conclave replay: {words}"));
            Exit::BadInput
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_is_named_in_any_of_its_spellings_and_nothing_else_is() {
        for at in [
            "model call 2",
            "Model Call 2",
            "call 2",
            "call:2",
            " call #2 ",
        ] {
            assert_eq!(call_at(at), Ok(2), "{at}");
        }
        assert!(
            call_at("model call 0")
                .unwrap_err()
                .contains("numbered from 1")
        );
        assert!(
            call_at("round 2")
                .unwrap_err()
                .contains("expected `model call N`")
        );
        assert!(call_at("call two").is_err());
    }
}
