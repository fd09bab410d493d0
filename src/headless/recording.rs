//! The headless commands that read a recording rather than run a
//! scenario: `replay --headless` (its result and a line per step),
//! `compare --headless` and `export` (sent to an OTLP collector).

use crate::bus::describe;
use crate::bus::{Event, EventKind, RunStatus};
use crate::exit::Exit;
use crate::output;
use crate::telemetry::{Exporter, OtlpConfig};
use std::path::Path;
use std::sync::Arc;

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
    let exporter = match Exporter::start(&config, crate::patterns::trace_shapes()) {
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
    let warning = exporter.finish();
    for note in exporter.notes() {
        output::message(&note);
    }
    match warning {
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
    // Whose questions the events raise.
    let mut pattern = None;
    let read = crate::record::read_recording_each(path, |event| {
        let line = match &event.kind {
            EventKind::RunStarted(started) => {
                pattern = Some(started.pattern);
                started.forked_from.as_ref().map(ToString::to_string)
            }
            kind => step_summary(pattern, kind),
        };
        if let Some(line) = line {
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

/// One line for an event that closes one of the pattern's steps, and the
/// lines of a question asked of a person and of its answer.
fn step_summary(pattern: Option<crate::scenario::PatternKind>, kind: &EventKind) -> Option<String> {
    if let Some(asked) = pattern.and_then(|p| crate::patterns::question_of(p, kind)) {
        return Some(asked.prompt);
    }
    match kind {
        EventKind::HumanDecided { .. } => super::question::answer(kind),
        _ if describe::closes_step(kind) => Some(describe::describe(kind)),
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
            output::document(&crate::compare::compare(
                side_a,
                side_b,
                crate::patterns::compare_rules,
            ));
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
