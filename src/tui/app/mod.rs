//! The dashboard's one place that decides: it holds the runs, the focus,
//! the overlays and the footer's notice, turns keys into actions and
//! actions into changes. It starts nothing itself and holds no engine:
//! launching a run, sending a control, opening a recording, writing a file
//! and remembering an allowance are effects `update` returns and the loop
//! carries out, telling the app what came of them. It touches no file:
//! the picker's folders, recordings to replay or compare and replays'
//! moves in their files are read by the loop, and come back as messages
//! (see `loading`). Drawing reads it and never changes it.

mod areas;
mod compare;
mod control;
mod decide;
mod done;
mod export;
mod fork;
mod input;
mod loading;
mod program;
mod program_fork;
mod remote;
mod restart;
mod search;
mod steer;
mod sweep;
mod update;
mod watch;
mod zoom;

use super::catalog::{self, Entry};
use super::effect::Effect;
use super::keymap::PaneId;
use super::overlays::picker::PickerView;
pub(crate) use super::runs::Launch;
pub use super::runs::Overrides;
use super::runs::Runs;
use super::slot::RunSlot;
use super::state::Activity;
use super::view_state::{Overlay, TrustPrompt};
use crate::bus::Event;
use crate::scenario::Scenario;
pub(crate) use loading::Loading;
use ratatui::layout::Rect;
use std::path::PathBuf;
use std::sync::Arc;

/// How the dashboard was started, as far as its decisions go (how runs
/// are launched is the loop's: see `LaunchSettings`).
#[derive(Clone, Debug, Default)]
pub struct AppOptions {
    /// Where the picker looks for recordings to replay.
    pub recordings_dir: Option<PathBuf>,
    /// Where the picker looks for scenarios.
    pub scenarios_dir: PathBuf,
    /// How the screen looks: the theme and whether colour is allowed.
    pub theme: super::theme::Theme,
    /// `--allow-exec`: every scenario's programs may run.
    pub allow_exec: bool,
    /// Where allowances to run a scenario's programs are remembered.
    pub trust: crate::trust::TrustStore,
    /// `conclave attach`: the picker lists the live runs of other engines.
    pub attach: bool,
}

/// The smallest screen the dashboard is drawn for: what pages are
/// measured on until the first frame is drawn.
const SMALLEST: Rect = Rect {
    x: 0,
    y: 0,
    width: 80,
    height: 24,
};

pub struct App {
    pub(crate) options: AppOptions,
    pub catalog: Vec<Entry>,
    pub runs: Runs,
    pub focus: PaneId,
    pub overlay: Option<Overlay>,
    /// A short note for the footer (a launch error, an unavailable key).
    pub notice: Option<String>,
    /// `r` was pressed once on this live run: a second `r` cancels it and
    /// starts it anew, any other key keeps it.
    pub(crate) restart_asked: Option<crate::bus::RunId>,
    /// The run list's search, highlighted in its tabs.
    pub(crate) runs_search: Option<String>,
    /// The focused pane fills the screen (the runs bar never does).
    pub zoomed: bool,
    /// The terminal's size at the last frame: what scrolling a pane
    /// measures against, and how tall a page of it is.
    pub screen: Rect,
    /// The sweep `conclave sweep` started, shown by `S`.
    pub(crate) sweep: Option<super::sweep::SweepState>,
    /// The seed of the sweep's run being run again to be replayed.
    pub(crate) sweep_replay: Option<u64>,
    /// A fork launched from a replay, to compare with its parent when it
    /// finishes.
    pub(crate) fork_watch: Option<fork::ForkWatch>,
    /// Effects decided on an event rather than on input, for the loop to
    /// carry out.
    pub(crate) queued: Vec<Effect>,
    /// The reading the screen waits on, with its progress.
    pub(crate) loading: Option<Loading>,
    /// The last reading's job number.
    pub(crate) jobs: u64,
    /// The picker's folders are being scanned.
    pub(crate) scanning: bool,
    /// Other frameworks' runs come from `conclave watch`.
    pub(crate) watching: Option<super::watching::Watching>,
}

