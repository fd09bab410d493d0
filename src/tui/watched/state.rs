//! What the dashboard knows of the runs `conclave watch` receives: one
//! tab per trace, opened at its first span and numbered once (a number is
//! never given again), live until the watch says it settled. Folded from
//! the watch's [`WatchFeed`] in order, each span once: taking a batch
//! costs what the batch holds, never what the run holds (the span goes
//! into the forest, a line into the event log, a failure into the
//! needs-attention line).
//!
//! What needs the whole run (its summary, the spend per agent, the graph
//! and the span tree's rows) is a [`Reading`], made again only for the
//! run on screen, only when spans came since the last one, and at most
//! one fifth of the time: after a reading that took `t` the next waits
//! `4 t` (a run of 20,000 spans arriving in a burst is read a few times,
//! not once a batch); a finished run is read once more at once, with the
//! watch's own summary in place of the reading's. Knows nothing of
//! ratatui.

use super::chain::{ChainRow, rows as chain_rows};
use super::graph::graph_of;
use super::spend::{AgentSpend, spend};
use crate::scenario::PriceTable;
use crate::tui::patterns::graph::GraphFold;
use crate::tui::patterns::watched::tree::{TreeRow, rows};
use crate::watch::consume::WatchFeed;
use crate::watch::forest::Forest;
use crate::watch::receive::ReceiveCounts;
use crate::watch::runs::{Arrival, Limits};
use crate::watch::span::{SpanId, TraceId};
use crate::watch::summary::{WatchSummary, summarise};
use crate::watch::vocab::Kind;
use std::time::Duration;
use tokio::time::Instant;

/// A reading waits this many times what the last one took.
const READ_SHARE: u32 = 4;

/// One line of the event log: a span (the span itself is the forest's),
/// or a steering decision (docs/steer.md), in words.
#[derive(Clone, Debug)]
pub(crate) enum Logged {
    Span {
        at_ms: u64,
        span: SpanId,
        kind: Kind,
        under_placeholder: bool,
    },
    Steered {
        /// After the hook's first call.
        at_ms: u64,
        said: Box<str>,
    },
}

/// What needs the whole run, as of its last reading.
#[derive(Debug, Default)]
pub(crate) struct Reading {
    /// What the run amounts to (the watch's own once it finished).
    pub(crate) summary: Option<WatchSummary>,
    /// Model calls per agent, in order of the agent's first call.
    pub(crate) spend: Vec<AgentSpend>,
    /// The run's graph, where its spans let one be drawn (LangGraph's
    /// nodes, OpenInference's `graph.node.*`).
    pub(crate) graph: Option<GraphFold>,
    /// The agents pane's rows.
    pub(crate) chain: Vec<ChainRow>,
    /// The span tree's rows, depth first.
    pub(crate) tree: Vec<TreeRow>,
    /// Spans the reading saw.
    pub(crate) spans: usize,
}

/// One watched run, as its tab shows it.
#[derive(Debug)]
pub(crate) struct WatchedRun {
    /// The tab's number: 1, 2, 3 … in the order runs appeared.
    pub(crate) tab: u32,
    pub(crate) trace_id: TraceId,
    pub(crate) forest: Forest,
    /// Every kept span in the order it arrived: the event log's lines.
    pub(crate) log: Vec<Logged>,
    /// The event log's rows before each entry (a span's line, then one
    /// line per span event), and the rows in all.
    pub(crate) log_rows: Vec<usize>,
    pub(crate) log_total: usize,
    /// Spans that failed, and the first of them.
    pub(crate) failed: u64,
    pub(crate) first_failed: Option<SpanId>,
    /// The top span's name, once a span without a parent arrived.
    pub(crate) root_name: Option<String>,
    pub(crate) service: Option<String>,
    pub(crate) reading: Reading,
    pub(crate) finished: bool,
    /// Spans came since the last reading.
    stale: bool,
    /// When the last reading ended and what it took.
    read_at: Option<Instant>,
    read_took: Duration,
}

/// Every watched run on the dashboard.
#[derive(Debug)]
pub(crate) struct Watched {
    pub(crate) runs: Vec<WatchedRun>,
    pub(crate) selected: usize,
    next_tab: u32,
    limits: Limits,
    prices: Option<PriceTable>,
    /// The last problem the watch reported (a run not recorded).
    pub(crate) problem: Option<String>,
    /// Spans the watch dropped for want of room, so far.
    pub(crate) dropped: u64,
    /// Spans that came for a run already finished, so far.
    pub(crate) late: u64,
    /// The receiver's counts as last read, and where it forwards to.
    pub(crate) counts: Option<ReceiveCounts>,
    pub(crate) forward: Vec<String>,
    /// Where the runs come from, for the screen to say while none has.
    pub(crate) source: String,
    /// The watch's steering, when its runs can be steered from here.
    pub(crate) steer: Option<super::steered::Steered>,
}

impl Watched {
    pub(crate) fn new(limits: Limits, prices: Option<PriceTable>) -> Watched {
        Watched {
            runs: Vec::new(),
            selected: 0,
            next_tab: 1,
            limits,
            prices,
            problem: None,
            dropped: 0,
            late: 0,
            counts: None,
            forward: Vec::new(),
            source: String::new(),
            steer: None,
        }
    }

    pub(crate) fn selected(&self) -> Option<&WatchedRun> {
        self.runs.get(self.selected)
    }

