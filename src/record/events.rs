//! A recording's events by their place in the run, for a replay that moves
//! anywhere in them. Read from a file, the events are not all held: only
//! those on long lines (the run's start with its scenario, an accepted plan,
//! the result) and the first and the last; any other is read from the file
//! again when it is asked for. A replay of a 700,000-event recording then
//! holds about what the headless replay holds, not every event decoded.

use super::line::decode;
use super::problem::{RecordingError, RecordingProblem};
use super::reader::each_placed;
use crate::bus::{Event, EventKind, RunId};
use parking_lot::Mutex;
use std::fs::File;
use std::io::{self, BufReader, Read, Seek};
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

/// From this many bytes, an event's line is held decoded rather than read
/// again: such events are few, costly to decode, and what they carry (a
/// scenario, a plan, a result) is held by the state that shows them anyway.
const HELD_LINE: u32 = 64 << 10;

/// The events of one run, in seq order.
#[derive(Clone)]
pub struct Events(Arc<Store>);

enum Store {
    Held(Vec<Arc<Event>>),
    Filed(Filed),
}

/// Events read from a file and found again there by where their lines are.
struct Filed {
    /// The file as reports name it.
    shown: String,
    run: RunId,
    lines: Vec<Line>,
    /// `(index, event)` of the events held, by index: the first, the last
    /// and those on long lines.
    held: Vec<(usize, Arc<Event>)>,
    file: Mutex<Cursor>,
}

/// Where an event's line is, and the low half of the seq it held when the
/// file was read (16 bytes an event: enough to tell a changed file).
#[derive(Clone, Copy, Debug)]
struct Line {
    at: u64,
    len: u32,
    seq: u32,
}

/// The file, with where its reader stands.
struct Cursor {
    reader: BufReader<File>,
    at: u64,
    buf: Vec<u8>,
}

/// A line read again no longer holds the event it held when the recording
/// was opened: the file was changed or replaced since.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{path}: the recording changed after it was opened ({why}); open it again")]
pub struct Changed {
    path: String,
    why: String,
}

impl Events {
    /// Events held in memory, all of them.
    pub fn held(events: Vec<Arc<Event>>) -> Events {
        Events(Arc::new(Store::Held(events)))
    }

    /// The recording at `path`, read as [`super::read_recording`] reads it;
    /// `each` sees every event with its place as it is read (the one time
    /// all of them are decoded), and the byte its line ends at, which tells
    /// how far the reading has come.
    pub fn open(
        path: &Path,
        mut each: impl FnMut(usize, &Event, u64),
    ) -> Result<(Events, Vec<RecordingProblem>), RecordingError> {
        let mut lines = Vec::new();
        let mut held = Vec::new();
        let mut last = None;
        let problems = each_placed(path, |placed| {
            let index = lines.len();
            let (at, len) = placed.span;
            each(index, &placed.event, at + u64::from(len));
            lines.push(Line {
                at,
                len,
                seq: low_half(placed.event.seq),
            });
            if index == 0 || len >= HELD_LINE {
                held.push((index, placed.event));
            } else {
                last = Some((index, placed.event));
            }
        })?;
        if let Some((index, event)) = last
            && held.last().is_none_or(|(at, _)| *at < index)
            && index + 1 == lines.len()
        {
            held.push((index, event));
        }
        lines.shrink_to_fit();
        let shown = crate::sanitize::clean(&path.display().to_string()).into_owned();
        let file = File::open(path).map_err(|source| RecordingError::Io {
            path: shown.clone(),
            source,
        })?;
        let run = held.first().map_or(0, |(_, e)| e.run);
        let filed = Filed {
            shown,
            run,
            lines,
            held,
            file: Mutex::new(Cursor {
                reader: BufReader::with_capacity(1 << 16, file),
                at: 0,
                buf: Vec::new(),
            }),
        };
        Ok((Events(Arc::new(Store::Filed(filed))), problems))
    }