impl App {
    /// The app, with nothing read yet: the picker's entries come when it
    /// opens.
    pub fn new(options: AppOptions) -> Self {
        App {
            options,
            catalog: Vec::new(),
            runs: Runs::default(),
            focus: PaneId::Pattern,
            overlay: None,
            notice: None,
            restart_asked: None,
            runs_search: None,
            zoomed: false,
            screen: SMALLEST,
            sweep: None,
            sweep_replay: None,
            fork_watch: None,
            queued: Vec::new(),
            loading: None,
            jobs: 0,
            scanning: false,
            watching: None,
        }
    }

    /// Rows inside `pane`'s border on the last frame's screen: a page of
    /// it.
    pub(super) fn page(&self, pane: PaneId) -> usize {
        let area = self.areas(self.screen).pane(pane);
        usize::from(area.height.saturating_sub(2)).max(1)
    }

    /// Whether quitting would cancel a run an engine still drives.
    pub fn live_runs(&self) -> bool {
        self.runs
            .iter()
            .any(|slot| slot.has_local_engine() && slot.is_live())
    }

    /// The selected run.
    pub fn run(&self) -> Option<&RunSlot> {
        self.runs.selected()
    }

    fn run_mut(&mut self) -> Option<&mut RunSlot> {
        self.runs.selected_mut()
    }

    /// Open the picker on the entries listed last, and ask the loop to
    /// scan its folders again (attached, the live runs are asked for).
    pub fn open_picker(&mut self) -> Vec<Effect> {
        if self.options.attach {
            self.open_remote_picker();
            return Vec::new();
        }
        self.overlay = Some(Overlay::Picker(PickerView::new(catalog::default_index(
            &self.catalog,
        ))));
        self.scanning = true;
        vec![Effect::ScanCatalog {
            scenarios: self.options.scenarios_dir.clone(),
            recordings: self.options.recordings_dir.clone(),
        }]
    }

    /// The picker's folders scanned: its entries, the selection where it
    /// starts unless the user narrowed the list meanwhile.
    pub(super) fn scanned(&mut self, entries: Vec<Entry>) {
        self.scanning = false;
        if self.options.attach {
            return;
        }
        self.catalog = entries;
        if let Some(Overlay::Picker(picker)) = &mut self.overlay
            && picker.filter.is_empty()
        {
            *picker = PickerView::new(catalog::default_index(&self.catalog));
        }
    }

    /// An event from the bus.
    pub fn apply(&mut self, event: Arc<Event>) {
        self.runs.apply(Arc::clone(&event));
        self.follow_question(&event);
        self.follow_fork(&event);
        // A stop that happens in view is seen as it happens.
        self.runs.acknowledge_shown();
    }

    /// What the app decided on the events folded since, for the loop to
    /// carry out.
    pub fn take_queued(&mut self) -> Vec<Effect> {
        std::mem::take(&mut self.queued)
    }

    /// The hub dropped `n` events for this viewer.
    pub(crate) fn missed(&mut self, n: u64) {
        self.runs.missed(n);
    }

    /// Launch `scenario` as a new run, selected once it started; a
    /// scenario that runs programs nobody allowed yet asks first.
    pub fn launch(&mut self, scenario: Arc<Scenario>, source: Option<String>) -> Vec<Effect> {
        self.launch_with(scenario, source, Overrides::default())
    }

    /// Launch a program scenario as a new run (docs/launch.md): the
    /// picker's Enter on it, and `conclave run app.json`.
    pub(crate) fn launch_program(
        &mut self,
        program: Arc<crate::launch::LoadedProgram>,
    ) -> Vec<Effect> {
        self.overlay = None;
        vec![Effect::LaunchProgram {
            run: self.runs.next_run(),
            program,
        }]
    }

