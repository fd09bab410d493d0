//! Other frameworks' runs on the dashboard (`conclave watch`): the watch
//! tells each run it receives as the bus's events, and each becomes a run
//! of the dashboard like a launched or an attached one, with the same
//! panes, keys, tabs, help and footer. What only the watch has is kept
//! here: where it listens, what its receiver counted (shown in the footer
//! and, when something went wrong, in the attention line), which run each
//! trace is shown as, and how the watch's steering lists each hooked run
//! (`app::steer` acts on it).

use super::app::App;
use crate::bus::RunId;
use crate::watch::consume::WatchFeed;
use crate::watch::receive::ReceiverStatus;
use crate::watch::span::TraceId;
use crate::watch::steer::RunView;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// What the dashboard knows of the watch besides its runs.
#[derive(Debug, Default)]
pub(crate) struct Watching {
    /// Where the receiver listens, said while no run came.
    pub(crate) listening: String,
    /// The receiver's counts as last read, each forward target's with them.
    pub(crate) status: ReceiverStatus,
    /// Spans dropped for want of room, and spans that came for a run
    /// already finished, so far.
    pub(crate) dropped: u64,
    pub(crate) late: u64,
    /// The last problem the watch reported (a run not recorded).
    pub(crate) problem: Option<String>,
    /// The dashboard's run each trace is shown as, while it is going.
    pub(crate) shown_as: HashMap<TraceId, RunId>,
    /// How many finished watched runs are kept on the dashboard: the
    /// oldest finished one makes room beyond it.
    pub(crate) keep: usize,
    /// Each hooked run as the watch's steering last listed it; `None`
    /// when the watch steers nothing.
    pub(crate) steer: Option<HashMap<TraceId, RunView>>,
    /// Decisions the person put off (Esc): not offered again until `d`.
    pub(crate) put_off: HashSet<u64>,
}

impl Watching {
    pub(crate) fn new(listening: String, keep: usize, steered: bool) -> Watching {
        Watching {
            listening,
            keep: keep.max(1),
            steer: steered.then(HashMap::new),
            ..Watching::default()
        }
    }

    /// The warnings the attention line carries: spans dropped, a run not
    /// recorded, forwards that failed (with their targets).
    pub(crate) fn warnings(&self) -> Vec<String> {
        let mut said = Vec::new();
        if self.dropped > 0 {
            said.push(format!(
                "⚠ {} spans dropped: every run held waits for its root",
                self.dropped
            ));
        }
        if let Some(problem) = &self.problem {
            said.push(format!("⚠ {problem}"));
        }
        for f in &self.status.forwards {
            if f.failed + f.dropped > 0 {
                let mut words = format!(
                    "⚠ forward to {}: {} failed, {} dropped",
                    f.target, f.failed, f.dropped
                );
                if let Some(why) = &f.last_failure {
                    words.push_str(&format!(" (last: {why})"));
                }
                said.push(words);
            }
        }
        said
    }

    /// The counts in a few words, for the footer.
    pub(crate) fn counts(&self) -> String {
        let c = &self.status.counts;
        let mut words = format!(
            "watch: {} spans in {} requests · refused {} · rejected {}",
            c.spans_accepted,
            c.requests_accepted,
            c.refused_total(),
            c.spans_rejected
        );
        if !self.status.forwards.is_empty() {
            words.push_str(&format!(" · forwarded {}", c.forward_sent));
        }
        if self.late > 0 {
            words.push_str(&format!(" · {} late spans", self.late));
        }
        words
    }

    /// The hooked run `trace` as last listed.
    pub(crate) fn view(&self, trace: TraceId) -> Option<&RunView> {
        self.steer.as_ref()?.get(&trace)
    }
}

impl App {
    /// Watch other frameworks' runs: they come as [`WatchFeed`]s.
    pub fn watching(&mut self, listening: String, keep: usize, steered: bool) {
        self.watching = Some(Watching::new(listening, keep, steered));
    }

    /// One thing the watch said: a run's events folded into the run it is
    /// shown as (a new run for a trace's first), counts kept.
    pub fn take_watch(&mut self, feed: WatchFeed) {
        let Some(watching) = self.watching.as_mut() else {
            return;
        };
        match feed {
            WatchFeed::Told { run: trace, events } => {
                let shown = watching.shown_as.get(&trace).copied();
                let run = match shown {
                    Some(run) => run,
                    // A trace's first events start its run.
                    None => {
                        let Some(crate::bus::EventKind::RunStarted(started)) =
                            events.first().map(|e| &e.kind)
                        else {
                            return;
                        };
                        let scenario = Arc::clone(&started.scenario);
                        let run = self.runs.open_watched(trace, scenario);
                        watching.shown_as.insert(trace, run);
                        run
                    }
                };
                let mut ended = false;
                for mut event in events {
                    ended |= matches!(event.kind, crate::bus::EventKind::RunFinished { .. });
                    event.run = run;
                    self.apply(Arc::new(event));
                }
                if ended {
                    let keep = self.watching.as_ref().map_or(1, |w| w.keep);
                    if let Some(watching) = self.watching.as_mut() {
                        watching.shown_as.remove(&trace);
                    }
                    self.runs.let_go_of_watched(keep);
                }
            }
            WatchFeed::Problem(problem) => watching.problem = Some(problem),
            WatchFeed::Dropped(total) => watching.dropped = total,
            WatchFeed::Late(total) => watching.late = total,
            WatchFeed::Opened(_) | WatchFeed::Finished(_) => {}
        }
    }

    /// The receiver's counts, read now; whether they changed.
    pub fn watch_status(&mut self, status: ReceiverStatus) -> bool {
        match self.watching.as_mut() {
            Some(watching) if watching.status != status => {
                watching.status = status;
                true
            }
            _ => false,
        }
    }

    /// The watch's hooked runs, as its steering lists them now: the
    /// dialog for a new approval or question of the run on screen opens.
    pub fn steering_listed(&mut self, views: Vec<RunView>) {
        let Some(steer) = self.watching.as_mut().and_then(|w| w.steer.as_mut()) else {
            return;
        };
        steer.clear();
        for view in views {
            if let Ok(trace) = u128::from_str_radix(&view.trace_id, 16) {
                steer.insert(trace, view);
            }
        }
        self.offer_decision();
    }
}

/// The dashboard of `conclave watch` without a terminal of its own: what
/// it folds of the watch and draws, for a caller that owns the frames
/// (the bench draws it while a million spans arrive).
pub struct Offscreen {
    app: App,
}

impl Offscreen {
    pub fn new(limits: crate::watch::runs::Limits) -> Offscreen {
        let mut app = App::new(super::app::AppOptions::default());
        app.watching("offscreen".into(), limits.max_runs, false);
        Offscreen { app }
    }

    /// Take one thing the watch said.
    pub fn take(&mut self, item: WatchFeed) {
        self.app.take_watch(item);
    }

    /// Draw the whole screen into `frame`, as the dashboard does.
    pub fn draw(&mut self, frame: &mut ratatui::Frame) {
        self.app.screen = frame.area();
        super::view::draw(frame, &self.app);
    }
}