    pub fn len(&self) -> usize {
        match &*self.0 {
            Store::Held(events) => events.len(),
            Store::Filed(filed) => filed.lines.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the events are read again from their file when asked for
    /// (then only the loop's work reads them), not held in memory.
    pub fn filed(&self) -> bool {
        matches!(&*self.0, Store::Filed(_))
    }

    /// Whether `self` and `other` are the same events, not copies.
    pub fn same(&self, other: &Events) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    pub fn first(&self) -> Option<&Arc<Event>> {
        match &*self.0 {
            Store::Held(events) => events.first(),
            Store::Filed(filed) => filed.held.first().map(|(_, e)| e),
        }
    }

    pub fn last(&self) -> Option<&Arc<Event>> {
        match &*self.0 {
            Store::Held(events) => events.last(),
            Store::Filed(filed) => filed
                .held
                .last()
                .filter(|(at, _)| at + 1 == filed.lines.len())
                .map(|(_, e)| e),
        }
    }

    /// "ends at seq N, no finish event" when the last event is not the
    /// run's finish (a killed run's recording).
    pub(crate) fn cut_short(&self) -> Option<String> {
        match self.last() {
            Some(event) if matches!(event.kind, EventKind::RunFinished { .. }) => None,
            last => Some(format!(
                "ends at seq {}, no finish event",
                last.map_or(0, |e| e.seq)
            )),
        }
    }

    /// The event at `index`, if there is one.
    pub fn get(&self, index: usize) -> Result<Option<Arc<Event>>, Changed> {
        let mut found = None;
        self.each(index..index.saturating_add(1), |_, event| {
            found = Some(event)
        })?;
        Ok(found)
    }

    /// The events in `range` (clipped to the events there are), in order.
    pub(crate) fn slice(&self, range: Range<usize>) -> Result<Vec<Arc<Event>>, Changed> {
        let mut events = Vec::with_capacity(range.len().min(self.len()));
        self.each(range, |_, event| events.push(event))?;
        Ok(events)
    }

    /// Give `f` each event in `range` (clipped to the events there are)
    /// with its place, in order; read from the file, they come until one
    /// is no longer there as it was.
    pub fn each(
        &self,
        range: Range<usize>,
        mut f: impl FnMut(usize, Arc<Event>),
    ) -> Result<(), Changed> {
        let end = range.end.min(self.len());
        let range = range.start.min(end)..end;
        match &*self.0 {
            Store::Held(events) => {
                for (i, event) in events[range.clone()].iter().enumerate() {
                    f(range.start + i, Arc::clone(event));
                }
                Ok(())
            }
            Store::Filed(filed) => filed.each(range, f),
        }
    }
}

impl Filed {
    fn each(
        &self,
        range: Range<usize>,
        mut f: impl FnMut(usize, Arc<Event>),
    ) -> Result<(), Changed> {
        let mut cursor = self.file.lock();
        let mut held = self.held.partition_point(|(at, _)| *at < range.start);
        for index in range {
            if let Some((at, event)) = self.held.get(held)
                && *at == index
            {
                held += 1;
                f(index, Arc::clone(event));
                continue;
            }
            let line = self.lines[index];
            let event = cursor
                .read(line)
                .map_err(|e| e.to_string())
                .and_then(decode)
                .and_then(|event| {
                    if event.run == self.run && low_half(event.seq) == line.seq {
                        Ok(event)
                    } else {
                        Err(format!("byte {} no longer starts its event", line.at))
                    }
                })
                .map_err(|why| Changed {
                    path: self.shown.clone(),
                    why,
                })?;
            f(index, Arc::new(event));
        }
        Ok(())
    }
}

/// A seq's low 32 bits.
fn low_half(seq: u64) -> u32 {
    (seq & u64::from(u32::MAX)) as u32
}

impl Cursor {
    /// The bytes of `line`, read from where the reader stands when it can
    /// (the next line usually starts a line break after the last).
    fn read(&mut self, line: Line) -> io::Result<&[u8]> {
        if line.at != self.at {
            let to = i64::try_from(line.at).map_err(io::Error::other)?;
            let from = i64::try_from(self.at).map_err(io::Error::other)?;
            self.reader.seek_relative(to - from)?;
            self.at = line.at;
        }
        self.buf.resize(line.len as usize, 0);
        let read = self.reader.read_exact(&mut self.buf);
        // Where the reader stands after a failed read is not known: the
        // next read starts from the file's start.
        if let Err(e) = read {
            self.reader.rewind()?;
            self.at = 0;
            return Err(e);
        }
        self.at = line.at + u64::from(line.len);
        Ok(&self.buf)
    }
}

impl std::fmt::Debug for Events {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match &*self.0 {
            Store::Held(_) => "held",
            Store::Filed(_) => "filed",
        };
        f.debug_struct("Events")
            .field("len", &self.len())
            .field("kind", &kind)
            .finish()
    }
}

#[cfg(test)]
mod tests;
