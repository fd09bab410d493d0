//! A launched run's recording while its program goes (`watch::journal`),
//! with its endpoint's model calls and refusals besides its spans,
//! decisions and output. At the run's end the whole recording
//! (`recording::write`) takes the journal's place.

use super::gateway::GatewayCalls;
use super::output::OutputLine;
use crate::span::TraceId;
use crate::watch;
use crate::watch::record::Line;
use crate::watch::runs::Run;
use crate::watch::steer::Steering;
use std::path::{Path, PathBuf};

/// Where a launched run is recorded, decided before its id is known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RecordAt {
    /// This file.
    File(PathBuf),
    /// `launch-<run id>.jsonl` in this folder.
    Folder(PathBuf),
}

impl RecordAt {
    /// The recording's path for run `run_id`.
    pub(crate) fn path(&self, run_id: &str) -> PathBuf {
        match self {
            RecordAt::File(path) => path.clone(),
            RecordAt::Folder(dir) => dir.join(format!("launch-{run_id}.jsonl")),
        }
    }
}

/// A launched run's journal (`watch::journal`): its spans, steering
/// decisions and output lines, and the model calls and budget refusals
/// of its endpoint, as the run goes.
pub(super) struct Journal {
    journal: watch::journal::Journal,
    run_id: String,
    calls: usize,
    refused: usize,
}

impl Journal {
    /// Make the recording at `path` (its folder too; a file there already
    /// is refused, as any run's `--record`) and write its first line:
    /// the run (`run_id`, read as `trace`) and how it was `launched`.
    pub(super) fn open(
        path: &Path,
        (run_id, trace): (&str, TraceId),
        launched: Option<serde_json::Value>,
    ) -> std::io::Result<Journal> {
        Ok(Journal {
            journal: watch::journal::Journal::create(path, trace, launched)?,
            run_id: run_id.to_string(),
            calls: 0,
            refused: 0,
        })
    }

    /// Write what came since the last time: the run's new spans, its
    /// steering decisions and the endpoint's calls.
    pub(super) fn catch_up(
        &mut self,
        run: Option<&Run>,
        steering: &Steering,
        gateway: Option<&GatewayCalls>,
    ) {
        let mut lines = Vec::new();
        if let Some(gateway) = gateway {
            for (at_ms, call) in gateway.calls.iter().skip(self.calls) {
                lines.push(Line::ModelCall {
                    at_ms: *at_ms,
                    call: call.clone(),
                });
            }
            self.calls = self.calls.max(gateway.calls.len());
            for (at_ms, spent) in gateway.refused.iter().skip(self.refused) {
                lines.push(Line::ModelCallRefused {
                    at_ms: *at_ms,
                    run: self.run_id.clone(),
                    budget: spent.budget.clone(),
                    message: spent.message.clone(),
                });
            }
            self.refused = self.refused.max(gateway.refused.len());
        }
        self.journal.catch_up(run, Some(steering), lines);
    }

    /// Write an output line, while the journal holds fewer than the lines
    /// a run keeps.
    pub(super) fn output(&mut self, line: &OutputLine) {
        self.journal.output(line);
    }
}
