//! A replay forked: `x` opens the dialog at the next gate, so that every
//! step the replay shows is served (←/→ picks any other gate the run
//! passed), with the scenario's flags as they stood there and the answer
//! to the question the fork will meet; Enter launches the fork as a new run, served from the recording
//! up to the gate (the world reads the recording and plans it), and pins
//! the replay. Once the fork has finished and its recording is complete,
//! the loop reads the two recordings and they open side by side at their
//! first divergence.

use super::App;
use super::done::first_line;
use crate::bus::{Event, EventKind, RunId};
use crate::compare;
use crate::engine::ForkRequest;
use crate::tui::effect::{CompareSide, Effect, SideEvents, Started};
use crate::tui::keymap::Action;
use crate::tui::launch::Launch;
use crate::tui::overlays::fork::ForkPrompt;
use crate::tui::runs::Overrides;
use crate::tui::slot::RunSlot;
use crate::tui::view_state::Overlay;
use std::path::PathBuf;
use std::sync::Arc;

/// A fork launched from a replay, waited on to compare it with its
/// parent.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ForkWatch {
    /// The fork's run.
    pub(crate) run: RunId,
    /// The parent's recording.
    pub(crate) parent: PathBuf,
}

/// Why the selected run cannot be forked now, if it cannot (a watched
/// run's replay is asked of its recording: a launched program's forks).
pub(super) fn unforkable(slot: Option<&RunSlot>) -> Option<&'static str> {
    let Some(slot) = slot else {
        return Some("no run");
    };
    let Some(replay) = &slot.replay else {
        return Some("only a replay forks: conclave replay REC, or n to open a recording");
    };
    if slot.recording.is_none() {
        return Some("this replay has no recording file to fork");
    }
    if slot.is_watched() {
        return None;
    }
    if !replay.serves_calls() {
        return Some(
            "this recording keeps no call's question and answer (made before cassettes): record the run again to fork it",
        );
    }
    if !replay.has_gates() {
        return Some("this run passed no gate (a round, wave, turn or step) to fork at");
    }
    None
}

impl App {
    /// `x` in a replay: the fork dialog at the first gate after what the
    /// replay shows (a launched program's: at a model call, once its
    /// recording is read), or the footer says why not.
    pub(crate) fn open_fork(&mut self) -> Vec<Effect> {
        if let Some(why) = unforkable(self.run()) {
            self.notice = Some(why.to_string());
            return Vec::new();
        }
        let Some(slot) = self.run() else {
            return Vec::new();
        };
        let (Some(replay), Some(recording)) = (&slot.replay, &slot.recording) else {
            return Vec::new();
        };
        if slot.is_watched() {
            return vec![Effect::OfferProgramFork {
                recording: recording.clone(),
                at_ms: slot.state.t_ms,
            }];
        }
        let Some(gates) = replay.fork_gates() else {
            return Vec::new();
        };
        let goal = slot
            .state
            .info
            .as_ref()
            .map_or("", |info| info.goal.as_str());
        let may_ask = crate::patterns::questions(&slot.scenario)
            .into_iter()
            .next();
        let prompt = ForkPrompt::new(recording.clone(), gates, goal, may_ask);
        let output = slot.unit.fork_output(&slot.state.pattern, &slot.ui.pattern);
        let prompt = match output {
            Some(output) => prompt.with_output(&output),
            None => prompt,
        };
        self.overlay = Some(Overlay::Fork(Box::new(prompt)));
        Vec::new()
    }

    /// A key of the fork dialog.
    pub(super) fn update_fork(&mut self, action: Action) -> Vec<Effect> {
        let Some(Overlay::Fork(prompt)) = &mut self.overlay else {
            return Vec::new();
        };
        match action {
            Action::Up | Action::Down => prompt.move_by(action == Action::Down),
            Action::Toggle => prompt.toggle(),
            Action::Confirm => return self.confirm_fork(),
            Action::Close => {
                self.overlay = None;
                self.notice = Some("not forked".into());
            }
            _ => {}
        }
        Vec::new()
    }

