//! A launched run's recording while its program goes: the file is made
//! when the run starts and each span, steering decision, model call and
//! output line is written to it as it comes, so that a Conclave killed
//! outright (SIGKILL, a crash, the machine gone) leaves a recording that
//! `conclave replay` reads as far as the run got. At the run's end the
//! whole recording (`recording::write`) takes the journal's place.

use super::gateway::GatewayCalls;
use super::output::{KEPT_LINES, OutputLine};
use crate::span::{TraceId, trace_hex};
use crate::watch::record::{Line, write_line};
use crate::watch::runs::Run;
use crate::watch::steer::Steering;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// Where a launched run is recorded, decided before its id is known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RecordAt {
    /// This file.
    File(PathBuf),
    /// `launch-<run id>.jsonl` in this folder.
    Folder(PathBuf),
}

impl RecordAt {
    /// The recording's path for run `run_id`.
    pub(crate) fn path(&self, run_id: &str) -> PathBuf {
        match self {
            RecordAt::File(path) => path.clone(),
            RecordAt::Folder(dir) => dir.join(format!("launch-{run_id}.jsonl")),
        }
    }
}

/// The recording of a run as far as it has gone: how much of each kind
/// of line is written. A write that fails ends the journal (the run goes
/// on; its end writes the whole recording again).
pub(super) struct Journal {
    out: Option<BufWriter<std::fs::File>>,
    trace: TraceId,
    run_id: String,
    spans: usize,
    decisions: usize,
    lines: usize,
    calls: usize,
    refused: usize,
}

impl Journal {
    /// Make the recording at `path` (its folder too; a file there already
    /// is refused, as any run's `--record`) and write its first line:
    /// the run (`run_id`, read as `trace`) and how it was `launched`.
    pub(super) fn open(
        path: &Path,
        (run_id, trace): (&str, TraceId),
        launched: Option<serde_json::Value>,
    ) -> std::io::Result<Journal> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)?;
        let mut journal = Journal {
            out: Some(BufWriter::new(file)),
            trace,
            run_id: run_id.to_string(),
            spans: 0,
            decisions: 0,
            lines: 0,
            calls: 0,
            refused: 0,
        };
        journal.write(&[Line::WatchStarted {
            trace_id: trace_hex(trace),
            joined: Vec::new(),
            conversation: None,
            launch: launched,
        }]);
        Ok(journal)
    }

    /// Write what came since the last time: the run's new spans, its
    /// steering decisions and the endpoint's calls.
    pub(super) fn catch_up(
        &mut self,
        run: Option<&Run>,
        steering: &Steering,
        gateway: Option<&GatewayCalls>,
    ) {
        let mut lines = Vec::new();
        for arrival in run
            .map_or(&[][..], |r| &r.arrivals[..])
            .iter()
            .skip(self.spans)
        {
            lines.push(Line::SpanArrived {
                at_ms: arrival.at_ms,
                kind: arrival.kind,
                under_placeholder: arrival.under_placeholder,
                span: arrival.span.clone(),
            });
            self.spans += 1;
        }
        for timed in steering.decisions(self.trace, self.decisions) {
            lines.push(Line::Steered {
                at_ms: timed.at_ms,
                decision: timed.decision,
            });
            self.decisions += 1;
        }
        if let Some(gateway) = gateway {
            for (at_ms, call) in gateway.calls.iter().skip(self.calls) {
                lines.push(Line::ModelCall {
                    at_ms: *at_ms,
                    call: call.clone(),
                });
                self.calls += 1;
            }
            for (at_ms, spent) in gateway.refused.iter().skip(self.refused) {
                lines.push(Line::ModelCallRefused {
                    at_ms: *at_ms,
                    run: self.run_id.clone(),
                    budget: spent.budget.clone(),
                    message: spent.message.clone(),
                });
                self.refused += 1;
            }
        }
        self.write(&lines);
    }

    /// Write an output line, while fewer than the lines a run keeps are
    /// written: the journal holds the output's first lines, the whole
    /// recording its last.
    pub(super) fn output(&mut self, line: &OutputLine) {
        if self.lines < KEPT_LINES {
            self.lines += 1;
            self.write(&[Line::ProgramOutput { line: line.clone() }]);
        }
    }

    /// Write `lines` and hand them to the file at once.
    fn write(&mut self, lines: &[Line]) {
        let Some(out) = self.out.as_mut() else {
            return;
        };
        if lines.is_empty() {
            return;
        }
        let written = lines
            .iter()
            .try_for_each(|line| write_line(out, line))
            .and_then(|()| out.flush());
        if written.is_err() {
            self.out = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::watch::output_line::Stream;

    fn line(n: usize) -> OutputLine {
        OutputLine {
            at_ms: n as u64,
            stream: Stream::Stdout,
            text: format!("line {n}"),
        }
    }

    #[test]
    fn the_journal_holds_the_outputs_first_lines_and_no_more() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.jsonl");
        let mut journal = Journal::open(&path, ("r1", 7), None).unwrap();
        for n in 0..KEPT_LINES + 100 {
            journal.output(&line(n));
        }
        let read = crate::watch::record::read_as_written(&path).unwrap();
        let texts: Vec<&str> = read.output.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(texts.len(), KEPT_LINES);
        assert_eq!(texts.first(), Some(&"line 0"));
        let last = format!("line {}", KEPT_LINES - 1);
        assert_eq!(texts.last(), Some(&last.as_str()));
        assert_eq!(read.trace_id, trace_hex(7));
    }

    /// A disk that fills up ends the journal: what was written stays, the
    /// run goes on with nothing more written and nothing panics.
    #[test]
    fn a_write_that_fails_ends_the_journal_and_the_run_goes_on() {
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full");
        let Ok(full) = full else {
            panic!("/dev/full cannot be opened for writing");
        };
        let mut journal = Journal {
            out: Some(BufWriter::new(full)),
            trace: 7,
            run_id: "r1".into(),
            spans: 0,
            decisions: 0,
            lines: 0,
            calls: 0,
            refused: 0,
        };
        journal.output(&line(0));
        assert!(journal.out.is_none(), "the failed write ended the journal");
        journal.output(&line(1));
        let steering = Steering::new(Default::default(), Default::default());
        journal.catch_up(None, &steering, None);
        assert_eq!(journal.lines, 2, "the run's lines are still counted");
    }
}
