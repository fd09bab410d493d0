//! The bus's end of a recording and the thread that writes it. An event
//! is written as its line where it is published, on the thread that made
//! it, into the lines waiting for the writer; the writer takes all that
//! wait at once and writes them out. So the engine hands the writer bytes,
//! not events: an event is freed by the thread that made it (freeing
//! another thread's memory cost the engine more than writing the line),
//! what waits for a writer that falls behind is lines (about half an
//! event's memory), and the writer does little but write. A long line (a
//! run's start with a 50 MB context, a long result) waits as its event
//! and the writer writes it in pieces, rather than hold it whole a second
//! time.

use super::long_line::{self, Taken};
use crate::bus::{Event, EventSink};
use parking_lot::Mutex;
use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, Seek, Write};
use std::sync::{Arc, OnceLock};
use std::thread::Thread;

/// The bus's end of a recording. Dropping the last clone closes it: the
/// writer writes what is waiting and finishes.
#[derive(Clone, Debug)]
pub struct RecordSink(Arc<Closing>);

/// Closes the recording when the last sink is gone.
#[derive(Debug)]
struct Closing(Arc<Shared>);

/// What the sinks and the writer share.
#[derive(Debug)]
pub(super) struct Shared {
    waiting: Mutex<Waiting>,
    /// The writer, woken when lines come to an empty queue, and at the end.
    writer: OnceLock<Thread>,
}

#[derive(Debug, Default)]
struct Waiting {
    pieces: VecDeque<Piece>,
    /// Buffers the writer emptied, for the next lines.
    spare: Vec<Vec<u8>>,
    /// Whether a sink is still open.
    closed: bool,
}

/// Lines waiting, in order.
#[derive(Debug)]
enum Piece {
    /// Whole lines, each with its newline, and how many.
    Lines(Vec<u8>, u64),
    /// An event whose line is longer than [`long_line::LONG_LINE`].
    Long(Arc<Event>),
    /// An event that could not be written as JSON: the file ends there.
    Failed(io::Error),
}

/// Lines are joined into buffers of about this size: a writer far behind
/// is handed them a buffer at a time, never one buffer grown (and copied)
/// to the size of everything it has not written.
const PIECE: usize = 256 * 1024;

/// The most a spare buffer keeps.
const KEPT: usize = 2 * PIECE;

/// How many emptied buffers are kept for the next lines: a writer that
/// takes a few at once hands them all back, rather than free them on its
/// thread for the engine's to make again.
const SPARE: usize = 4;

impl Shared {
    pub(super) fn new() -> Arc<Shared> {
        Arc::new(Shared {
            waiting: Mutex::new(Waiting::default()),
            writer: OnceLock::new(),
        })
    }

    /// The writer's thread, to be woken: set before the first event.
    pub(super) fn set_writer(&self, writer: Thread) {
        let _ = self.writer.set(writer);
    }

    fn wake(&self) {
        if let Some(writer) = self.writer.get() {
            writer.unpark();
        }
    }
}

impl RecordSink {
    pub(super) fn new(shared: Arc<Shared>) -> RecordSink {
        RecordSink(Arc::new(Closing(shared)))
    }
}

impl Drop for Closing {
    fn drop(&mut self) {
        self.0.waiting.lock().closed = true;
        self.0.wake();
    }
}

impl EventSink for RecordSink {
    fn accept(&self, event: Arc<Event>) {
        let shared = &self.0.0;
        let mut waiting = shared.waiting.lock();
        let was_empty = waiting.pieces.is_empty();
        waiting.push(event);
        drop(waiting);
        if was_empty {
            shared.wake();
        }
    }
}

impl Waiting {
    /// `event`'s line after the lines waiting.
    fn push(&mut self, event: Arc<Event>) {
        let fits =
            matches!(self.pieces.back(), Some(Piece::Lines(lines, _)) if lines.len() < PIECE);
        if !fits {
            let lines = self
                .spare
                .pop()
                .unwrap_or_else(|| Vec::with_capacity(PIECE));
            self.pieces.push_back(Piece::Lines(lines, 0));
        }
        let Some(Piece::Lines(lines, count)) = self.pieces.back_mut() else {
            unreachable!("lines were just made the last piece")
        };
        match long_line::line_into(lines, &event) {
            Ok(Taken::Joined) => *count += 1,
            Ok(Taken::Long) => self.pieces.push_back(Piece::Long(event)),
            Err(e) => self.pieces.push_back(Piece::Failed(e)),
        }
    }
}