    /// Take one thing the watch said.
    pub(crate) fn take(&mut self, feed: WatchFeed) {
        match feed {
            WatchFeed::Opened(id) => self.open(id),
            WatchFeed::Arrived { run, spans } => {
                if let Some(at) = self.index_of(run) {
                    let watched = &mut self.runs[at];
                    for arrival in spans {
                        watched.arrived(arrival);
                    }
                }
            }
            WatchFeed::Finished(summary) => {
                let id = u128::from_str_radix(&summary.trace_id, 16).ok();
                if let Some(at) = id.and_then(|id| self.index_of(id)) {
                    let run = &mut self.runs[at];
                    run.finished = true;
                    run.stale = true;
                    run.reading.summary = Some(*summary);
                }
            }
            WatchFeed::Problem(problem) => self.problem = Some(problem),
            WatchFeed::Dropped(total) => self.dropped = total,
            WatchFeed::Late(total) => self.late = total,
        }
    }

    /// Read the run on screen again if spans came since its last reading
    /// and its share of the time allows; whether it was read.
    pub(crate) fn read_selected(&mut self, now: Instant) -> bool {
        let prices = self.prices.as_ref();
        match self.runs.get_mut(self.selected) {
            Some(run) if run.due(now).is_some_and(|at| at <= now) => {
                run.read(prices);
                true
            }
            _ => false,
        }
    }

    /// When the run on screen is next to be read, if spans wait for it.
    pub(crate) fn read_due(&self, now: Instant) -> Option<Instant> {
        self.selected().and_then(|run| run.due(now))
    }

    /// The live run of trace `id` (a trace the watch let go of and
    /// sees again is a run of its own).
    pub(crate) fn index_of(&self, id: TraceId) -> Option<usize> {
        self.runs
            .iter()
            .rposition(|r| r.trace_id == id && !r.finished)
    }

    /// A tab for run `id`, after the others; the oldest finished tab
    /// makes room when the dashboard holds as many as the watch keeps.
    pub(crate) fn open(&mut self, id: TraceId) {
        if self.index_of(id).is_some() {
            return;
        }
        if self.runs.len() >= self.limits.max_runs.max(1)
            && let Some(at) = self.runs.iter().position(|r| r.finished)
        {
            self.runs.remove(at);
            self.selected = self
                .selected
                .saturating_sub(usize::from(at < self.selected));
        }
        self.runs.push(WatchedRun {
            tab: self.next_tab,
            trace_id: id,
            forest: Forest::new(self.limits.max_spans),
            log: Vec::new(),
            log_rows: Vec::new(),
            log_total: 0,
            failed: 0,
            first_failed: None,
            root_name: None,
            service: None,
            reading: Reading::default(),
            finished: false,
            stale: true,
            read_at: None,
            read_took: Duration::ZERO,
        });
        self.next_tab += 1;
        if self.runs.len() == 1 {
            self.selected = 0;
        }
    }

    pub(crate) fn select_previous(&mut self) {
        self.selected = self.selected.saturating_sub(1);
    }

    pub(crate) fn select_next(&mut self) {
        self.selected = (self.selected + 1).min(self.runs.len().saturating_sub(1));
    }
}

impl WatchedRun {
    /// One span arrived: into the forest, a line of the log, a failure
    /// counted; the reading is due again.
    fn arrived(&mut self, arrival: Arrival) {
        let span = arrival.span;
        let id = span.span_id;
        if span.error.is_some() {
            self.failed += 1;
            self.first_failed.get_or_insert(id);
        }
        if span.parent.is_none() && self.root_name.is_none() {
            self.root_name = Some(span.name.clone());
        }
        if self.service.is_none() {
            self.service.clone_from(&span.service);
        }
        let rows = 1 + span.events.len();
        self.forest.insert(span);
        self.log.push(Logged::Span {
            at_ms: arrival.at_ms,
            span: id,
            kind: arrival.kind,
            under_placeholder: arrival.under_placeholder,
        });
        self.log_rows.push(self.log_total);
        self.log_total += rows;
        self.stale = true;
    }

    /// A steering decision's line in the event log.
    pub(crate) fn steered(&mut self, at_ms: u64, said: String) {
        self.log.push(Logged::Steered {
            at_ms,
            said: said.into(),
        });
        self.log_rows.push(self.log_total);
        self.log_total += 1;
    }

    /// When the run is next to be read: `None` when nothing came since.
    fn due(&self, now: Instant) -> Option<Instant> {
        if !self.stale {
            return None;
        }
        // A finished run's last reading is not kept waiting.
        if self.finished {
            return Some(now);
        }
        Some(
            self.read_at
                .map_or(now, |at| at + self.read_took * READ_SHARE),
        )
    }

    /// Read the whole run: its summary (until the watch's own comes), the
    /// spend per agent, the graph and the tree's rows.
    fn read(&mut self, prices: Option<&PriceTable>) {
        let began = std::time::Instant::now();
        if !self.finished {
            self.reading.summary = Some(summarise(self.trace_id, &self.forest, prices));
        }
        self.reading.spend = spend(&self.forest, prices);
        self.reading.chain = self
            .reading
            .summary
            .as_ref()
            .map(|s| chain_rows(s, &self.reading.spend))
            .unwrap_or_default();
        self.reading.graph = graph_of(&self.forest).map(|mut graph| {
            graph.ended = self.finished;
            graph
        });
        self.reading.tree = rows(&self.forest);
        self.reading.spans = self.forest.len();
        self.stale = false;
        self.read_took = began.elapsed();
        self.read_at = Some(Instant::now());
    }
}
