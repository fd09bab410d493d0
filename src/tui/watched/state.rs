//! What the dashboard knows of the runs `conclave watch` receives: one
//! tab per trace, opened at its first span and numbered once (a number is
//! never given again), its spans kept as the same forest the watch builds
//! (placeholders and all), live until the watch says it settled. Folded
//! from the watch's [`WatchFeed`] in order; knows nothing of ratatui.

use super::graph::graph_of;
use crate::scenario::PriceTable;
use crate::tui::patterns::graph::GraphFold;
use crate::watch::acting::model_calls;
use crate::watch::consume::WatchFeed;
use crate::watch::forest::Forest;
use crate::watch::runs::{Arrival, Limits};
use crate::watch::span::TraceId;
use crate::watch::summary::{CostFrom, WatchSummary, summarise};

/// One watched run, as its tab shows it.
#[derive(Debug)]
pub(crate) struct WatchedRun {
    /// The tab's number: 1, 2, 3 … in the order runs appeared.
    pub(crate) tab: u32,
    pub(crate) trace_id: TraceId,
    pub(crate) forest: Forest,
    /// Every span in the order it arrived: the event log's lines.
    pub(crate) arrivals: Vec<Arrival>,
    /// What the run amounts to so far (the watch's own once it finished).
    pub(crate) summary: WatchSummary,
    /// Model calls per agent, in order of the agent's first call.
    pub(crate) spend: Vec<AgentSpend>,
    /// The run's graph, where its spans let one be drawn (LangGraph's
    /// nodes, OpenInference's `graph.node.*`).
    pub(crate) graph: Option<GraphFold>,
    pub(crate) finished: bool,
}

/// What one agent's model calls took and cost.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct AgentSpend {
    pub(crate) agent: String,
    pub(crate) calls: u64,
    pub(crate) input_tokens: u64,
    pub(crate) output_tokens: u64,
    pub(crate) cost_usd: Option<f64>,
    pub(crate) cost_from: Option<CostFrom>,
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
                        watched.forest.insert(arrival.span.clone());
                        watched.arrivals.push(arrival);
                    }
                    watched.summary = summarise(run, &watched.forest, self.prices.as_ref());
                    watched.spend = spend(&watched.forest, self.prices.as_ref());
                    watched.graph = graph_of(&watched.forest);
                }
            }
            WatchFeed::Finished(summary) => {
                let id = u128::from_str_radix(&summary.trace_id, 16).ok();
                if let Some(at) = id.and_then(|id| self.index_of(id)) {
                    self.runs[at].finished = true;
                    if let Some(graph) = &mut self.runs[at].graph {
                        graph.ended = true;
                    }
                    self.runs[at].summary = *summary;
                }
            }
            WatchFeed::Problem(problem) => self.problem = Some(problem),
            WatchFeed::Dropped(total) => self.dropped = total,
        }
    }

    fn index_of(&self, id: TraceId) -> Option<usize> {
        self.runs.iter().position(|r| r.trace_id == id)
    }

    /// A tab for run `id`, after the others; the oldest finished tab
    /// makes room when the dashboard holds as many as the watch keeps.
    fn open(&mut self, id: TraceId) {
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
        let forest = Forest::new(self.limits.max_spans);
        let summary = summarise(id, &forest, None);
        self.runs.push(WatchedRun {
            tab: self.next_tab,
            trace_id: id,
            forest,
            arrivals: Vec::new(),
            summary,
            spend: Vec::new(),
            graph: None,
            finished: false,
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

/// The model calls of `forest` per agent, in order of each agent's first
/// call: the watch's own reading of the calls (the agent each was made
/// for, "(no agent)" when no span says; its cost from the span when it
/// carries one, else from the price table), so the panes and the headless
/// line agree.
pub(crate) fn spend(forest: &Forest, prices: Option<&PriceTable>) -> Vec<AgentSpend> {
    let mut out: Vec<AgentSpend> = Vec::new();
    for call in model_calls(forest, prices) {
        let agent = call.agent.unwrap_or_else(|| "(no agent)".to_string());
        let at = match out.iter().position(|s| s.agent == agent) {
            Some(at) => at,
            None => {
                out.push(AgentSpend {
                    agent,
                    ..AgentSpend::default()
                });
                out.len() - 1
            }
        };
        let entry = &mut out[at];
        entry.calls += 1;
        entry.input_tokens = entry.input_tokens.saturating_add(call.input_tokens);
        entry.output_tokens = entry.output_tokens.saturating_add(call.output_tokens);
        if let (Some(cost), Some(from)) = (call.cost_usd, call.cost_from) {
            entry.cost_usd = Some(entry.cost_usd.unwrap_or(0.0) + cost);
            entry.cost_from = Some(match entry.cost_from {
                Some(before) if before != from => CostFrom::Mixed,
                _ => from,
            });
        }
    }
    out
}
