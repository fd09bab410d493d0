//! JSONL recordings: one event per line, every seq of a run in order. The
//! writer runs on its own thread behind an unbounded queue, so recording is
//! lossless and never makes the engine wait; it writes whole lines in
//! batches about a millisecond apart, so a killed process leaves a file that
//! is valid up to its last line.

mod reader;

pub use reader::{Recording, RecordingError, RecordingProblem, read_recording};

use crate::bus::{Event, EventSink};
use parking_lot::{Condvar, Mutex};
use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// After writing a batch, the writer naps this long so that a busy run's
/// events gather into the next batch instead of waking it one by one.
const NAP: Duration = Duration::from_millis(1);

/// The queue between the bus and the writer thread. Publishing pushes under
/// a short lock and wakes the writer only when it sleeps on an empty queue.
#[derive(Debug, Default)]
struct Queue {
    state: Mutex<QueueState>,
    wake: Condvar,
}

#[derive(Debug, Default)]
struct QueueState {
    /// Events in fixed-size chunks: a long backlog grows by a chunk at a
    /// time instead of moving everything it holds.
    pending: Vec<Vec<Arc<Event>>>,
    /// Emptied chunks handed back by the writer, reused before allocating.
    spare: Vec<Vec<Arc<Event>>>,
    writer_sleeping: bool,
    closed: bool,
}

const CHUNK: usize = 1024;

impl QueueState {
    fn push(&mut self, event: Arc<Event>) {
        match self.pending.last_mut() {
            Some(chunk) if chunk.len() < CHUNK => chunk.push(event),
            _ => {
                let mut chunk = self
                    .spare
                    .pop()
                    .unwrap_or_else(|| Vec::with_capacity(CHUNK));
                chunk.push(event);
                self.pending.push(chunk);
            }
        }
    }
}

/// The bus's end of a recording. Dropping the last clone closes it: the
/// writer writes what is queued and finishes.
#[derive(Clone, Debug)]
pub struct RecordSink {
    queue: Arc<Queue>,
    _closer: Arc<Closer>,
}

/// Closes the queue when the last sink goes.
#[derive(Debug)]
struct Closer(Arc<Queue>);

impl Drop for Closer {
    fn drop(&mut self) {
        let mut state = self.0.state.lock();
        state.closed = true;
        self.0.wake.notify_one();
    }
}

impl EventSink for RecordSink {
    fn accept(&self, event: Arc<Event>) {
        let mut state = self.queue.state.lock();
        state.push(event);
        if state.writer_sleeping {
            state.writer_sleeping = false;
            self.queue.wake.notify_one();
        }
    }
}

/// The writer thread of one recording.
#[derive(Debug)]
pub struct Recorder {
    path: PathBuf,
    thread: JoinHandle<io::Result<u64>>,
}

impl Recorder {
    /// Create (or truncate) `path`, creating its folder, and start the writer.
    pub fn create(path: &Path) -> io::Result<(RecordSink, Recorder)> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            fs::create_dir_all(dir)?;
        }
        let file = File::create(path)?;
        let queue = Arc::new(Queue::default());
        let writer_queue = Arc::clone(&queue);
        let thread = std::thread::Builder::new()
            .name("conclave-recorder".into())
            .spawn(move || {
                lower_priority();
                write_lines(file, &writer_queue)
            })?;
        Ok((
            RecordSink {
                _closer: Arc::new(Closer(Arc::clone(&queue))),
                queue,
            },
            Recorder {
                path: path.to_path_buf(),
                thread,
            },
        ))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Wait until every recorded event is on disk, once every sink is
    /// dropped; returns how many events the file holds.
    pub fn finish(self) -> io::Result<u64> {
        self.thread
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the recorder thread panicked")))
    }
}

/// The writer yields the CPU to the engine and the dashboard when they
/// compete for it: it catches up on its unbounded queue afterwards.
fn lower_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: setpriority on the calling thread's own id changes only that
    // thread's nice value; gettid cannot fail.
    unsafe {
        let tid = libc::gettid();
        libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, 10);
    }
}

fn write_lines(mut file: File, queue: &Queue) -> io::Result<u64> {
    let mut written = 0u64;
    let mut chunks = Vec::new();
    let mut bytes = Vec::with_capacity(256 * 1024);
    loop {
        let closed = {
            let mut state = queue.state.lock();
            while state.pending.is_empty() && !state.closed {
                state.writer_sleeping = true;
                queue.wake.wait(&mut state);
            }
            state.writer_sleeping = false;
            state.spare.append(&mut chunks);
            std::mem::swap(&mut chunks, &mut state.pending);
            state.closed
        };
        // Whole lines only, one chunk per write: a killed process leaves a
        // file that ends at a line boundary.
        for chunk in &mut chunks {
            for event in chunk.drain(..) {
                serde_json::to_writer(&mut bytes, &*event)?;
                bytes.push(b'\n');
                written += 1;
            }
            file.write_all(&bytes)?;
            bytes.clear();
        }
        if closed && queue.state.lock().pending.is_empty() {
            break;
        }
        std::thread::sleep(NAP);
    }
    file.flush()?;
    // Not every file can be synced (a pipe, some network mounts); the data
    // is written either way.
    let _ = file.sync_data();
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bus::{Bus, EventKind, Hub};
    use crate::clock::RunClock;

    #[test]
    fn writes_every_event_as_one_line_and_reads_them_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nested/run.jsonl");
        let (sink, recorder) = Recorder::create(&path).unwrap();
        let bus = Bus::new(3, RunClock::start(), Hub::new(1), Some(Box::new(sink)));
        for round in 1..=1000 {
            bus.publish(EventKind::RoundStarted {
                round,
                speakers: vec!["a".into()],
            });
        }
        drop(bus);
        assert_eq!(recorder.finish().unwrap(), 1000);
        let recording = read_recording(&path).unwrap();
        assert!(recording.problems.is_empty(), "{:?}", recording.problems);
        let seqs: Vec<u64> = recording.events.iter().map(|e| e.seq).collect();
        assert_eq!(seqs, (1..=1000).collect::<Vec<_>>());
        assert!(recording.events.iter().all(|e| e.run == 3));
    }
}
