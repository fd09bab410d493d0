//! Reading recordings back, forgivingly: every line that is a Conclave event
//! of the run is kept; a line that is not UTF-8, longer than [`MAX_LINE`],
//! not JSON, an event kind from a newer version, out of sequence or of
//! another run is reported with its line number, and the reading goes on.
//! Lines are read as bytes, so one bad byte costs its line only; a line over
//! the cap is skipped without being held. Only a file with no event at all,
//! or one where a second run starts, is refused.

use super::line::{decode, decode_line};
use super::sequence::{Placed, Sequence};
use crate::bus::{Event, EventKind};
use crate::sanitize::clean;
use lines::{Line, MAX_KEPT_BUFFER, next_line, trim_line_end};
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::sync::Arc;

/// The longest line read, 128 MiB: twice the default cap on scenario files,
/// since a recording's first line holds the whole scenario, so any line
/// Conclave writes reads back. A longer line is reported and skipped without
/// being held in memory.
pub const MAX_LINE: usize = 128 << 20;

/// Problems listed one by one; past these, the rest are counted in one last
/// problem, so that memory stays bounded on a file of garbage.
const MAX_LISTED_PROBLEMS: usize = 1000;

const BOM: &[u8] = b"\xef\xbb\xbf";

use super::problem::{RecordingError, RecordingProblem};

/// What could be read from a recording.
#[derive(Clone, Debug, Default)]
pub struct Recording {
    pub events: Vec<Arc<Event>>,
    /// Lines that could not be used, with their line numbers, in file order.
    pub problems: Vec<RecordingProblem>,
}

impl Recording {
    /// Whether the run's finish is in the recording (a killed run has none).
    pub fn finished(&self) -> bool {
        self.events
            .last()
            .is_some_and(|e| matches!(e.kind, EventKind::RunFinished { .. }))
    }
}

/// Read the recording at `path`.
pub fn read_recording(path: &Path) -> Result<Recording, RecordingError> {
    let mut events = Vec::new();
    let problems = each_placed(path, |placed| events.push(placed.event))?;
    Ok(Recording { events, problems })
}

/// Read a recording from any byte stream; `shown` names it in reports.
pub fn parse_recording(reader: impl BufRead, shown: &str) -> Result<Recording, RecordingError> {
    parse_with_cap(reader, shown, MAX_LINE)
}

/// [`parse_recording`] with another line cap, for tests.
pub(crate) fn parse_with_cap(
    reader: impl BufRead,
    shown: &str,
    max_line: usize,
) -> Result<Recording, RecordingError> {
    let mut events = Vec::new();
    let problems = each_event(reader, shown, max_line, None, |placed| {
        events.push(placed.event);
    })?;
    Ok(Recording { events, problems })
}

/// Read the recording at `path` one event at a time: `each` gets the
/// events [`read_recording`] would list, in the same order, without the
/// whole recording being held; the problems come at the end.
pub fn read_recording_each(
    path: &Path,
    mut each: impl FnMut(Arc<Event>),
) -> Result<Vec<RecordingProblem>, RecordingError> {
    each_placed(path, |placed| each(placed.event))
}

/// [`read_recording_each`] with where each event's line is in the file.
pub(super) fn each_placed(
    path: &Path,
    each: impl FnMut(Placed),
) -> Result<Vec<RecordingProblem>, RecordingError> {
    let shown = clean(&path.display().to_string()).into_owned();
    let io_error = |source| RecordingError::Io {
        path: shown.clone(),
        source,
    };
    // Looked at before it is opened: opening a FIFO blocks.
    let kind = std::fs::metadata(path).map_err(io_error)?.file_type();
    if let Some(kind) = super::file_kind::not_a_file(&kind) {
        return Err(RecordingError::NotAFile { path: shown, kind });
    }
    let file = File::open(path).map_err(io_error)?;
    let length = file.metadata().map_err(io_error)?.len();
    let reader = BufReader::with_capacity(1 << 20, file);
    each_event(reader, &shown, MAX_LINE, Some(length), each)
}

