//! A watched run's fold: the chain of its agents, handoffs and tool
//! calls (the swarm's own fold, over the events the watch told of the
//! spans), and the spans themselves as the forest the span tree is drawn
//! from, each `span_arrived` added once, in time that does not grow with
//! the run. A span that may name a graph node is read into the visits
//! of the run's graph as it comes (`graph.rs`); the graph is made from
//! them only when it is wanted after one that did: never for a run with
//! no such span.

use super::graph::Visits;
use super::span_rows::SpanRows;
use crate::bus::EventKind;
use crate::patterns::events::{PatternEvent, TeamEvent};
use crate::span::Span;
use crate::tui::patterns::chain::state::{Chain, Link};
use crate::tui::patterns::folding::Fold;
use crate::tui::patterns::graph::state::GraphFold;
use crate::tui::state::outcome::Outcome;
use crate::watch::forest::Forest;
use crate::watch::forest::Inserted;
use crate::watch::runs::DEFAULT_MAX_SPANS;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::sync::OnceLock;

#[derive(Clone, Debug)]
pub(crate) struct WatchedRun {
    pub(crate) chain: Chain,
    pub(crate) forest: Forest,
    /// Spans that ended in an error.
    pub(crate) failed: u64,
    /// Spans told that could not be read (a recording of another version).
    pub(crate) unread: u64,
    /// Spans no row of the watch's vocabulary reads anything from.
    pub(crate) not_understood: u64,
    /// The run's final answer so far: the text of the model call that
    /// ended last among those that answered in text, with its end (ns).
    pub(crate) answer: Option<(u64, String)>,
    pub(crate) spend: Spend,
    /// The agents told, in the order first told (taking a turn, or at
    /// either end of a handoff).
    told_agents: Vec<String>,
    /// The same agents, to look one up.
    told_set: HashSet<String>,
    /// The turns each agent took, as told.
    pub(crate) turns: HashMap<String, u32>,
    /// The tool calls each agent made, as told (the chain keeps only
    /// the latest of a long run).
    pub(crate) tool_calls: HashMap<String, u64>,
    /// Each agent's earliest start (ns) among its agent spans arrived.
    pub(crate) agent_starts: HashMap<String, u64>,
    /// The span tree's rows, each span put in its place as it comes.
    pub(crate) tree: SpanRows,
    /// The visits of the run's graph nodes, each span that may name a
    /// node read into them once as it comes.
    visits: Visits,
    /// The run's graph, made from `visits` when first wanted since the
    /// last span that named a node arrived (`graph`); `None` while none
    /// did.
    graph: Option<OnceLock<Option<GraphFold>>>,
}

/// The run's model calls, their tokens and cost, and where the cost came
/// from, as the watch's summary sums them.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Spend {
    pub(crate) model_calls: u64,
    pub(crate) input: u64,
    pub(crate) output: u64,
    pub(crate) cached: u64,
    /// `None` while no call was priced.
    pub(crate) cost_usd: Option<f64>,
    pub(crate) unpriced: u64,
    /// Some call's cost came from its span; some from the price table.
    pub(crate) from_span: bool,
    pub(crate) from_table: bool,
}

impl Spend {
    /// Where the run's cost came from, as the summary's `cost_from` says.
    pub(crate) fn cost_from(&self) -> Option<&'static str> {
        match (self.from_span, self.from_table) {
            (true, true) => Some("mixed"),
            (true, false) => Some("span"),
            (false, true) => Some("price table"),
            (false, false) => None,
        }
    }
}

impl Default for WatchedRun {
    fn default() -> Self {
        WatchedRun {
            chain: Chain::default(),
            forest: Forest::new(DEFAULT_MAX_SPANS),
            failed: 0,
            unread: 0,
            not_understood: 0,
            answer: None,
            spend: Spend::default(),
            told_agents: Vec::new(),
            told_set: HashSet::new(),
            turns: HashMap::new(),
            tool_calls: HashMap::new(),
            agent_starts: HashMap::new(),
            tree: SpanRows::default(),
            visits: Visits::default(),
            graph: None,
        }
    }
}

impl PartialEq for WatchedRun {
    /// The forest only grows: two folds of one run with as many spans
    /// hold the same spans.
    fn eq(&self, other: &Self) -> bool {
        self.chain == other.chain
            && self.forest.len() == other.forest.len()
            && self.failed == other.failed
            && self.unread == other.unread
            && self.spend == other.spend
    }
}

impl WatchedRun {
    /// The run's agents in the order they started: by their agent
    /// span's start where one arrived (a coordinator's span ends, and
    /// arrives, after its delegates' turns), then those without one in
    /// the order first told.
    pub(crate) fn agents(&self) -> Vec<&str> {
        let mut agents: Vec<&str> = self.told_agents.iter().map(String::as_str).collect();
        agents.sort_by_key(|a| self.agent_starts.get(*a).copied().unwrap_or(u64::MAX));
        agents
    }

