//! Run assembly: one trace is one run, which appears at its first span
//! and is finished when its top span has arrived (spans arrive ended; a
//! top has no parent, or a remote one) and nothing more came for the
//! settle time. A run whose top never comes (a killed process) ends as
//! incomplete once idle for the idle bound, or when the watch stops.
//! Bounded: at most `max_runs` runs are held (the oldest finished one is
//! closed to make room; when none is finished, the watch finishes the
//! oldest runs ahead of time, those whose top came first, see
//! [`Runs::room_wanted`]: a new trace is never dropped to keep a run that
//! may never end) and at most `max_spans` spans per run. Time is handed
//! in (`now`), never read, so the assembly runs the same on a paused clock.

use super::forest::{Forest, Inserted};
use super::read::{Readings, read};
use crate::span::{Span, SpanId, TraceId};
use std::collections::{HashMap, HashSet, VecDeque};
use tokio::time::Instant;

pub(crate) use super::run::Came;
pub use super::run::{
    Arrival, DEFAULT_IDLE_SECS, DEFAULT_MAX_RUNS, DEFAULT_MAX_SPANS, DEFAULT_SETTLE_MS, Incomplete,
    Limits, Run,
};

/// Every run being watched.
#[derive(Debug, Default)]
pub struct Runs {
    limits: Limits,
    runs: HashMap<TraceId, Run>,
    /// Run ids, oldest first.
    order: VecDeque<TraceId>,
    /// Spans dropped because no run could be held for them.
    pub dropped_spans: u64,
    /// Spans that came for a run already finished (not kept).
    pub late_spans: u64,
    /// Keep every run's arrivals (its recording writes them); a watch
    /// that records nothing keeps none.
    pub(crate) keep_arrivals: bool,
}

impl Runs {
    pub fn new(limits: Limits) -> Runs {
        Runs {
            limits,
            keep_arrivals: true,
            ..Runs::default()
        }
    }

    /// Take in one batch's spans at `now`; the runs that appeared.
    /// A span whose parent comes in the same batch (a child sent in the
    /// same request as its parent) does not hang under a placeholder.
    #[cfg(test)]
    pub(crate) fn accept(&mut self, spans: Vec<Span>, now: Instant) -> Vec<TraceId> {
        self.accept_read(spans, now, None)
    }

    /// [`Runs::accept`], each kept span's arrival handed to `told` with
    /// its run, in arrival order: a span is read once, here, its reading
    /// kept in its run, and the watch's telling of it as events and the
    /// run's summary at its end use the same reading.
    pub(crate) fn accept_read(
        &mut self,
        spans: Vec<Span>,
        now: Instant,
        mut told: Option<&mut Vec<(TraceId, Came)>>,
    ) -> Vec<TraceId> {
        let mut opened = Vec::new();
        let in_batch: HashSet<(TraceId, SpanId)> =
            spans.iter().map(|s| (s.trace_id, s.span_id)).collect();
        for span in spans {
            let Some(id) = self.run_for(&span, now, &mut opened) else {
                self.dropped_spans += 1;
                continue;
            };
            let run = self.runs.get_mut(&id).expect("run_for returns a held run");
            if run.finished {
                self.late_spans += 1;
                continue;
            }
            let id_of_span = span.span_id;
            let reading = Box::new(read(&span));
            if run.conversation.is_none() {
                run.conversation = reading.conversation.clone();
            }
            let under_placeholder = span.parent.is_some_and(|p| {
                run.forest.get(p).is_none_or(|n| n.span.is_none())
                    && !in_batch.contains(&(span.trace_id, p))
            });
            let came = Came {
                span: span.span_id,
                at_ms: ms_between(run.first_at, now),
                under_placeholder,
            };
            // The span as it came, for the recording (the forest may cut
            // a circle through it); a watch that records keeps them.
            let arrival = self.keep_arrivals.then(|| Arrival {
                at_ms: came.at_ms,
                span: span.clone(),
                kind: reading.kind(),
                under_placeholder,
            });
            let kept = matches!(
                run.forest.insert(span),
                Inserted::Kept | Inserted::CutCircle
            );
            run.last_at = now;
            if !kept {
                continue;
            }
            run.arrivals.extend(arrival);
            run.readings.insert(id_of_span, reading);
            if let Some(told) = told.as_deref_mut() {
                told.push((id, came));
            }
        }
        opened
    }

    /// How many held runs must be let go for the new traces among `spans`
    /// to be held: those beyond the free places and the finished runs
    /// that can be closed.
    pub(crate) fn room_wanted(&self, spans: &[Span]) -> usize {
        let mut new: Vec<TraceId> = spans
            .iter()
            .map(|s| s.trace_id)
            .filter(|id| !self.runs.contains_key(id))
            .collect();
        new.sort_unstable();
        new.dedup();
        let finished = self.runs.values().filter(|r| r.finished).count();
        let free = self.limits.max_runs.max(1).saturating_sub(self.runs.len()) + finished;
        new.len().saturating_sub(free)
    }

