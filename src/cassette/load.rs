//! A cassette made of a recording: every attempt that reached its tool,
//! with its text as it streamed, the commands the run's control gave at
//! its gates, and the descriptions its MCP servers gave.

use super::{Cassette, MissPolicy, Recorded, Scripted, Shelf};
use crate::bus::{Event, EventKind, GatePoint, RunStarted};
use crate::record::{RecordingError, read_recording};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Why a recording cannot serve as a cassette.
#[derive(Debug, thiserror::Error)]
pub enum CassetteError {
    #[error(transparent)]
    Read(#[from] RecordingError),
    #[error("{path}: the recording has no run_started event, so no run to serve")]
    NoStart { path: String },
    #[error(
        "{path}:{line}: call {call} finished without what it asked and answered: the recording was made by a Conclave older than cassettes; record the run again"
    )]
    NoAnswers {
        path: String,
        line: usize,
        call: u64,
    },
}

/// The recorded run a cassette is made of.
#[derive(Clone, Debug)]
pub struct Parent {
    pub path: PathBuf,
    pub run: u32,
    pub started: RunStarted,
    /// Every event of the recorded run, in order.
    pub events: Vec<Arc<Event>>,
}

impl Cassette {
    /// The cassette of the recording at `path`: its first run's calls.
    /// Lines that cannot be read are skipped (and reported by `problems`).
    pub fn load(path: &Path) -> Result<(Cassette, Vec<String>), CassetteError> {
        let recording = read_recording(path)?;
        let problems = recording.problems.iter().map(ToString::to_string).collect();
        let cassette = Cassette::of_events(path, recording.events)?;
        Ok((cassette, problems))
    }

    /// The cassette of a recorded run's `events`, read from `path`.
    pub fn of_events(path: &Path, events: Vec<Arc<Event>>) -> Result<Cassette, CassetteError> {
        let shown = crate::sanitize::clean(&path.display().to_string()).into_owned();
        let Some((run, started)) = events.iter().find_map(|event| match &event.kind {
            EventKind::RunStarted(started) => Some((event.run, started.clone())),
            _ => None,
        }) else {
            return Err(CassetteError::NoStart { path: shown });
        };
        let mut reading = Reading::default();
        for event in &events {
            reading.read(event, &shown)?;
        }
        Ok(Cassette {
            shelves: Mutex::new(reading.shelves),
            miss: MissPolicy::Stop,
            live: Arc::new(AtomicBool::new(false)),
            compare_prompts: true,
            script: reading.script,
            described: reading.described,
            missed: Mutex::new(None),
            parent: Parent {
                path: path.to_path_buf(),
                run,
                started,
                events,
            },
        })
    }
}

/// A recording read into a cassette, one event at a time.
#[derive(Default)]
struct Reading {
    /// Calls started and not finished: their tool, purpose-less, and the
    /// run time they started at.
    started: HashMap<u64, Duration>,
    deltas: HashMap<u64, Vec<(Duration, String)>>,
    shelves: HashMap<(String, Option<String>), Shelf>,
    script: Vec<(GatePoint, Scripted)>,
    described: Option<Vec<(String, String)>>,
}

impl Reading {
    fn read(&mut self, event: &Event, shown: &str) -> Result<(), CassetteError> {
        let at = Duration::from_millis(event.t_ms);
        match &event.kind {
            EventKind::CallStarted { call, .. } => {
                self.started.insert(*call, at);
            }
            EventKind::CallDelta { call, text } => {
                let since = at.saturating_sub(self.started.get(call).copied().unwrap_or(at));
                self.deltas
                    .entry(*call)
                    .or_default()
                    .push((since, text.clone()));
            }
            EventKind::CallFinished {
                call,
                tool,
                outcome,
                latency_ms,
                usage,
                record,
                ..
            } => {
                let Some(record) = record else {
                    return Err(CassetteError::NoAnswers {
                        path: shown.to_string(),
                        line: usize::try_from(event.seq).unwrap_or(usize::MAX),
                        call: *call,
                    });
                };
                self.started.remove(call);
                let recorded = Recorded {
                    call: *call,
                    record: (**record).clone(),
                    outcome: *outcome,
                    latency: Duration::from_millis(*latency_ms),
                    ended: record.ended_us.map(Duration::from_micros),
                    usage: *usage,
                    deltas: self.deltas.remove(call).unwrap_or_default(),
                };
                let key = (tool.clone(), record.purpose.clone());
                self.shelves
                    .entry(key)
                    .or_default()
                    .calls
                    .push_back(recorded);
            }
            EventKind::FlagChanged {
                name,
                on,
                gate: Some(gate),
            } => self.script.push((
                gate.clone(),
                Scripted::SetFlag {
                    name: name.clone(),
                    on: *on,
                },
            )),
            EventKind::HumanDecided {
                choice,
                note,
                gate: Some(gate),
            } => self.script.push((
                gate.clone(),
                Scripted::Decide {
                    choice: *choice,
                    note: note.clone(),
                },
            )),
            EventKind::ToolsDescribed { tools } => self.described = Some(tools.clone()),
            _ => {}
        }
        Ok(())
    }
}