    /// Launch with a seed, flags, goal or recording file other than the
    /// scenario's.
    pub(crate) fn launch_with(
        &mut self,
        scenario: Arc<Scenario>,
        source: Option<String>,
        overrides: Overrides,
    ) -> Vec<Effect> {
        self.start(Launch::of(scenario, source, overrides))
    }

    /// `launch`, allowed to run its programs when it has any and the user
    /// allowed them (`--allow-exec`, or before for this file where it is
    /// with every program it runs as it is now); else `None`, with the
    /// confirmation open that lists them and what changed since.
    pub(crate) fn allowed(&mut self, mut launch: Launch) -> Option<Launch> {
        if launch.allow_exec {
            return Some(launch);
        }
        let Some(consent) = crate::trust::consent_for(&launch.scenario) else {
            return Some(launch);
        };
        if self.options.allow_exec || self.options.trust.allowed(&consent) {
            launch.allow_exec = true;
            return Some(launch);
        }
        let changes = self.options.trust.changes(&consent);
        self.overlay = Some(Overlay::Trust(Box::new(TrustPrompt {
            launch,
            consent,
            changes,
        })));
        None
    }

    /// The user answered the confirmation: `yes` remembers the allowance
    /// and launches; anything else launches nothing. What runs is read
    /// again first: if it changed while the question was open, the
    /// question is asked again about what is there now.
    pub(super) fn answer_trust(&mut self, yes: bool) -> Vec<Effect> {
        let Some(Overlay::Trust(prompt)) = self.overlay.take() else {
            return Vec::new();
        };
        let TrustPrompt {
            mut launch,
            consent,
            ..
        } = *prompt;
        if !yes {
            self.notice = Some(format!("{} was not run", launch.scenario.name));
            return Vec::new();
        }
        if let Some(now) = crate::trust::consent_for(&launch.scenario)
            && now.cover != consent.cover
        {
            let changes = crate::trust::changed_while_asked(&consent.cover, &now.cover);
            self.overlay = Some(Overlay::Trust(Box::new(TrustPrompt {
                launch,
                consent: now,
                changes,
            })));
            return Vec::new();
        }
        launch.allow_exec = true;
        vec![
            Effect::RememberTrust {
                store: self.options.trust.clone(),
                consent,
            },
            Effect::Launch {
                run: self.runs.next_run(),
                launch,
            },
        ]
    }

    /// Start `launch` as a new run; a scenario that runs programs nobody
    /// allowed yet asks first.
    pub(super) fn start(&mut self, launch: Launch) -> Vec<Effect> {
        match self.allowed(launch) {
            Some(launch) => vec![Effect::Launch {
                run: self.runs.next_run(),
                launch,
            }],
            None => Vec::new(),
        }
    }

    /// Show a run from its events alone (see `Runs::add_from_events`).
    pub fn add_from_events(
        &mut self,
        events: &[Arc<Event>],
        source: Option<String>,
    ) -> Option<usize> {
        self.runs.add_from_events(events, source)
    }

    /// Show a recording read as a replay, selected.
    pub(crate) fn show_replay(&mut self, opened: super::recording::Opened) {
        self.runs.add_replay(opened);
        self.focus = PaneId::Pattern;
    }

    /// Whether a redraw is due without new input: a live run's clock moves.
    pub(crate) fn animating(&self) -> bool {
        self.runs
            .iter()
            .any(|s| s.is_live() && !matches!(s.state.activity, Activity::Paused { .. }))
    }
}

#[cfg(test)]
mod effects_tests;
#[cfg(test)]
mod fork_gate_tests;
#[cfg(test)]
pub(crate) mod fork_tests;
#[cfg(test)]
mod loading_tests;
#[cfg(test)]
mod program_fork_tests;
#[cfg(test)]
mod restart_tests;
#[cfg(test)]
pub(crate) mod tests;
