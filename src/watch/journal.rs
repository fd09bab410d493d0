//! A recording written as its run goes: the file is made when the run
//! starts and each span and steering decision is handed to it as it
//! comes, so that a Conclave killed outright (SIGKILL, a crash, the
//! machine gone) leaves a recording that `conclave replay` reads as far
//! as the run got. At the run's end the whole recording takes its place
//! ([`replace_whole`]).

use super::output_line::OutputLine;
use super::record::{Line, write_line};
use super::run::Run;
use super::steer::Steering;
use crate::span::{TraceId, trace_hex};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The most output lines a journal holds: the first ones (a launched
/// run's whole recording keeps the last ones).
const OUTPUT_LINES: usize = super::output_line::KEPT_LINES;

/// The recording of a run as far as it has gone: how much of each kind
/// of line is written. A write that fails ends the journal (the run goes
/// on; its end writes the whole recording again).
#[derive(Debug)]
pub(crate) struct Journal {
    out: Option<std::fs::File>,
    trace: TraceId,
    spans: usize,
    decisions: usize,
    lines: usize,
    /// The bytes of the first line.
    head: u64,
    /// Whether every line after the first is a span's arrival.
    spans_only: bool,
}

impl Journal {
    /// Make the recording at `path` (its folder too; a file there already
    /// is refused, as any run's `--record`) for the run read as `trace`,
    /// and write its first line with how it was `launched`.
    pub(crate) fn create(
        path: &Path,
        trace: TraceId,
        launched: Option<serde_json::Value>,
    ) -> std::io::Result<Journal> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)?;
        Ok(Journal::over(file, trace, launched))
    }

    /// The journal of run `trace` in `file`, just made for it: its first
    /// line written. The conversation a run joins is learnt from its
    /// spans, so only the whole recording names it.
    pub(crate) fn over(
        file: std::fs::File,
        trace: TraceId,
        launched: Option<serde_json::Value>,
    ) -> Journal {
        let mut journal = Journal {
            out: Some(file),
            trace,
            spans: 0,
            decisions: 0,
            lines: 0,
            head: 0,
            spans_only: true,
        };
        journal.head = journal.write(&[Line::WatchStarted {
            trace_id: trace_hex(trace),
            joined: Vec::new(),
            conversation: None,
            launch: launched,
        }]);
        journal
    }

    /// Where the run's span lines begin in the file and how many there
    /// are, when every line after the first is one and none was lost:
    /// the whole recording copies them rather than writing them again.
    pub(crate) fn spans_from(&self) -> Option<(u64, usize)> {
        (self.out.is_some() && self.spans_only).then_some((self.head, self.spans))
    }

    /// Write what came since the last time: the run's new spans, its
    /// steering decisions, then `more`.
    pub(crate) fn catch_up(
        &mut self,
        run: Option<&Run>,
        steering: Option<&Steering>,
        more: Vec<Line>,
    ) {
        let arrivals = run.map_or(&[][..], |r| &r.arrivals[..]);
        let mut lines = Vec::new();
        for arrival in arrivals.get(self.spans..).unwrap_or_default() {
            lines.push(Line::SpanArrived {
                at_ms: arrival.at_ms,
                kind: arrival.kind,
                under_placeholder: arrival.under_placeholder,
                span: arrival.span.clone(),
            });
        }
        self.spans = self.spans.max(arrivals.len());
        for timed in steering.map_or_else(Vec::new, |s| s.decisions(self.trace, self.decisions)) {
            lines.push(Line::Steered {
                at_ms: timed.at_ms,
                decision: timed.decision,
            });
            self.decisions += 1;
        }
        lines.extend(more);
        self.spans_only &= lines
            .iter()
            .all(|line| matches!(line, Line::SpanArrived { .. }));
        self.write(&lines);
    }

    /// Write an output line, while fewer than the lines a run keeps are
    /// written: the journal holds the output's first lines, the whole
    /// recording its last.
    pub(crate) fn output(&mut self, line: &OutputLine) {
        if self.lines < OUTPUT_LINES {
            self.lines += 1;
            self.spans_only = false;
            self.write(&[Line::ProgramOutput { line: line.clone() }]);
        }
    }

    /// Write `lines` to the file in one write; the bytes written.
    fn write(&mut self, lines: &[Line]) -> u64 {
        let Some(out) = self.out.as_mut() else {
            return 0;
        };
        if lines.is_empty() {
            return 0;
        }
        let mut bytes = Vec::new();
        let written = lines
            .iter()
            .try_for_each(|line| write_line(&mut bytes, line))
            .and_then(|()| out.write_all(&bytes));
        if written.is_err() {
            self.out = None;
        }
        bytes.len() as u64
    }
}

/// Put a whole recording in the place of the journal at `path`: written
/// by `write` beside it (`path.whole`) and renamed over it, so that a
/// reader finds either the journal or the whole recording, never half of
/// one. Nothing is left beside it when the writing fails.
pub(crate) fn replace_whole(
    path: &Path,
    write: impl FnOnce(std::fs::File) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut beside = path.as_os_str().to_owned();
    beside.push(".whole");
    let beside = PathBuf::from(beside);
    let written = std::fs::File::create(&beside)
        .and_then(write)
        .and_then(|()| std::fs::rename(&beside, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&beside);
    }
    written
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
        let mut journal = Journal::create(&path, 7, None).unwrap();
        let head = std::fs::metadata(&path).unwrap().len();
        assert_eq!(journal.spans_from(), Some((head, 0)));
        for n in 0..OUTPUT_LINES + 100 {
            journal.output(&line(n));
        }
        let read = crate::watch::record::read_as_written(&path).unwrap();
        let texts: Vec<&str> = read.output.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(texts.len(), OUTPUT_LINES);
        assert_eq!(texts.first(), Some(&"line 0"));
        let last = format!("line {}", OUTPUT_LINES - 1);
        assert_eq!(texts.last(), Some(&last.as_str()));
        assert_eq!(read.trace_id, trace_hex(7));
        assert_eq!(journal.spans_from(), None, "lines other than spans follow");
    }

    /// A disk that fills up ends the journal: the run goes on with
    /// nothing more written and nothing panics.
    #[test]
    fn a_write_that_fails_ends_the_journal_and_the_run_goes_on() {
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full");
        let Ok(full) = full else {
            panic!("/dev/full cannot be opened for writing");
        };
        let mut journal = Journal::over(full, 7, None);
        assert!(
            journal.out.is_none(),
            "the failed first line ended the journal"
        );
        journal.output(&line(0));
        let steering = Steering::new(Default::default(), Default::default());
        journal.catch_up(None, Some(&*steering), Vec::new());
        assert_eq!(journal.lines, 1, "the run's lines are still counted");
    }

    /// A whole recording that cannot be written leaves the journal as it
    /// was and nothing beside it.
    #[test]
    fn a_whole_recording_that_fails_leaves_the_journal_in_place() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.jsonl");
        std::fs::write(&path, "journal\n").unwrap();
        let failed = replace_whole(&path, |_| Err(std::io::Error::other("disk full")));
        assert!(failed.is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "journal\n");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "nothing is left beside the journal");
        replace_whole(&path, |mut f| f.write_all(b"whole\n")).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "whole\n");
    }
}
