//! Reading recordings back, forgivingly: every line that is a Conclave event
//! of the run is kept; a line that is not UTF-8, longer than [`MAX_LINE`],
//! not JSON, an event kind from a newer version, out of sequence or of
//! another run is reported with its line number, and the reading goes on.
//! Lines are read as bytes, so one bad byte costs its line only; a line over
//! the cap is skipped without being held. Only a file with no event at all is
//! refused.

use super::line::{decode, decode_line};
use super::sequence::{Placed, Sequence};
use crate::bus::{Event, EventKind};
use crate::sanitize::clean;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
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

/// The line buffer's memory kept from one line to the next.
const MAX_KEPT_BUFFER: usize = 4 << 20;

const BOM: &[u8] = b"\xef\xbb\xbf";

/// A problem in one line of a recording.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{path}:{line}: {message}")]
pub struct RecordingProblem {
    pub(crate) path: String,
    pub line: usize,
    pub message: String,
}

#[derive(Debug, thiserror::Error)]
pub enum RecordingError {
    #[error("{path}: cannot read the recording: {source}")]
    Io { path: String, source: io::Error },
    #[error("{path}: the recording is empty")]
    Empty { path: String },
    #[error("{problem} (this is not a Conclave recording: one JSON event per line)")]
    NotARecording { problem: RecordingProblem },
}

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
    let io_error = |source| RecordingError::Io {
        path: shown.to_string(),
        source,
    };
    // Bytes of garbage read before any event after which the file is
    // refused: an endless stream such as /dev/zero or /dev/urandom ends.
    let junk_limit = 2 * max_line as u64;
    let mut sequence = Sequence::default();
    // Events decoded so far, kept or not.
    let mut decoded = 0usize;
    let mut problems: Vec<(usize, String)> = Vec::new();
    let mut unlisted = 0usize;
    let mut note = |problems: &mut Vec<(usize, String)>, line: usize, message: String| {
        if problems.len() < 2 * MAX_LISTED_PROBLEMS {
            problems.push((line, message));
        } else {
            unlisted += 1;
        }
    };
    let mut buf = Vec::new();
    let (mut number, mut slot, mut consumed) = (0usize, 0u64, 0u64);
    loop {
        if decoded == 0 && consumed >= junk_limit {
            let why = format!("no event in the first {}", size(junk_limit));
            return Err(refusal(shown, problems, false, number + 1, why));
        }
        let junk_left = if decoded == 0 {
            junk_limit - consumed
        } else {
            u64::MAX
        };
        let left = length.map_or(u64::MAX, |n| n.saturating_sub(consumed));
        let read = next_line(&mut reader, &mut buf, max_line, junk_left, left).map_err(io_error)?;
        let line = match read {
            Line::End => break,
            Line::Endless => {
                let why = format!(
                    "no event and no line break in the first {}",
                    size(junk_limit)
                );
                return Err(refusal(shown, problems, false, number + 1, why));
            }
            line => line,
        };
        number += 1;
        let starts_at = consumed;
        consumed += line.bytes();
        if let Line::TooLong(bytes) = line {
            slot += 1;
            note(
                &mut problems,
                number,
                format!(
                    "a line of {bytes} bytes, longer than the line cap ({}); skipped",
                    size(max_line as u64)
                ),
            );
            continue;
        }
        let mut bytes = trim_line_end(&buf);
        let mut span = (starts_at, 0);
        if number == 1
            && let Some(rest) = bytes.strip_prefix(BOM)
        {
            // A byte order mark some editors add is not part of the event.
            bytes = rest;
            span.0 += BOM.len() as u64;
        }
        // A line is at most `max_line` bytes, and the cap is below 4 GiB.
        span.1 = u32::try_from(bytes.len()).unwrap_or(u32::MAX);
        if bytes.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        slot += 1;
        // A long line's buffer is not kept for the next line: given up to
        // its event, it holds a run's result in place.
        let read_event = if buf.len() > MAX_KEPT_BUFFER {
            let skip = (span.0 - starts_at) as usize;
            let within = skip..skip + span.1 as usize;
            decode_line(std::mem::take(&mut buf), within)
        } else {
            decode(bytes)
        };
        match read_event {
            Ok(event) => {
                decoded += 1;
                let placed = Placed {
                    line: number,
                    slot,
                    span,
                    event: Arc::new(event),
                };
                sequence.push(placed, &mut problems, &mut each);
            }
            Err(message) => note(&mut problems, number, message),
        }
    }
    if decoded == 0 {
        let empty = slot == 0;
        return Err(refusal(shown, problems, empty, number, "no event".into()));
    }
    sequence.finish(&mut problems, &mut each);
    Ok(listed(problems, unlisted, shown))
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

/// One line of the file, read into the caller's buffer.
enum Line {
    /// The line is in the buffer; its length with its line break.
    Whole(u64),
    /// Longer than the cap: skipped, not held; its length.
    TooLong(u64),
    /// The end of the file.
    End,
    /// No line break within the bytes allowed before the first event.
    Endless,
}

impl Line {
    fn bytes(&self) -> u64 {
        match self {
            Line::Whole(n) | Line::TooLong(n) => *n,
            Line::End | Line::Endless => 0,
        }
    }
}

/// The next line into `buf`; `left` is the bytes the reader holds after
/// what was read before, when known (else `u64::MAX`).
fn next_line(
    reader: &mut impl BufRead,
    buf: &mut Vec<u8>,
    max_line: usize,
    junk_left: u64,
    left: u64,
) -> io::Result<Line> {
    buf.clear();
    // One long line does not keep its memory for the rest.
    buf.shrink_to(MAX_KEPT_BUFFER);
    let limit = max_line as u64 + 1;
    let first = limit.min(MAX_KEPT_BUFFER as u64);
    let mut read = reader.by_ref().take(first).read_until(b'\n', buf)? as u64;
    if read == 0 {
        return Ok(Line::End);
    }
    if read == first && read < limit && buf.last() != Some(&b'\n') {
        // A long line: room for the rest up to the cap (or to the end of
        // the file, when nearer) at once, rather than doubling (which would
        // hold twice the line at the copy).
        let room = (limit - read).min(left.saturating_sub(read));
        buf.reserve_exact(usize::try_from(room).unwrap_or(usize::MAX));
        read += reader.by_ref().take(limit - read).read_until(b'\n', buf)? as u64;
    }
    if buf.last() == Some(&b'\n') || buf.len() <= max_line {
        return Ok(Line::Whole(read));
    }
    // Over the cap: skip to the line's end without keeping it, within what
    // is allowed before the first event.
    buf.clear();
    let allowed = junk_left.saturating_sub(read);
    let skipped = reader.by_ref().take(allowed).skip_until(b'\n')? as u64;
    if skipped >= allowed {
        return Ok(Line::Endless);
    }
    Ok(Line::TooLong(read + skipped))
}

/// A line without its line break (`\n` or `\r\n`).
fn trim_line_end(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

fn size(bytes: u64) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{bytes} bytes")
    }
}

#[cfg(test)]
mod tests;