/// How long a writer that caught up lets lines gather before it takes
/// them: a run of many short calls is written a few hundred lines at a
/// time, and a recording lags the run by no more than this.
const GATHER: std::time::Duration = std::time::Duration::from_millis(2);

/// Below this many bytes taken, the writer lets more gather.
const SMALL: usize = PIECE / 2;

/// Write every line handed over until the last sink is closed; how many
/// lines the file holds, or the first write that failed. A failed write
/// ends the file there, and what is handed over afterwards is still
/// taken and dropped, so that the run's memory does not grow.
pub(super) fn write_lines(mut file: File, shared: &Shared) -> io::Result<u64> {
    let mut written = 0u64;
    let mut started = Started(0);
    let mut failed: Option<io::Error> = None;
    loop {
        let mut taken = {
            let mut waiting = shared.waiting.lock();
            while waiting.pieces.is_empty() && !waiting.closed {
                drop(waiting);
                std::thread::park();
                waiting = shared.waiting.lock();
            }
            if waiting.pieces.is_empty() {
                break;
            }
            std::mem::take(&mut waiting.pieces)
        };
        let mut bytes = 0;
        for piece in taken.drain(..) {
            match piece {
                Piece::Lines(mut lines, count) => {
                    bytes += lines.len();
                    if failed.is_none() {
                        match file.write_all(&lines) {
                            Ok(()) => written += count,
                            Err(e) => failed = Some(e),
                        }
                    }
                    lines.clear();
                    let mut waiting = shared.waiting.lock();
                    if lines.capacity() <= KEPT && waiting.spare.len() < SPARE {
                        waiting.spare.push(lines);
                    }
                }
                Piece::Long(event) if failed.is_none() => {
                    match long_line::write_long(&mut file, &event) {
                        Ok(()) => written += 1,
                        Err(e) => failed = Some(e),
                    }
                }
                Piece::Long(_) => {}
                Piece::Failed(e) => {
                    failed.get_or_insert(e);
                }
            }
        }
        if failed.is_none() {
            started.after(&mut file, false);
        }
        // Caught up: let the next lines gather rather than take each one.
        // A writer waiting is woken by the engine's thread, in a system
        // call; one that is not waiting costs the engine nothing.
        if bytes < SMALL && failed.is_none() {
            std::thread::sleep(GATHER);
        }
    }
    if let Some(e) = failed {
        return Err(e);
    }
    file.flush()?;
    started.after(&mut file, true);
    Ok(written)
}

/// How much is written before the system is asked to start putting it on
/// disk: so the disk's writing goes on beside the run, and what is left at
/// the end is the last part (asked at the end for all of a 170 MB
/// recording, it held the run's exit for a tenth of a second).
const SYNC_STEP: u64 = 16 << 20;

/// Where the disk's writing of the file was last asked to start from.
struct Started(u64);

impl Started {
    /// After a write: past [`SYNC_STEP`] since the last ask, or at the
    /// `end`, ask the system to start putting what was written on disk,
    /// without waiting for it. What a process wrote survives its end,
    /// however it ends; this only shortens the time the file is in memory
    /// alone. A file that cannot be (a pipe) is written all the same.
    fn after(&mut self, file: &mut File, end: bool) {
        let Ok(at) = file.stream_position() else {
            return;
        };
        if at.saturating_sub(self.0) < SYNC_STEP && !end {
            return;
        }
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            let from = libc::off64_t::try_from(self.0).unwrap_or(0);
            let len = libc::off64_t::try_from(at - self.0).unwrap_or(0);
            // SAFETY: sync_file_range on a descriptor borrowed open; the
            // range is what this writer wrote, and SYNC_FILE_RANGE_WRITE
            // only starts the writing.
            unsafe {
                libc::sync_file_range(file.as_raw_fd(), from, len, libc::SYNC_FILE_RANGE_WRITE);
            }
        }
        self.0 = at;
    }
}