    /// Enter: launch the fork as a new run (the world plans it from the
    /// recording; a scenario that runs programs asks first, as any).
    fn confirm_fork(&mut self) -> Vec<Effect> {
        let Some(Overlay::Fork(prompt)) = self.overlay.take() else {
            return Vec::new();
        };
        let edits = match prompt.edits() {
            Ok(edits) => edits,
            Err(words) => {
                self.notice = Some(words);
                self.overlay = Some(Overlay::Fork(prompt));
                return Vec::new();
            }
        };
        let Some(slot) = self.run() else {
            return Vec::new();
        };
        let source = Some(prompt.recording.display().to_string());
        let mut launch = Launch::of(Arc::clone(&slot.scenario), source, Overrides::default());
        launch.fork = Some(ForkRequest {
            recording: prompt.recording.clone(),
            at: prompt.gate.to_string(),
            flags: prompt.changed_flags(),
            goal: prompt.changed_goal(),
            seed: None,
            edits,
        });
        launch.model = prompt.model();
        launch.answer = prompt.given_answer();
        self.notice = Some(format!("forking at {}…", prompt.gate));
        self.start(launch)
    }

    /// A fork started: its parent's replay is pinned, and the fork watched
    /// until it finishes.
    pub(super) fn fork_started(&mut self, started: &Started) {
        let Some(parent) = &started.forked_from else {
            return;
        };
        let replay = self
            .runs
            .iter()
            .position(|slot| slot.replay.is_some() && slot.recording.as_ref() == Some(parent));
        if let Some(index) = replay {
            self.runs.pin(index);
        }
        self.fork_watch = Some(ForkWatch {
            run: started.run,
            parent: parent.clone(),
        });
        self.notice = Some(format!(
            "run {} forked: its parent is pinned, and they are compared when it finishes",
            started.run
        ));
    }

    /// After `event` was folded: a watched fork that finished is compared
    /// with its parent once its recording is complete (at once when it
    /// records nothing).
    pub(super) fn follow_fork(&mut self, event: &Event) {
        let Some(watch) = &self.fork_watch else {
            return;
        };
        if event.run != watch.run || !matches!(event.kind, EventKind::RunFinished { .. }) {
            return;
        }
        let Some(slot) = self
            .runs
            .iter()
            .find(|s| s.replay.is_none() && s.state.run == watch.run)
        else {
            return;
        };
        if slot.recording.is_some() {
            self.queued.push(Effect::AwaitRecording { run: watch.run });
        } else {
            self.compare_fork(None);
        }
    }

    /// Run `run`'s recording is complete (or failed, `failed` says why):
    /// the watched fork is compared with its parent.
    pub(super) fn recorded(&mut self, run: RunId, failed: Option<String>) {
        if self.fork_watch.as_ref().is_none_or(|w| w.run != run) {
            return;
        }
        if let Some(why) = failed {
            self.fork_watch = None;
            self.notice = Some(first_line(&format!("the fork's recording failed: {why}")));
            return;
        }
        let recording = self
            .runs
            .iter()
            .find(|s| s.replay.is_none() && s.state.run == run)
            .and_then(|s| s.recording.clone());
        self.compare_fork(recording);
    }

    /// The parent's recording side by side with the fork's (its recording,
    /// or its events when it records none).
    fn compare_fork(&mut self, recording: Option<PathBuf>) {
        let Some(watch) = self.fork_watch.take() else {
            return;
        };
        // What the user has open stays open: the parent is pinned, and `c`
        // on the fork compares them.
        if self.overlay.is_some() {
            self.notice = Some(format!(
                "run {} finished: c compares it with its parent (pinned)",
                watch.run
            ));
            return;
        }
        match fork_sides(self, &watch, recording) {
            Ok((parent, fork)) => {
                let effects = self.compare(parent, fork);
                self.queued.extend(effects);
            }
            Err(why) => self.notice = Some(first_line(&why)),
        }
    }
}

/// The sides of the comparison of the fork `watch` names with its
/// parent, both to be read from their recordings; the fork without one by
/// its events.
fn fork_sides(
    app: &App,
    watch: &ForkWatch,
    recording: Option<PathBuf>,
) -> Result<(CompareSide, CompareSide), String> {
    let label = |path: &PathBuf| crate::sanitize::clean(&path.display().to_string()).into_owned();
    let fork = match &recording {
        Some(path) => CompareSide {
            label: label(path),
            events: SideEvents::File(path.clone()),
        },
        None => {
            let slot = app
                .runs
                .iter()
                .find(|s| s.replay.is_none() && s.state.run == watch.run)
                .ok_or("the fork's run is gone")?;
            CompareSide {
                label: compare::run_label(slot.state.run, &slot.scenario.name),
                events: SideEvents::Held(slot.state.log.events.iter().cloned().collect()),
            }
        }
    };
    let parent = CompareSide {
        label: label(&watch.parent),
        events: SideEvents::File(watch.parent.clone()),
    };
    Ok((parent, fork))
}
