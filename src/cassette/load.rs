//! A cassette made of a recording: every attempt that reached its tool,
//! with its text as it streamed, the commands the run's control gave at
//! its gates, and the descriptions its MCP servers gave.

use super::GateTarget;
use super::measures::Measures;
use super::{Cassette, MissPolicy, Recorded, RecordedDelta, Shelf};
use crate::bus::cassette::{Answer, RawJson};
use crate::bus::lean::LastCalls;
use crate::bus::{Event, EventKind, GatePoint, RunStarted};
use crate::control::Control;
use crate::record::{RecordingError, read_recording_each};
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
        "{path}: event {seq}: call {call} finished without what it asked and answered: the recording was made by a Conclave older than cassettes; record the run again"
    )]
    NoAnswers { path: String, seq: u64, call: u64 },
}

/// The recorded run a cassette is made of.
#[derive(Clone, Debug)]
pub struct Parent {
    pub path: PathBuf,
    pub run: u32,
    pub started: RunStarted,
    /// The gates the recorded run passed, with the seq of the event that
    /// opened each step, in order: where a fork may go live.
    pub gates: Vec<(u64, GateTarget)>,
}

impl Cassette {
    /// The cassette of the recording at `path`: its run's calls, read one
    /// event at a time (the events are not kept). Lines that cannot be
    /// read are skipped and given back, one line of words each.
    pub fn load(path: &Path) -> Result<(Cassette, Vec<String>), CassetteError> {
        let mut reading = Reading::default();
        let mut failed = None;
        let problems = read_recording_each(path, |event| {
            if failed.is_none()
                && let Err(e) = reading.read(&event, path)
            {
                failed = Some(e);
            }
        })?;
        if let Some(e) = failed {
            return Err(e);
        }
        let problems = problems.iter().map(ToString::to_string).collect();
        Ok((reading.into_cassette(path)?, problems))
    }

    /// The cassette of a recorded run's `events`, read from `path`.
    pub fn of_events(path: &Path, events: &[Arc<Event>]) -> Result<Cassette, CassetteError> {
        let mut reading = Reading::default();
        for event in events {
            reading.read(event, path)?;
        }
        reading.into_cassette(path)
    }
}

/// A recording read into a cassette, one event at a time.
#[derive(Default)]
struct Reading {
    /// The run's id and first event.
    start: Option<(u32, RunStarted)>,
    gates: Vec<(u64, GateTarget)>,
    /// Calls started and not finished: their tool, purpose-less, and the
    /// run time they started at.
    started: HashMap<u64, Duration>,
    deltas: HashMap<u64, Vec<RecordedDelta>>,
    shelves: HashMap<(String, Option<String>), Shelf>,
    script: Vec<(GatePoint, Control)>,
    described: Option<Vec<(String, String)>>,
    measures: Measures,
    /// What each tool's calls asked and answered last, for a short record.
    last_calls: LastCalls,
}

impl Reading {
    fn into_cassette(self, path: &Path) -> Result<Cassette, CassetteError> {
        let Some((run, started)) = self.start else {
            return Err(CassetteError::NoStart { path: shown(path) });
        };
        Ok(Cassette {
            shelves: Mutex::new(self.shelves),
            miss: MissPolicy::Stop,
            live: Arc::new(AtomicBool::new(false)),
            compare_prompts: true,
            script: self.script,
            described: self.described,
            measures: Mutex::new(self.measures),
            missed: Mutex::new(None),
            parent: Parent {
                path: path.to_path_buf(),
                run,
                started,
                gates: self.gates,
            },
        })
    }

    fn read(&mut self, event: &Event, path: &Path) -> Result<(), CassetteError> {
        let at = Duration::from_millis(event.t_ms);
        if let Some(gate) = GateTarget::opened_by(event) {
            self.gates.push(gate);
        }
        self.measures.read(event);
        match &event.kind {
            EventKind::RunStarted(started) if self.start.is_none() => {
                self.start = Some((event.run, started.clone()));
            }
            EventKind::CallStarted { call, .. } => {
                self.started.insert(*call, at);
            }
            EventKind::CallDelta {
                call,
                text,
                reasoning,
                arguments,
            } => {
                let since = at.saturating_sub(self.started.get(call).copied().unwrap_or(at));
                self.deltas.entry(*call).or_default().push(RecordedDelta {
                    at: since,
                    text: text.clone(),
                    reasoning: *reasoning,
                    arguments: *arguments,
                });
            }
            EventKind::CallFinished {
                call,
                tool,
                outcome,
                latency_ms,
                usage,
                reasoning,
                record,
                ..
            } => {
                let Some(record) = record else {
                    return Err(CassetteError::NoAnswers {
                        path: shown(path),
                        seq: event.seq,
                        call: *call,
                    });
                };
                self.started.remove(call);
                let mut record = self.last_calls.fill(tool, record, event.t_ms);
                if let Some(Answer::ScriptedPlan) = record.answer {
                    record.answer = self.scripted_plan();
                }
                let recorded = Recorded {
                    call: *call,
                    seq: event.seq,
                    ended: record.ended_us.map(Duration::from_micros),
                    record,
                    outcome: *outcome,
                    latency: Duration::from_millis(*latency_ms),
                    usage: *usage,
                    reasoning: reasoning.clone(),
                    deltas: self.deltas.remove(call).unwrap_or_default(),
                };
                let key = (tool.clone(), recorded.record.purpose.clone());
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
                Control::SetFlag {
                    name: name.clone(),
                    on: *on,
                },
            )),
            EventKind::HumanDecided {
                choice,
                note,
                gate: Some(gate),
                by,
            } => self.script.push((
                gate.clone(),
                Control::Answer {
                    option: choice.clone(),
                    note: note.clone(),
                    question: None,
                    by: by.unwrap_or(crate::bus::AnsweredBy::Recording),
                },
            )),
            EventKind::ToolsDescribed { tools } => self.described = Some(tools.clone()),
            _ => {}
        }
        Ok(())
    }
}

impl Reading {
    /// The recorded run's scripted plan, which its short records name: a
    /// single object (a list's entries are recorded whole).
    fn scripted_plan(&self) -> Option<Answer> {
        let (_, started) = self.start.as_ref()?;
        let plan = started.scenario.provider.plan.as_ref()?;
        (!plan.is_array()).then(|| Answer::Json(RawJson::from_text(plan.text())))
    }
}

/// `path` as a message shows it.
fn shown(path: &Path) -> String {
    crate::sanitize::clean(&path.display().to_string()).into_owned()
}
