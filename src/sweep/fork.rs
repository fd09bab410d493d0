//! Sweeps from a point: every run of the sweep is a fork of one recorded
//! run at one of its gates, served from the recording up to the gate and
//! live from there with the job's seed and the job's flags set at the
//! gate. The recording is read once; each run gets a cassette of its own
//! (a cassette is spent as it serves).

use crate::bus::Event;
use crate::bus::cassette::ForkedFrom;
use crate::cassette::{Cassette, GateTarget, MissPolicy};
use crate::engine::{CassettePlan, ForkPlan};
use crate::record::parse_recording;
use crate::scenario::Scenario;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The recorded run a sweep forks, and the gate every fork goes live at.
#[derive(Debug)]
pub struct SweepFork {
    path: PathBuf,
    events: Vec<Arc<Event>>,
    at: GateTarget,
    run: u32,
    scenario: Arc<Scenario>,
    goal: String,
    /// The parent's flags at its launch: each fork starts with them and
    /// sets the job's flags at the gate.
    flags: Vec<(String, bool)>,
    /// The recording's exact text, for jobs that run on other machines.
    text: Option<String>,
    /// Lines of the recording that could not be read, in words.
    problems: Vec<String>,
}

impl SweepFork {
    /// The recording at `path`, forked at `at`; the error is the message to
    /// print before exiting 2, naming the file and what was expected.
    pub fn load(path: &Path, at: &str) -> Result<SweepFork, String> {
        let shown = crate::sanitize::clean(&path.display().to_string()).into_owned();
        let text = std::fs::read_to_string(path).map_err(|e| {
            format!("{shown}: cannot read the recording to sweep from ({e}); expected a JSONL recording made with --record or the dashboard")
        })?;
        let shown_text = text.clone();
        let mut fork = SweepFork::of_text(path, text, at)?;
        fork.text = Some(shown_text);
        // Lines that cannot be read are skipped, and said, as fork says them.
        for problem in std::mem::take(&mut fork.problems) {
            crate::output::message(&problem);
        }
        Ok(fork)
    }

    /// The recording whose text is `text` (read from `path` on the sweep's
    /// machine), forked at `at`.
    pub fn of_text(path: &Path, text: String, at: &str) -> Result<SweepFork, String> {
        let shown = crate::sanitize::clean(&path.display().to_string()).into_owned();
        let recording =
            parse_recording(std::io::Cursor::new(text), &shown).map_err(|e| e.to_string())?;
        let problems = recording.problems.iter().map(ToString::to_string).collect();
        // Read as a cassette once, so that a recording that cannot serve
        // (no run, calls without what they answered) is refused up front.
        let cassette = Cassette::of_events(path, &recording.events).map_err(|e| e.to_string())?;
        let parent = cassette.parent();
        let at = GateTarget::resolve(at, &parent.gates).map_err(|e| format!("{shown}: {e}"))?;
        crate::scenario::recheck(&parent.started.scenario)
            .map_err(|e| format!("{shown}: its scenario does not hold: {e}"))?;
        Ok(SweepFork {
            path: path.to_path_buf(),
            at,
            run: parent.run,
            scenario: Arc::clone(&parent.started.scenario),
            goal: parent.started.goal.clone(),
            flags: parent
                .started
                .flags
                .iter()
                .map(|flag| (flag.name.clone(), flag.on))
                .collect(),
            events: recording.events,
            text: None,
            problems,
        })
    }

    /// The scenario the recorded run ran, which every fork runs.
    pub fn scenario(&self) -> &Arc<Scenario> {
        &self.scenario
    }

    /// The recorded run's goal, which every fork keeps.
    pub fn goal(&self) -> &str {
        &self.goal
    }

    /// The recorded run's flags at its launch.
    pub fn launch_flags(&self) -> &[(String, bool)] {
        &self.flags
    }

    /// The recording's exact text, when it was read from a file here.
    pub fn text(&self) -> Option<&str> {
        self.text.as_deref()
    }

    /// The recording as its forks name it.
    pub fn source(&self) -> String {
        crate::sanitize::clean(&self.path.display().to_string()).into_owned()
    }

    /// The gate, as `--at` would name it again.
    pub fn gate(&self) -> GateTarget {
        self.at
    }

    /// What each fork's `run_started.forked_from` says.
    pub fn forked_from(&self) -> ForkedFrom {
        ForkedFrom {
            file: self.source(),
            run: self.run,
            gate: self.at.to_string(),
            model: None,
            edited: Vec::new(),
        }
    }

    /// The `"from"` of the sweep's document.
    pub fn document(&self) -> serde_json::Value {
        let from = self.forked_from();
        serde_json::json!({"file": from.file, "run": from.run, "gate": from.gate})
    }

    /// A fresh cassette of the recording for one run, going live at the
    /// gate with `flags` set there.
    pub fn plan(&self, flags: &[(String, bool)]) -> Result<CassettePlan, String> {
        let cassette = Cassette::of_events(&self.path, &self.events)
            .map_err(|e| e.to_string())?
            .with_miss(MissPolicy::Stop);
        Ok(CassettePlan {
            cassette: Arc::new(cassette),
            fork: Some(ForkPlan {
                at: self.at,
                flags: flags.to_vec(),
                edits: Vec::new(),
            }),
        })
    }
}
