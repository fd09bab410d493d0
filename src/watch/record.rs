//! Watched runs as recordings: one JSONL file per run, lossless. The
//! first line names the run (`{"type":"watch_started", ...}`), then one
//! line per kept span in arrival order (`{"type":"span_arrived",
//! "at_ms", "kind", "under_placeholder", "span"}`: the derived reading
//! beside the compact raw span, ids in hex as OTLP's JSON writes them),
//! and last the run's summary (`{"type":"watch_finished", "summary"}`).
//! Reading one back rebuilds the run from its spans alone, so `conclave
//! replay` and `conclave compare` work on it (see `replay.rs`).

use super::output_line::OutputLine;
use super::runs::{Arrival, Run};
use super::steer::Decision;
use super::summary::WatchSummary;
use super::vocab::Kind;
use crate::span::{Span, TraceId, trace_hex};
use serde::{Deserialize, Serialize};
use std::io::{BufRead, BufReader, Read, Seek, Write};
use std::path::{Path, PathBuf};

/// The first line's `type`, by which a watch recording is told from a
/// run's.
pub(crate) const STARTED: &str = "watch_started";

/// One line of a watch recording.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum Line {
    WatchStarted {
        trace_id: String,
        /// Traces an earlier version joined into the run (by conversation);
        /// read, never written: one trace is one run.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        joined: Vec<String>,
        /// The conversation (`gen_ai.conversation.id`, `session.id`) the
        /// run belongs to, if its spans name one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        conversation: Option<String>,
        /// A launched run's program scenario as it ran, which a fork
        /// starts again (docs/fork_and_cassettes.md): the launch's own
        /// record, read by the launch, kept here as it was written.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        launch: Option<serde_json::Value>,
    },
    SpanArrived {
        at_ms: u64,
        kind: Kind,
        #[serde(default)]
        under_placeholder: bool,
        span: Span,
    },
    /// A steering decision (docs/steer.md), `at_ms` after the hook's
    /// first call.
    Steered {
        at_ms: u64,
        decision: Decision,
    },
    /// A launched program's output line, `at_ms` after its launch
    /// (docs/launch.md).
    ProgramOutput {
        #[serde(flatten)]
        line: OutputLine,
    },
    /// A launched program's model call through Conclave's endpoint,
    /// `at_ms` after its launch (docs/gateway.md): never a key or a body.
    ModelCall {
        at_ms: u64,
        #[serde(flatten)]
        call: crate::gateway::endpoint::EndpointCall,
    },
    /// A call the endpoint refused because the run was past a budget.
    ModelCallRefused {
        at_ms: u64,
        run: String,
        budget: String,
        message: String,
    },
    WatchFinished {
        summary: serde_json::Value,
    },
}

/// Write `run` with its `summary` as `DIR/watch-<trace id>.jsonl`; the
/// path written. A recording is never written over: a second run of the
/// same trace id gets `-2`, `-3` …. (A run recorded as it went takes its
/// journal's place instead: `Journals::write`.)
pub(crate) fn write(dir: &Path, run: &Run, summary: &WatchSummary) -> std::io::Result<PathBuf> {
    let (path, file) = fresh(dir, run.trace_id)?;
    write_whole(file, run, summary, (&path, None))?;
    Ok(path)
}

/// A new file for run `trace`'s recording in `dir` (made when missing):
/// `watch-<trace id>.jsonl`, or `-2`, `-3` … when that is taken.
pub(crate) fn fresh(dir: &Path, trace: TraceId) -> std::io::Result<(PathBuf, std::fs::File)> {
    std::fs::create_dir_all(dir)?;
    let stem = format!("watch-{}", trace_hex(trace));
    let mut n = 1;
    loop {
        let name = if n == 1 {
            format!("{stem}.jsonl")
        } else {
            format!("{stem}-{n}.jsonl")
        };
        let path = dir.join(name);
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(file) => return Ok((path, file)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 10_000 => n += 1,
            Err(e) => return Err(e),
        }
    }
}