/// Every event of the recording in `reader` in its run's order, given to
/// `each` with where its line was; `length` is the bytes the reader holds,
/// when known.
fn each_event(
    mut reader: impl BufRead,
    shown: &str,
    max_line: usize,
    length: Option<u64>,
    mut each: impl FnMut(Placed),
) -> Result<Vec<RecordingProblem>, RecordingError> {
    let mut reading = Reading::new(shown, max_line);
    let mut sequence = Sequence::default();
    let mut one_run = super::one_run::OneRun::default();
    let mut buf = Vec::new();
    while let Some(line) = reading.next(&mut reader, &mut buf, length)? {
        let starts_at = reading.consumed;
        reading.number += 1;
        reading.consumed += line.bytes();
        if let Line::TooLong(bytes) = line {
            reading.too_long(bytes);
            continue;
        }
        if let Some(placed) = reading.place(&mut buf, starts_at) {
            one_run.check(&placed.event, placed.line, shown)?;
            sequence.push(placed, &mut reading.problems, &mut each);
        }
    }
    reading.finish(sequence, &mut each)
}

/// How far the reading of one recording has come.
struct Reading<'a> {
    shown: &'a str,
    max_line: usize,
    /// Bytes of garbage read before any event after which the file is
    /// refused: an endless stream such as /dev/zero or /dev/urandom ends.
    junk_limit: u64,
    /// The last line's number.
    number: usize,
    /// Non-blank lines so far ([`Placed::slot`]).
    slot: u64,
    /// Bytes read so far.
    consumed: u64,
    /// Events decoded so far, kept or not.
    decoded: usize,
    problems: Vec<(usize, String)>,
    /// Problems past what is kept for listing, only counted.
    unlisted: usize,
}

impl<'a> Reading<'a> {
    fn new(shown: &'a str, max_line: usize) -> Self {
        Reading {
            shown,
            max_line,
            junk_limit: 2 * max_line as u64,
            number: 0,
            slot: 0,
            consumed: 0,
            decoded: 0,
            problems: Vec::new(),
            unlisted: 0,
        }
    }

    /// The next line into `buf`, `None` at the end; a file with no event
    /// within the junk limit is refused.
    fn next(
        &mut self,
        reader: &mut impl BufRead,
        buf: &mut Vec<u8>,
        length: Option<u64>,
    ) -> Result<Option<Line>, RecordingError> {
        let junk_limit = self.junk_limit;
        if self.decoded == 0 && self.consumed >= junk_limit {
            let why = format!("no event in the first {}", size(junk_limit));
            return Err(self.refuse(self.number + 1, why));
        }
        let junk_left = if self.decoded == 0 {
            junk_limit - self.consumed
        } else {
            u64::MAX
        };
        let left = length.map_or(u64::MAX, |n| n.saturating_sub(self.consumed));
        let read = next_line(reader, buf, self.max_line, junk_left, left).map_err(|source| {
            RecordingError::Io {
                path: self.shown.to_string(),
                source,
            }
        })?;
        match read {
            Line::End => Ok(None),
            Line::Endless => {
                let why = format!(
                    "no event and no line break in the first {}",
                    size(junk_limit)
                );
                Err(self.refuse(self.number + 1, why))
            }
            line => Ok(Some(line)),
        }
    }

    /// The current line, of `bytes` bytes, is over the cap and skipped.
    fn too_long(&mut self, bytes: u64) {
        self.slot += 1;
        let message = format!(
            "a line of {bytes} bytes, longer than the line cap ({}); skipped",
            size(self.max_line as u64)
        );
        self.note(self.number, message);
    }

