//! Reading recordings back, forgivingly: every line that is a Conclave event
//! is kept; a line that is not JSON, an event kind from a newer version, a
//! seq gap or an event of another run is noted with its line number and the
//! reading goes on. Only a file with no event at all is refused.

use crate::bus::{Event, EventKind};
use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::Path;
use std::sync::Arc;

/// A problem in one line of a recording.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{path}:{line}: {message}")]
pub struct RecordingProblem {
    pub path: String,
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
    /// Lines that could not be used, with their line numbers.
    pub problems: Vec<RecordingProblem>,
}

impl Recording {
    /// Whether the run's finish is in the recording (a killed run has none).
    pub fn finished(&self) -> bool {
        self.events
            .last()
            .is_some_and(|e| matches!(e.kind, EventKind::RunFinished { .. }))
    }

    /// The seq of the last event read.
    pub fn last_seq(&self) -> u64 {
        self.events.last().map_or(0, |e| e.seq)
    }

    /// "ends at seq N, no finish event" for a recording cut short.
    pub fn cut_short(&self) -> Option<String> {
        (!self.finished()).then(|| format!("ends at seq {}, no finish event", self.last_seq()))
    }
}

pub fn read_recording(path: &Path) -> Result<Recording, RecordingError> {
    let shown = path.display().to_string();
    let io_error = |source| RecordingError::Io {
        path: shown.clone(),
        source,
    };
    let reader = BufReader::with_capacity(1 << 20, File::open(path).map_err(io_error)?);
    let mut recording = Recording::default();
    let mut lines_seen = false;
    // Unreadable lines since the last event kept.
    let mut unreadable = 0u64;
    let problem = |line: usize, message: String| RecordingProblem {
        path: shown.clone(),
        line,
        message,
    };
    for (index, line) in reader.lines().enumerate() {
        let line = line.map_err(|source| RecordingError::Io {
            path: path.display().to_string(),
            source,
        })?;
        if line.trim().is_empty() {
            continue;
        }
        lines_seen = true;
        let number = index + 1;
        let event = match serde_json::from_str::<Event>(&line) {
            Ok(event) => event,
            Err(e) => {
                let message = match serde_json::from_str::<serde_json::Value>(&line) {
                    Err(_) => format!("not JSON: {e}"),
                    Ok(_) if e.to_string().contains("unknown variant") => {
                        format!("an event kind this version does not know ({e}); skipped")
                    }
                    Ok(_) => format!("not a Conclave event: {e}"),
                };
                recording.problems.push(problem(number, message));
                unreadable += 1;
                continue;
            }
        };
        if let Some(previous) = recording.events.last() {
            if event.run != previous.run {
                recording.problems.push(problem(
                    number,
                    format!(
                        "an event of run {} in a recording of run {}; skipped",
                        event.run, previous.run
                    ),
                ));
                continue;
            }
            if event.seq <= previous.seq {
                recording.problems.push(problem(
                    number,
                    format!(
                        "seq {} after seq {}: out of order; skipped",
                        event.seq, previous.seq
                    ),
                ));
                continue;
            }
            // Lines already reported as unreadable account for their seqs.
            if event.seq > previous.seq + 1 + unreadable {
                recording.problems.push(problem(
                    number,
                    format!(
                        "seq jumps from {} to {}: {} events missing",
                        previous.seq,
                        event.seq,
                        event.seq - previous.seq - 1
                    ),
                ));
            }
        }
        recording.events.push(Arc::new(event));
        unreadable = 0;
    }
    if !lines_seen {
        return Err(RecordingError::Empty { path: shown });
    }
    if recording.events.is_empty() {
        let first = recording.problems.swap_remove(0);
        return Err(RecordingError::NotARecording { problem: first });
    }
    Ok(recording)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(seq: u64, kind: &str) -> String {
        format!(
            "{{\"run\":1,\"seq\":{seq},\"t_ms\":{seq},\"type\":\"flag_changed\",\"name\":\"{kind}\",\"on\":true}}"
        )
    }

    fn read(text: &str) -> Result<Recording, RecordingError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.jsonl");
        std::fs::write(&path, text).unwrap();
        read_recording(&path)
    }

    #[test]
    fn every_problem_is_noted_with_its_line_and_reading_goes_on() {
        let text = [
            line(1, "a"),
            "not json".to_string(),
            "{\"run\":1,\"seq\":2,\"t_ms\":2,\"type\":\"time_travelled\"}".to_string(),
            line(2, "b"),
            line(5, "c"),
            line(5, "again"),
            "{\"run\":2,\"seq\":6,\"t_ms\":6,\"type\":\"resumed\",\"gate\":{\"before\":\"round\",\"round\":1}}".to_string(),
            "{\"run\":1,\"seq\":6,\"t_ms\":6,\"type\":\"flag_cha".to_string(),
        ]
        .join("\n");
        let recording = read(&text).unwrap();
        let seqs: Vec<u64> = recording.events.iter().map(|e| e.seq).collect();
        assert_eq!(seqs, vec![1, 2, 5]);
        let noted: Vec<(usize, &str)> = recording
            .problems
            .iter()
            .map(|p| {
                (
                    p.line,
                    p.message.split([':', '(']).next().unwrap().trim_end(),
                )
            })
            .collect();
        assert_eq!(
            noted,
            vec![
                (2, "not JSON"),
                (3, "an event kind this version does not know"),
                (5, "seq jumps from 2 to 5"),
                (6, "seq 5 after seq 5"),
                (7, "an event of run 2 in a recording of run 1; skipped"),
                (8, "not JSON"),
            ]
        );
        assert_eq!(
            recording.cut_short().as_deref(),
            Some("ends at seq 5, no finish event")
        );
    }

    #[test]
    fn empty_and_foreign_files_are_refused() {
        assert!(matches!(read(""), Err(RecordingError::Empty { .. })));
        assert!(matches!(read("\n  \n"), Err(RecordingError::Empty { .. })));
        let err = read("[1, 2, 3]\n{\"not\": \"an event\"}").unwrap_err();
        assert!(
            err.to_string().contains("r.jsonl:1: not a Conclave event"),
            "{err}"
        );
        assert!(
            err.to_string().contains("not a Conclave recording"),
            "{err}"
        );
    }
}
