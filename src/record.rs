//! JSONL recordings: one event per line, every seq of a run in order. The
//! writer runs on its own thread behind an unbounded channel, so recording is
//! lossless and never slows the engine; it writes whole lines only and
//! flushes whenever it catches up, so a killed process leaves a file that is
//! valid up to its last line.

use crate::bus::Event;
use std::fs::{self, File};
use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc;
use std::thread::JoinHandle;

/// Write to the file once this much is buffered even if more events wait.
const BATCH_BYTES: usize = 256 * 1024;

/// The bus's end of a recording.
#[derive(Clone, Debug)]
pub struct RecordSink {
    tx: mpsc::Sender<Arc<Event>>,
}

impl RecordSink {
    pub(crate) fn record(&self, event: Arc<Event>) {
        // The writer only goes away after a write error, which `finish` reports.
        let _ = self.tx.send(event);
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
        let (tx, rx) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("conclave-recorder".into())
            .spawn(move || write_lines(file, rx))?;
        Ok((
            RecordSink { tx },
            Recorder {
                path: path.to_path_buf(),
                thread,
            },
        ))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Wait until every event sent before the last sink was dropped is on
    /// disk; returns how many events the file holds.
    pub fn finish(self) -> io::Result<u64> {
        self.thread
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the recorder thread panicked")))
    }
}

fn write_lines(mut file: File, rx: mpsc::Receiver<Arc<Event>>) -> io::Result<u64> {
    let mut written = 0u64;
    let mut batch = Vec::with_capacity(BATCH_BYTES + 4096);
    while let Ok(first) = rx.recv() {
        append_line(&mut batch, &first)?;
        written += 1;
        while batch.len() < BATCH_BYTES {
            match rx.try_recv() {
                Ok(event) => {
                    append_line(&mut batch, &event)?;
                    written += 1;
                }
                Err(_) => break,
            }
        }
        file.write_all(&batch)?;
        batch.clear();
    }
    file.flush()?;
    // Not every file can be synced (a pipe, some network mounts); the data
    // is written either way.
    let _ = file.sync_data();
    Ok(written)
}

fn append_line(batch: &mut Vec<u8>, event: &Event) -> io::Result<()> {
    serde_json::to_writer(&mut *batch, event)?;
    batch.push(b'\n');
    Ok(())
}

/// A problem in one line of a recording.
#[derive(Debug, thiserror::Error)]
#[error("{path}:{line}: {message}")]
pub struct RecordingProblem {
    pub path: String,
    pub line: usize,
    pub message: String,
}

/// What could be read from a recording.
#[derive(Debug, Default)]
pub struct Recording {
    pub events: Vec<Event>,
    /// Lines that could not be read, with their line numbers; the events
    /// around them are kept.
    pub problems: Vec<RecordingProblem>,
}

/// Read a recording, keeping every line that parses and noting the others.
pub fn read_recording(path: &Path) -> io::Result<Recording> {
    let reader = BufReader::new(File::open(path)?);
    let shown = path.display().to_string();
    let mut recording = Recording::default();
    for (index, line) in reader.lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Event>(&line) {
            Ok(event) => recording.events.push(event),
            Err(e) => recording.problems.push(RecordingProblem {
                path: shown.clone(),
                line: index + 1,
                message: format!("not a Conclave event: {e}"),
            }),
        }
    }
    Ok(recording)
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
        let bus = Bus::new(3, RunClock::start(), Hub::new(1), Some(sink));
        for round in 1..=1000 {
            bus.publish(EventKind::RoundStarted {
                round,
                speakers: vec!["a".into()],
            });
        }
        drop(bus);
        assert_eq!(recorder.finish().unwrap(), 1000);
        let recording = read_recording(&path).unwrap();
        assert!(recording.problems.is_empty());
        let seqs: Vec<u64> = recording.events.iter().map(|e| e.seq).collect();
        assert_eq!(seqs, (1..=1000).collect::<Vec<_>>());
        assert!(recording.events.iter().all(|e| e.run == 3));
    }

    #[test]
    fn unreadable_lines_are_reported_with_their_line_numbers() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cut.jsonl");
        std::fs::write(
            &path,
            "{\"run\":1,\"seq\":1,\"t_ms\":0,\"type\":\"flag_changed\",\"name\":\"x\",\"on\":true}\nnot json\n{\"run\":1,\"seq\":2,\"t_ms\":5,\"type\":\"flag_chan",
        )
        .unwrap();
        let recording = read_recording(&path).unwrap();
        assert_eq!(recording.events.len(), 1);
        let lines: Vec<usize> = recording.problems.iter().map(|p| p.line).collect();
        assert_eq!(lines, vec![2, 3]);
    }
}
