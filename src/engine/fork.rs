//! A run from a recording: the cassette that serves its calls and a
//! fork's gate; and a fork asked for, made ready to launch: the parent
//! recording read as a cassette, the gate found in it, and the parent's
//! scenario with its seed, flags at launch and goal unless the fork
//! changes them. Every front that forks (`fork --headless`, `fork` in the
//! dashboard, the replay's fork dialog) plans it here, so they launch the
//! same run.

use super::ProviderChoice;
use crate::bus::cassette::ForkedFrom;
use crate::cassette::{Cassette, GateTarget, MissPolicy, OutputEdit};
use crate::control;
use crate::scenario::Scenario;
use std::path::PathBuf;
use std::sync::Arc;

/// A run from a recording: the cassette that serves its calls and, for a
/// fork, where it goes live.
#[derive(Clone, Debug)]
pub struct CassettePlan {
    pub cassette: Arc<Cassette>,
    pub fork: Option<ForkPlan>,
}

/// Two plans are the same when they serve from the same cassette.
impl PartialEq for CassettePlan {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.cassette, &other.cassette) && self.fork == other.fork
    }
}

/// Where a fork goes live and what it changes there (its goal, model and
/// seed are the launch's own options).
#[derive(Clone, Debug, PartialEq)]
pub struct ForkPlan {
    pub at: GateTarget,
    /// Flags set at the gate.
    pub flags: Vec<(String, bool)>,
    /// Recorded outputs the cassette serves changed.
    pub edits: Vec<OutputEdit>,
}

impl CassettePlan {
    /// Every call is served and none can go live: no model, program or
    /// server is set up, and the run keeps the virtual clock.
    pub fn serves_wholly(&self) -> bool {
        self.fork.is_none() && self.cassette.miss() == MissPolicy::Stop
    }

    /// The model of a fork's live part: the parent's provider, model and
    /// endpoint as its recording names them, each unless `asked` names
    /// another (the key is read from the environment, as for any run). A
    /// fork asked for another provider takes nothing of the parent's.
    pub(crate) fn provider_over(&self, asked: &ProviderChoice) -> ProviderChoice {
        let parent = self.cassette.parent().started.model.as_ref();
        let Some(parent) = parent.filter(|_| self.fork.is_some()) else {
            return asked.clone();
        };
        if asked.kind.is_some_and(|kind| kind != parent.provider) {
            return asked.clone();
        }
        ProviderChoice {
            kind: Some(parent.provider),
            model: asked.model.clone().or_else(|| Some(parent.name.clone())),
            base_url: asked.base_url.clone().or_else(|| parent.base_url.clone()),
            ..asked.clone()
        }
    }
}

/// A recorded run to run again from one of its gates, with changes.
#[derive(Clone, Debug, PartialEq)]
pub struct ForkRequest {
    /// The parent's recording.
    pub recording: PathBuf,
    /// The gate, as the replay timeline names it, or an event number.
    pub at: String,
    /// Flags set at the gate.
    pub flags: Vec<(String, bool)>,
    /// The goal of the calls made live, over the parent's.
    pub goal: Option<String>,
    /// The seed of the fork's random choices, over the parent's.
    pub seed: Option<u64>,
    /// Recorded outputs served changed (a graph node's verdict flipped).
    pub edits: Vec<OutputEdit>,
}

/// A fork ready to launch.
#[derive(Clone, Debug)]
pub struct PlannedFork {
    /// The parent's scenario, as its recording holds it.
    pub scenario: Arc<Scenario>,
    pub seed: u64,
    /// The parent's flags at launch: the fork's own changes come at the
    /// gate.
    pub flags: Vec<(String, bool)>,
    pub goal: String,
    /// The gate the fork goes live at.
    pub at: GateTarget,
    pub plan: CassettePlan,
    /// Lines of the recording that could not be read, one each.
    pub problems: Vec<String>,
}

