//! What the watch says, taken by the app: a run's events folded into the
//! run its trace is shown as (a new run of the dashboard for a trace's
//! first), finished runs beyond those the watch holds let go, the
//! receiver's counts kept, and the steering's list of hooked runs.

use super::App;
use crate::tui::watching::Watching;
use crate::watch::consume::WatchFeed;
use crate::watch::receive::ReceiverStatus;
use crate::watch::steer::RunView;
use std::sync::Arc;

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
                        self.refresh_held();
                        run
                    }
                };
                self.seat_hooked(run, &events);
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

    /// What the steering holds for every run: whether each new run is
    /// held, and the breakpoints.
    pub fn steering_globals(&mut self, holds_new: bool, breaks: Vec<String>) {
        if let Some(watching) = self.watching.as_mut() {
            watching.holds_new = holds_new;
            watching.breaks = breaks;
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
        self.refresh_held();
        self.offer_decision();
    }

    /// Each watched run's tab: held (`⏸`) while its steering is paused,
    /// a run that came after the last listing too.
    fn refresh_held(&mut self) {
        let Some(steer) = self.watching.as_ref().and_then(|w| w.steer.as_ref()) else {
            return;
        };
        for slot in self.runs.iter_mut() {
            slot.held = slot
                .watched_trace()
                .and_then(|trace| steer.get(&trace))
                .is_some_and(|view| view.paused && view.stopped.is_none());
        }
    }
}

impl App {
    /// A hooked run that started before its first span (its service not
    /// known) is seated as its first span says, once it comes: the header
    /// names its framework and service from then on.
    fn seat_hooked(&mut self, run: crate::bus::RunId, events: &[crate::bus::Event]) {
        let Some(slot) = self.runs.live_mut(run) else {
            return;
        };
        if slot.scenario.name != crate::watch::translate::UNSEATED {
            return;
        }
        let first = events.iter().find_map(|e| match &e.kind {
            crate::bus::EventKind::SpanArrived { span, .. } => span.span().cloned(),
            _ => None,
        });
        if let Some(span) = first.filter(|s| s.service.is_some()) {
            slot.scenario = Arc::new(crate::watch::translate::seat_of(Some(&span)));
        }
    }
}