    /// The event on the current line, in `buf` from `starts_at` bytes into
    /// the file, with where it was; `None` for a blank line, or one with
    /// no event (noted).
    fn place(&mut self, buf: &mut Vec<u8>, starts_at: u64) -> Option<Placed> {
        let mut bytes = trim_line_end(buf);
        let mut span = (starts_at, 0);
        if self.number == 1
            && let Some(rest) = bytes.strip_prefix(BOM)
        {
            // A byte order mark some editors add is not part of the event.
            bytes = rest;
            span.0 += BOM.len() as u64;
        }
        // A line is at most `max_line` bytes, and the cap is below 4 GiB.
        span.1 = u32::try_from(bytes.len()).unwrap_or(u32::MAX);
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return None;
        }
        self.slot += 1;
        // A long line's buffer is not kept for the next line: given up to
        // its event, it holds a run's result in place.
        let read_event = if buf.len() > MAX_KEPT_BUFFER {
            let skip = (span.0 - starts_at) as usize;
            let within = skip..skip + span.1 as usize;
            decode_line(std::mem::take(buf), within)
        } else {
            decode(bytes)
        };
        match read_event {
            Ok(event) => {
                self.decoded += 1;
                Some(Placed {
                    line: self.number,
                    slot: self.slot,
                    span,
                    event: Arc::new(event),
                })
            }
            Err(message) => {
                self.note(self.number, message);
                None
            }
        }
    }

    fn note(&mut self, line: usize, message: String) {
        if self.problems.len() < 2 * MAX_LISTED_PROBLEMS {
            self.problems.push((line, message));
        } else {
            self.unlisted += 1;
        }
    }

    /// The file's end: the events still held for their order go to `each`,
    /// and the problems are listed; a file with no event is refused.
    fn finish(
        mut self,
        sequence: Sequence,
        each: &mut impl FnMut(Placed),
    ) -> Result<Vec<RecordingProblem>, RecordingError> {
        if self.decoded == 0 {
            let empty = self.slot == 0;
            return Err(refusal(
                self.shown,
                self.problems,
                empty,
                self.number,
                "no event".into(),
            ));
        }
        sequence.finish(&mut self.problems, each);
        Ok(listed(self.problems, self.unlisted, self.shown))
    }

    /// Refuse a file that is not empty and holds no event, at `line` for
    /// `why` unless an earlier problem says more.
    fn refuse(&mut self, line: usize, why: String) -> RecordingError {
        refusal(
            self.shown,
            std::mem::take(&mut self.problems),
            false,
            line,
            why,
        )
    }
}

/// The problems in file order, the first [`MAX_LISTED_PROBLEMS`] one by
/// one and the rest counted in one more.
fn listed(
    mut problems: Vec<(usize, String)>,
    unlisted: usize,
    shown: &str,
) -> Vec<RecordingProblem> {
    problems.sort_by_key(|p| p.0);
    let more = problems.len().saturating_sub(MAX_LISTED_PROBLEMS) + unlisted;
    problems.truncate(MAX_LISTED_PROBLEMS);
    let last_line = problems.last().map_or(0, |p| p.0);
    let mut listed: Vec<RecordingProblem> = problems
        .into_iter()
        .map(|(line, message)| RecordingProblem {
            path: shown.to_string(),
            line,
            message,
        })
        .collect();
    if more > 0 {
        listed.push(RecordingProblem {
            path: shown.to_string(),
            line: last_line,
            message: format!("and {more} more damaged lines after this one, not listed"),
        });
    }
    listed
}

/// Why a file with no event is refused: empty, or its first problem, or
/// `why` at `line`.
fn refusal(
    shown: &str,
    problems: Vec<(usize, String)>,
    empty: bool,
    line: usize,
    why: String,
) -> RecordingError {
    if empty {
        return RecordingError::Empty {
            path: shown.to_string(),
        };
    }
    let (line, message) = problems.into_iter().next().unwrap_or((line, why));
    RecordingError::NotARecording {
        problem: RecordingProblem {
            path: shown.to_string(),
            line,
            message,
        },
    }
}

fn size(bytes: u64) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{bytes} bytes")
    }
}

mod lines;

#[cfg(test)]
mod tests;