/// The whole recording of `run` with its `summary` into `file`, which is
/// to be `path`; its span lines copied from the file `spans` names from
/// the offset it gives (the run's journal, written the same way).
pub(crate) fn write_whole(
    file: std::fs::File,
    run: &Run,
    summary: &WatchSummary,
    (path, spans): (&Path, Option<(&Path, u64)>),
) -> std::io::Result<()> {
    let mut out = std::io::BufWriter::new(file);
    let first = Line::WatchStarted {
        trace_id: trace_hex(run.trace_id),
        joined: Vec::new(),
        conversation: run.conversation.clone(),
        launch: None,
    };
    write_line(&mut out, &first)?;
    if let Some((journal, at)) = spans {
        let mut lines = std::fs::File::open(journal)?;
        lines.seek(std::io::SeekFrom::Start(at))?;
        std::io::copy(&mut lines, &mut out)?;
    }
    let written = if spans.is_some() {
        &[][..]
    } else {
        &run.arrivals[..]
    };
    for Arrival {
        at_ms,
        span,
        kind,
        under_placeholder,
    } in written
    {
        let line = Line::SpanArrived {
            at_ms: *at_ms,
            kind: *kind,
            under_placeholder: *under_placeholder,
            span: span.clone(),
        };
        write_line(&mut out, &line)?;
    }
    let mut summary = summary.clone();
    if let Some(steering) = &mut summary.steering {
        // The decisions are lines of their own; the summary keeps the rest.
        for timed in std::mem::take(&mut steering.decisions) {
            let line = Line::Steered {
                at_ms: timed.at_ms,
                decision: timed.decision,
            };
            write_line(&mut out, &line)?;
        }
    }
    summary.recording = Some(path.display().to_string());
    let summary = serde_json::to_value(&summary).map_err(std::io::Error::other)?;
    write_line(&mut out, &Line::WatchFinished { summary })?;
    out.flush()
}

pub(crate) fn write_line(out: &mut impl Write, line: &Line) -> std::io::Result<()> {
    serde_json::to_writer(&mut *out, line).map_err(std::io::Error::other)?;
    out.write_all(b"\n")
}

/// Whether `path` holds a watch recording: its first line is a
/// `watch_started` line. Any failure to read says no, and so does
/// anything but a regular file (opening a FIFO would wait for a writer;
/// the ordinary reader then refuses it by name).
pub fn is_watch_recording(path: &Path) -> bool {
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return false;
    }
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    let mut first = Vec::new();
    let mut reader = BufReader::new(file).take(64 * 1024);
    if reader.read_until(b'\n', &mut first).is_err() {
        return false;
    }
    serde_json::from_slice::<serde_json::Value>(&first)
        .ok()
        .and_then(|v| v.get("type").and_then(|t| t.as_str()).map(|t| t == STARTED))
        .unwrap_or(false)
}

/// A watch recording read back.
#[derive(Clone, Debug)]
pub struct WatchRecording {
    pub(crate) trace_id: String,
    /// The spans, in arrival order, with their arrival times.
    pub(crate) spans: Vec<(u64, Span)>,
    /// Each span's kind and whether it hung under a placeholder, as
    /// recorded, in the same order.
    pub(crate) read_as: Vec<(Kind, bool)>,
    /// The summary written at the end, if the file got that far.
    pub(crate) summary: Option<serde_json::Value>,
    /// The steering decisions, in order, each ms after the hook's first call.
    pub(crate) steered: Vec<(u64, Decision)>,
    /// A launched program's output lines kept, in order.
    pub(crate) output: Vec<OutputLine>,
    /// A launched program's model calls through the endpoint, in order,
    /// each ms after the launch.
    pub(crate) model_calls: Vec<(u64, crate::gateway::endpoint::EndpointCall)>,
    /// Calls the endpoint refused for a budget.
    pub(crate) refused_calls: u64,
    /// A launched run's program scenario as it ran (`launch` of its
    /// first line), as written.
    pub(crate) launch: Option<serde_json::Value>,
}

impl WatchRecording {
    /// Why the run ended before its top span came, as its summary says;
    /// `None` for a run that ended whole (or a file cut before its end).
    pub(crate) fn incomplete(&self) -> Option<super::runs::Incomplete> {
        let why = self.summary.as_ref()?.get("incomplete")?;
        serde_json::from_value(why.clone()).ok()
    }
}

/// Why a watch recording could not be read: the file and the line.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ReadError {
    #[error("{path}: cannot read: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}:{line}: expected a watch recording's line ({why})")]
    Line {
        path: String,
        line: usize,
        why: String,
    },
}

/// Read the watch recording at `path`, every line of it whole: what a
/// cassette or a fork serves calls from.
pub(crate) fn read(path: &Path) -> Result<WatchRecording, ReadError> {
    read_lines(path, CutEnd::Refused)
}

