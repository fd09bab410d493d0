//! A launched run's recording: a watch recording (so `conclave replay`
//! and `conclave compare` read it as any watched run) holding the
//! program's spans, its steering decisions, its output lines kept, its
//! model calls through the run's endpoint and, last, the launch's whole
//! result. It takes the place of the run's journal (`journal.rs`), the
//! recording written as the run went.

use super::result::LaunchResult;
use super::run::Finished;
use crate::span::trace_hex;
use crate::watch::journal::replace_whole;
use crate::watch::record::{Line, write_line};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Where a launched run is recorded when no `--record` says: the
/// dashboard's runs folder, as `launch-<run id>.jsonl`; `None` without a
/// state folder.
pub fn default_folder() -> Option<PathBuf> {
    Some(crate::state_dir::state_dir()?.join("runs"))
}

/// Write `finished` with its `result` to `path` (its folder made when
/// missing, a file there already refused unless it is the run's own
/// journal, which the whole recording then replaces at once);
/// `result.recording` names the file.
pub fn write(path: &Path, finished: &Finished, result: &mut LaunchResult) -> std::io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    if finished.journaled && finished.recording.as_deref() == Some(path) {
        return replace_whole(path, |file| write_whole(file, finished, result, path));
    }
    // A recording is never written over, as any run's `--record`.
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)?;
    write_whole(file, finished, result, path)
}

/// The whole recording of `finished` into `file`, which is to be `path`.
fn write_whole(
    file: std::fs::File,
    finished: &Finished,
    result: &mut LaunchResult,
    path: &Path,
) -> std::io::Result<()> {
    let mut out = std::io::BufWriter::new(file);
    let launch = serde_json::to_value(&finished.launched).ok();
    write_line(
        &mut out,
        &Line::WatchStarted {
            trace_id: trace_hex(finished.id),
            joined: Vec::new(),
            conversation: finished.run.as_ref().and_then(|r| r.conversation.clone()),
            launch,
        },
    )?;
    for arrival in finished.run.iter().flat_map(|r| &r.arrivals) {
        write_line(
            &mut out,
            &Line::SpanArrived {
                at_ms: arrival.at_ms,
                kind: arrival.kind,
                under_placeholder: arrival.under_placeholder,
                span: arrival.span.clone(),
            },
        )?;
    }
    for timed in result.watch.steering.iter().flat_map(|s| &s.decisions) {
        let line = Line::Steered {
            at_ms: timed.at_ms,
            decision: timed.decision.clone(),
        };
        write_line(&mut out, &line)?;
    }
    for line in &finished.output.lines {
        write_line(&mut out, &Line::ProgramOutput { line: line.clone() })?;
    }
    for (at_ms, call) in finished.gateway.iter().flat_map(|g| &g.calls) {
        let line = Line::ModelCall {
            at_ms: *at_ms,
            call: call.clone(),
        };
        write_line(&mut out, &line)?;
    }
    for (at_ms, spent) in finished.gateway.iter().flat_map(|g| &g.refused) {
        let line = Line::ModelCallRefused {
            at_ms: *at_ms,
            run: finished.run_id.clone(),
            budget: spent.budget.clone(),
            message: spent.message.clone(),
        };
        write_line(&mut out, &line)?;
    }
    result.watch.recording = Some(path.display().to_string());
    let mut summary = result.document();
    if let Some(steering) = summary.get_mut("steering").and_then(|s| s.as_object_mut()) {
        // The decisions are lines of their own, as in any watch recording.
        steering.insert("decisions".into(), serde_json::Value::Array(Vec::new()));
    }
    write_line(&mut out, &Line::WatchFinished { summary })?;
    out.flush()
}