    /// The run's graph, where its spans tell one. Made from the visits
    /// (in time that grows with the visits, not the spans) the first
    /// time it is wanted after a span that named a node arrived, and kept
    /// until the next such span: a frame costs nothing more while none
    /// comes, and a run with none never makes it. Made on a reader's
    /// call, as a cache: the fold's own state does not change.
    pub(crate) fn graph(&self) -> Option<&GraphFold> {
        self.graph
            .as_ref()?
            .get_or_init(|| self.visits.graph())
            .as_ref()
    }

    /// Whether the graph is made as the run stands (tests: when it is
    /// made again).
    #[cfg(test)]
    pub(crate) fn graph_made(&self) -> Option<bool> {
        self.graph.as_ref().map(|made| made.get().is_some())
    }

    fn told(&mut self, agent: &str) {
        if !agent.is_empty() && !self.told_set.contains(agent) {
            self.told_set.insert(agent.to_string());
            self.told_agents.push(agent.to_string());
        }
    }

    /// A span arrived, `agent`'s span where it names one: into the
    /// forest (shared, not copied), the tree's rows and the graph's
    /// visits.
    fn arrived(&mut self, span: &Arc<Span>, agent: Option<&str>, model: bool) {
        self.failed += u64::from(span.error.is_some());
        self.not_understood += u64::from(!crate::watch::read::understood(span));
        if model
            && self
                .answer
                .as_ref()
                .is_none_or(|(end, _)| span.end_ns >= *end)
            && let Some(text) = crate::watch::answer::answer_of(span)
        {
            self.answer = Some((span.end_ns, text));
        }
        if let Some(agent) = agent {
            let start = match self.agent_starts.get_mut(agent) {
                Some(start) => start,
                None => self
                    .agent_starts
                    .entry(agent.to_string())
                    .or_insert(span.start_ns),
            };
            *start = (*start).min(span.start_ns);
        }
        let id = span.span_id;
        if let Inserted::Kept | Inserted::CutCircle = self.forest.insert(Arc::clone(span)) {
            self.tree.insert(&self.forest, id);
            if crate::watch::read::may_name_graph_node(span) && self.visits.add(span) {
                self.graph = Some(OnceLock::new());
            }
        }
    }

    /// A watched run declares no entry agent: its chain starts with the
    /// first agent that takes a turn or hands control on.
    fn first_link(&mut self, kind: &EventKind, t_ms: u64) {
        if !self.chain.links.is_empty() {
            return;
        }
        let first = match kind {
            EventKind::Pattern(PatternEvent::Team(TeamEvent::TurnStarted { agent, .. })) => agent,
            EventKind::Pattern(PatternEvent::Team(TeamEvent::HandoffAccepted { from, .. })) => from,
            _ => return,
        };
        self.chain.links.push(Link {
            agent: first.clone(),
            since_ms: t_ms,
            deadline_ms: None,
            turns: 0,
            until_ms: None,
            cut: false,
        });
    }
}

impl Fold for WatchedRun {
    fn apply(&mut self, kind: &EventKind, t_ms: u64) {
        match kind {
            EventKind::SpanArrived {
                span,
                span_kind,
                cost_from,
                agent,
                ..
            } => {
                match cost_from.as_deref() {
                    Some("span") => self.spend.from_span = true,
                    Some(_) => self.spend.from_table = true,
                    None => {}
                }
                match span.span() {
                    Some(span) => self.arrived(span, agent.as_deref(), span_kind == "model"),
                    None => self.unread += 1,
                }
            }
            EventKind::CallFinished {
                tool,
                usage: Some(usage),
                ..
            } if tool == "model" => {
                let spend = &mut self.spend;
                spend.model_calls += 1;
                spend.input = spend.input.saturating_add(usage.input);
                spend.output = spend.output.saturating_add(usage.output);
                spend.cached = spend.cached.saturating_add(usage.cached);
                match usage.cost_usd {
                    Some(cost) => spend.cost_usd = Some(spend.cost_usd.unwrap_or(0.0) + cost),
                    None => spend.unpriced += 1,
                }
                self.chain.llm_calls = spend.model_calls;
            }
            other => {
                match other {
                    EventKind::Pattern(PatternEvent::Team(TeamEvent::TurnStarted {
                        agent,
                        ..
                    })) => {
                        self.told(agent);
                        *self.turns.entry(agent.clone()).or_default() += 1;
                    }
                    EventKind::Pattern(PatternEvent::Team(TeamEvent::ToolUsed {
                        agent, ..
                    })) => *self.tool_calls.entry(agent.clone()).or_default() += 1,
                    EventKind::Pattern(PatternEvent::Team(TeamEvent::HandoffAccepted {
                        from,
                        to,
                        ..
                    })) => {
                        self.told(from);
                        self.told(to);
                    }
                    _ => {}
                }
                self.first_link(other, t_ms);
                self.chain.apply(other, t_ms);
            }
        }
    }

    fn close(&mut self, outcome: &Outcome) {
        self.chain.close(outcome);
    }
}