/// Read the watch recording at `path` as far as it was written: a last
/// line cut while it was written (a launched run's journal when Conclave
/// was killed) is left out. What a replay and a comparison read.
pub(crate) fn read_as_written(path: &Path) -> Result<WatchRecording, ReadError> {
    read_lines(path, CutEnd::LeftOut)
}

/// What a last line cut short is to a reader.
#[derive(Clone, Copy, PartialEq, Eq)]
enum CutEnd {
    Refused,
    LeftOut,
}

fn read_lines(path: &Path, cut_end: CutEnd) -> Result<WatchRecording, ReadError> {
    let shown = path.display().to_string();
    let io = |source| ReadError::Io {
        path: shown.clone(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let mut rec = WatchRecording {
        trace_id: String::new(),
        spans: Vec::new(),
        read_as: Vec::new(),
        summary: None,
        steered: Vec::new(),
        output: Vec::new(),
        model_calls: Vec::new(),
        refused_calls: 0,
        launch: None,
    };
    let mut reader = BufReader::new(file);
    let mut buf = Vec::new();
    let mut no = 0;
    loop {
        buf.clear();
        let n = (&mut reader)
            .take(crate::record::MAX_LINE as u64)
            .read_until(b'\n', &mut buf)
            .map_err(io)?;
        if n == 0 {
            break;
        }
        no += 1;
        if buf.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let line: Line = match serde_json::from_slice(&buf) {
            Ok(line) => line,
            // A last line without its end: the file was cut while it was
            // written (a launched run's journal when Conclave was killed).
            Err(e) if cut_end == CutEnd::LeftOut && e.is_eof() && buf.last() != Some(&b'\n') => {
                break;
            }
            Err(e) => {
                return Err(ReadError::Line {
                    path: shown,
                    line: no,
                    why: e.to_string(),
                });
            }
        };
        match line {
            Line::WatchStarted {
                trace_id, launch, ..
            } => {
                rec.trace_id = trace_id;
                rec.launch = launch;
            }
            Line::SpanArrived {
                at_ms,
                span,
                kind,
                under_placeholder,
            } => {
                rec.spans.push((at_ms, span));
                rec.read_as.push((kind, under_placeholder));
            }
            Line::Steered { at_ms, decision } => rec.steered.push((at_ms, decision)),
            Line::ProgramOutput { line } => rec.output.push(line),
            Line::ModelCall { at_ms, call } => rec.model_calls.push((at_ms, call)),
            Line::ModelCallRefused { .. } => rec.refused_calls += 1,
            Line::WatchFinished { summary } => rec.summary = Some(summary),
        }
    }
    if no == 0 || rec.trace_id.is_empty() {
        return Err(ReadError::Line {
            path: shown,
            line: 1,
            why: format!("the first line must be a {STARTED:?} line"),
        });
    }
    Ok(rec)
}

#[cfg(test)]
mod tests {
    use super::{read, read_as_written};

    const STARTED: &str =
        r#"{"type":"watch_started","trace_id":"0af7651916cd43dd8448eb211c80319c"}"#;
    const OUTPUT: &str = r#"{"type":"program_output","at_ms":5,"stream":"stdout","text":"ready"}"#;

    #[test]
    fn a_file_cut_in_its_last_line_replays_up_to_that_line_and_serves_no_call() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cut.jsonl");
        let cut = &OUTPUT[..30];
        std::fs::write(&path, format!("{STARTED}\n{OUTPUT}\n{cut}")).unwrap();
        let error = read(&path).unwrap_err().to_string();
        assert!(
            error.contains("cut.jsonl:3: expected"),
            "a cassette's reading: {error}"
        );
        let back = read_as_written(&path).unwrap();
        assert_eq!(back.output.len(), 1);
        assert_eq!(back.output[0].text, "ready");
        assert!(back.summary.is_none());
        // A broken line that is not the file's cut end is still refused,
        // at its place.
        for text in [
            format!("{STARTED}\n{cut}\n{OUTPUT}\n"),
            format!("{STARTED}\n{cut}\n"),
            format!("{STARTED}\n{{\"type\":\"program_output\"}}"),
        ] {
            std::fs::write(&path, &text).unwrap();
            let error = read_as_written(&path).unwrap_err().to_string();
            assert!(error.contains("cut.jsonl:2: expected"), "{error}");
        }
    }
}