impl ForkRequest {
    /// Read the parent recording and find the gate; what is wrong with
    /// either, in words (a recording made before cassettes says so).
    pub fn plan(&self) -> Result<PlannedFork, String> {
        let shown = || crate::sanitize::clean(&self.recording.display().to_string()).into_owned();
        // Another framework's run is not Conclave's to run again.
        if crate::record::first_start(&self.recording).is_ok_and(|s| s.is_watched()) {
            return Err(format!(
                "{}: a watched run cannot be forked yet: its calls ran in another framework, not in Conclave",
                shown()
            ));
        }
        let (cassette, problems) = Cassette::load(&self.recording).map_err(|e| e.to_string())?;
        let at = GateTarget::resolve(&self.at, &cassette.parent().gates)
            .map_err(|e| format!("{}: {e}", shown()))?;
        let started = cassette.parent().started.clone();
        crate::scenario::recheck(&started.scenario)
            .map_err(|e| format!("{}: its scenario does not hold: {e}", shown()))?;
        // A flag the scenario does not declare is refused as `run`
        // refuses it, not dropped at the gate.
        let declared: Vec<String> = started.scenario.flags.keys().cloned().collect();
        if let Some((name, _)) = self.flags.iter().find(|(name, _)| !declared.contains(name)) {
            return Err(format!(
                "{}: {}",
                shown(),
                crate::control::ControlError::UnknownFlag {
                    name: name.clone(),
                    known: crate::control::known_flags(&declared),
                }
            ));
        }
        let goal_changed = self.goal.as_ref().is_some_and(|goal| *goal != started.goal);
        // Every prompt holds the goal: with another goal the recorded
        // calls are matched by purpose and order alone.
        let cassette = if goal_changed {
            cassette.ignoring_prompts()
        } else {
            cassette
        };
        // An output is edited where it was recorded before the gate: the
        // gate's own event bounds which answer is the node's last.
        let gate_seq = cassette
            .parent()
            .gates
            .iter()
            .find(|(_, gate)| *gate == at)
            .map_or(u64::MAX, |(seq, _)| *seq);
        for edit in &self.edits {
            cassette
                .edit_output(edit, gate_seq)
                .map_err(|e| format!("{}: {e}", shown()))?;
        }
        let plan = CassettePlan {
            cassette: Arc::new(cassette.with_miss(MissPolicy::Stop)),
            fork: Some(ForkPlan {
                at,
                flags: self.flags.clone(),
                edits: self.edits.clone(),
            }),
        };
        Ok(PlannedFork {
            scenario: Arc::clone(&started.scenario),
            seed: self.seed.unwrap_or(started.seed),
            flags: started
                .flags
                .iter()
                .map(|flag| (flag.name.clone(), flag.on))
                .collect(),
            goal: self.goal.clone().unwrap_or(started.goal),
            at,
            plan,
            problems,
        })
    }
}

/// What the run's gate does for its cassette: the recorded run's
/// commands at their gates, and a fork's changes at its own.
pub(super) fn replayed(plan: Option<&CassettePlan>) -> control::Replayed {
    let Some(plan) = plan else {
        return control::Replayed::default();
    };
    let fork = plan.fork.as_ref().map(|fork| control::ForkAt {
        target: fork.at,
        flags: fork.flags.clone(),
        live: plan.cassette.live_switch(),
    });
    control::Replayed::new(plan.cassette.script(), fork)
}

/// A fork's `run_started.forked_from`: its parent's file, run and gate,
/// and the parent's model when the fork's `own` is another.
pub(super) fn forked_from(plan: &CassettePlan, own: &crate::bus::RunModel) -> Option<ForkedFrom> {
    let fork = plan.fork.as_ref()?;
    let parent = plan.cassette.parent();
    let other =
        |model: &&crate::bus::RunModel| (model.provider, &model.name) != (own.provider, &own.name);
    Some(ForkedFrom {
        file: crate::sanitize::clean(&parent.path.display().to_string()).into_owned(),
        run: parent.run,
        gate: fork.at.to_string(),
        model: parent.started.model.as_ref().filter(other).cloned(),
        edited: fork.edits.iter().map(ToString::to_string).collect(),
    })
}

#[cfg(test)]
mod watched_tests {
    use super::*;

    /// A watched run's recording is refused as a watched run, naming the
    /// file, not as a file that is no recording.
    #[test]
    fn a_watched_recording_is_not_forked_and_says_why() {
        let (events, _) = crate::watch::translate::tests::told("pydantic_ai").remove(0);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("watched.jsonl");
        let mut text = String::new();
        for event in &events {
            text.push_str(&serde_json::to_string(event).unwrap());
            text.push('\n');
        }
        std::fs::write(&path, text).unwrap();
        let request = ForkRequest {
            recording: path.clone(),
            at: "1".into(),
            flags: Vec::new(),
            goal: None,
            seed: None,
            edits: Vec::new(),
        };
        let Err(words) = request.plan() else {
            panic!("a watched run forked");
        };
        assert!(
            words.starts_with(&path.display().to_string())
                && words.contains("a watched run cannot be forked yet")
                && !words.contains("not a Conclave recording"),
            "{words}"
        );
    }
}