    /// Finish up to `n` of the oldest runs ahead of time (a span of
    /// theirs that comes later is counted late): first those whose top
    /// has arrived, then, when that is not enough, those still waiting
    /// for it, as incomplete; their ids.
    pub fn finish_early(&mut self, n: usize) -> Vec<TraceId> {
        let mut done = Vec::new();
        for rooted in [true, false] {
            for id in &self.order {
                if done.len() == n {
                    return done;
                }
                if let Some(run) = self.runs.get_mut(id)
                    && !run.finished
                    && run.forest.rooted() == rooted
                {
                    run.finished = true;
                    run.incomplete = (!rooted).then_some(Incomplete::MadeRoom);
                    done.push(*id);
                }
            }
        }
        done
    }

    /// Finish every run still going, the watch stopping: those whose top
    /// came whole, the others as incomplete; their ids, oldest first.
    pub fn finish_all(&mut self) -> Vec<TraceId> {
        let mut done = Vec::new();
        for id in &self.order {
            if let Some(run) = self.runs.get_mut(id)
                && !run.finished
            {
                run.finished = true;
                run.incomplete = (!run.forest.rooted()).then_some(Incomplete::WatchStopped);
                done.push(*id);
            }
        }
        done
    }

    /// The run `span` belongs to (its trace's), opened when it is the
    /// first span of its trace; `None` when no room can be made.
    fn run_for(&mut self, span: &Span, now: Instant, opened: &mut Vec<TraceId>) -> Option<TraceId> {
        if self.runs.contains_key(&span.trace_id) {
            return Some(span.trace_id);
        }
        if self.runs.len() >= self.limits.max_runs.max(1) && !self.close_oldest_finished() {
            return None;
        }
        self.runs.insert(
            span.trace_id,
            Run {
                trace_id: span.trace_id,
                forest: Forest::new(self.limits.max_spans),
                readings: Readings::default(),
                first_at: now,
                last_at: now,
                arrivals: Vec::new(),
                conversation: None,
                finished: false,
                incomplete: None,
            },
        );
        self.order.push_back(span.trace_id);
        opened.push(span.trace_id);
        Some(span.trace_id)
    }

    fn close_oldest_finished(&mut self) -> bool {
        let Some(at) = self
            .order
            .iter()
            .position(|id| self.runs.get(id).is_some_and(|r| r.finished))
        else {
            return false;
        };
        if let Some(id) = self.order.remove(at) {
            self.close(id);
        }
        true
    }

    /// Let go of run `id`'s readings: it finished and was summed up, and
    /// a finished run takes no span more (its forest stays for a viewer
    /// and a recording).
    pub(crate) fn forget_readings(&mut self, id: TraceId) {
        if let Some(run) = self.runs.get_mut(&id) {
            run.readings = Readings::default();
        }
    }

    pub fn close(&mut self, id: TraceId) -> Option<Run> {
        let run = self.runs.remove(&id)?;
        self.order.retain(|r| *r != id);
        Some(run)
    }

    /// The runs held that belong to `conversation`, oldest first.
    pub fn in_conversation<'a>(
        &'a self,
        conversation: &'a str,
    ) -> impl Iterator<Item = TraceId> + 'a {
        self.order.iter().copied().filter(move |id| {
            self.runs
                .get(id)
                .is_some_and(|r| r.conversation.as_deref() == Some(conversation))
        })
    }

    /// Mark the runs that end by `now` finished (settled, or idle past
    /// the bound without their top); their ids, oldest first.
    pub fn settle(&mut self, now: Instant) -> Vec<TraceId> {
        let limits = self.limits;
        let mut done = Vec::new();
        for id in &self.order {
            if let Some(run) = self.runs.get_mut(id)
                && !run.finished
                && let Some(incomplete) = run.ends(now, &limits)
            {
                run.finished = true;
                run.incomplete = incomplete;
                done.push(*id);
            }
        }
        done
    }

    /// When the next run may end, if any is going.
    pub fn next_settle(&self) -> Option<Instant> {
        self.runs
            .values()
            .filter(|r| !r.finished)
            .map(|r| r.end_at(&self.limits))
            .min()
    }

    /// The run `id`.
    pub fn get(&self, id: TraceId) -> Option<&Run> {
        self.runs.get(&id)
    }

    /// The runs held, oldest first.
    pub fn ids(&self) -> impl Iterator<Item = TraceId> + '_ {
        self.order.iter().copied()
    }

    /// How many runs are held.
    pub fn len(&self) -> usize {
        self.runs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// The span ids of run `id` still waiting for their parent.
    pub fn placeholders(&self, id: TraceId) -> Vec<SpanId> {
        let Some(run) = self.runs.get(&id) else {
            return Vec::new();
        };
        run.forest
            .tops()
            .into_iter()
            .filter(|top| run.forest.get(*top).is_some_and(|n| n.span.is_none()))
            .collect()
    }
}

fn ms_between(from: Instant, to: Instant) -> u64 {
    u64::try_from(to.saturating_duration_since(from).as_millis()).unwrap_or(u64::MAX)
}
