//! What the screen waits on while the loop reads a file for it: a
//! recording opened or two runs compared, with how far the reading has
//! come, and replays moving in their files. The footer says so ("reading
//! recording… 45 MB of 200 MB"); every key still works, and Esc abandons
//! the wait (what the reading comes to is then let go).

use super::App;
use crate::tui::effect::{Effect, Unit};
use std::path::Path;

/// A reading the screen waits on.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Loading {
    /// Which reading: its result and progress carry the same number.
    pub(crate) job: u64,
    /// What is read, as the footer names it ("recording runs/a.jsonl").
    pub(crate) what: String,
    pub(crate) read: u64,
    /// 0 until the first report.
    pub(crate) total: u64,
    pub(crate) unit: Unit,
}

impl Loading {
    /// The footer's line: `reading recording a.jsonl… 45 MB of 200 MB`.
    pub(crate) fn line(&self) -> String {
        let so_far = match (self.unit, self.total) {
            (_, 0) => String::new(),
            (Unit::Bytes, total) => format!(" {} of {}", megabytes(self.read), megabytes(total)),
            (Unit::Events, total) => format!(" {} of {} events", self.read, total),
        };
        format!("reading {}…{so_far} · Esc abandons", self.what)
    }
}

/// `45 MB`, or `0.3 MB` below one.
fn megabytes(bytes: u64) -> String {
    let mb = bytes as f64 / 1_000_000.0;
    if mb < 1.0 {
        format!("{mb:.1} MB")
    } else {
        format!("{mb:.0} MB")
    }
}

impl App {
    /// Wait on a new reading of `what`; its job number.
    pub(super) fn begin_loading(&mut self, what: String) -> u64 {
        self.jobs += 1;
        self.loading = Some(Loading {
            job: self.jobs,
            what,
            read: 0,
            total: 0,
            unit: Unit::Bytes,
        });
        self.jobs
    }

    /// Whether `job` is the reading the screen waits on; it is done
    /// waiting when `finished`.
    pub(super) fn awaited(&mut self, job: u64, finished: bool) -> bool {
        let awaited = self.loading.as_ref().is_some_and(|l| l.job == job);
        if awaited && finished {
            self.loading = None;
        }
        awaited
    }

    /// How far reading `job` has come.
    pub(super) fn progress(&mut self, job: u64, read: u64, total: u64, unit: Unit) {
        if let Some(loading) = self.loading.as_mut().filter(|l| l.job == job) {
            (loading.read, loading.total, loading.unit) = (read, total, unit);
        }
    }

    /// Ask the loop to open the recording at `path` to replay it.
    pub(super) fn open_recording(&mut self, path: &Path) -> Vec<Effect> {
        let what = format!("recording {}", shown(path));
        let job = self.begin_loading(what);
        vec![Effect::OpenRecording {
            job,
            path: path.to_path_buf(),
        }]
    }

    /// What the footer says the screen waits on: a reading, or a replay
    /// moving in its file.
    pub(crate) fn waiting_line(&self) -> Option<String> {
        if let Some(loading) = &self.loading {
            return Some(loading.line());
        }
        let replay = self.run()?.replay.as_ref()?;
        let to = replay.pending?;
        Some(format!(
            "reading the recording to event {to} of {}… · Esc abandons",
            replay.len()
        ))
    }

    /// Esc while the screen waits: stop waiting. Whether it did.
    pub(super) fn abandon(&mut self) -> bool {
        if let Some(loading) = self.loading.take() {
            self.notice = Some(format!("stopped reading {}", loading.what));
            return true;
        }
        let Some(replay) = self.runs.selected_mut().and_then(|s| s.replay.as_mut()) else {
            return false;
        };
        if replay.pending.take().is_none() {
            return false;
        }
        self.notice = Some("the replay stays where it was".into());
        true
    }
}

/// A path as the footer shows it, cleaned of control characters.
fn shown(path: &Path) -> String {
    crate::sanitize::clean(&path.display().to_string()).into_owned()
}
