//! What a watched run amounts to, read from its whole forest: the agents
//! in order of first activity, the handoffs, the tool calls, the model
//! calls with their tokens summed (over model spans only, never an
//! agent's aggregate) and their cost. This is what `--headless` prints
//! and what the recording ends with. Pure: a forest and a price table in,
//! a [`WatchSummary`] out.

pub use super::acting::CostFrom;
use super::acting::{Agents, ModelCall, calls_of};
use super::forest::Forest;
use super::framework::framework_of;
pub use super::handoffs::Handoff;
use super::handoffs::{event_handoffs, graph_handoffs, targets_of, turn_handoffs};
use super::read::{Readings, read, understood};
use super::vocab::Kind;
use crate::scenario::PriceTable;
use crate::span::{Span, SpanId, trace_hex};
use serde::Serialize;
use std::collections::HashSet;

/// One tool call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ToolCall {
    /// The agent whose span holds the call (`null` when none does).
    pub agent: Option<String>,
    pub tool: String,
    /// `ok` or `error`.
    pub status: &'static str,
    pub ms: u64,
}

/// A model priced under another name than the one its spans report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PricedAs {
    /// The model the spans name (`gpt-4o-2024-08-06`).
    pub model: String,
    /// The name the price table priced it as (`gpt-4o`).
    #[serde(rename = "as")]
    pub priced_as: String,
}

/// What the endpoint adds to a run's line besides the counts.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct GatewayTally {
    /// Calls sent upstream that ended without a whole answer (refused by
    /// the upstream, unreachable, a stream cut or left by the client).
    pub failed: u64,
    /// Calls refused because the run was past a budget.
    pub refused: u64,
}

/// A watched run, as `conclave watch --headless` prints it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WatchSummary {
    pub trace_id: String,
    pub service: Option<String>,
    pub framework: Option<String>,
    /// The conversation the run belongs to (`gen_ai.conversation.id`,
    /// `session.id`): other runs may belong to it too, each with its own
    /// counts.
    pub conversation: Option<String>,
    pub agents: Vec<String>,
    pub handoffs: Vec<Handoff>,
    pub tool_calls: Vec<ToolCall>,
    pub model_calls: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// The part of `input_tokens` served from the prompt cache, priced
    /// at the cached-input price.
    pub cached_input_tokens: u64,
    /// `None` (null) when no model call could be priced.
    pub cost_usd: Option<f64>,
    pub cost_from: Option<CostFrom>,
    /// Models the price table priced under another name (a dated
    /// snapshot as its base name, or as the model asked for).
    pub priced_as: Vec<PricedAs>,
    /// Model calls that could not be priced.
    pub unpriced_calls: u64,
    pub errors: u64,
    pub spans: u64,
    /// Spans no row of the vocabulary reads anything from
    /// (docs/watch.md): a run this version cannot read says how much of
    /// it, never seems an empty success.
    pub spans_not_understood: u64,
    /// Spans not kept (over the run's limit, or sent twice).
    pub dropped_spans: u64,
    /// The run's final answer where its trace carries it: the text of
    /// its last model call that answered in text.
    pub final_answer: Option<String>,
    /// The recording's path, once written.
    pub recording: Option<String>,
    /// Why the run ended before its top span came (`idle`,
    /// `watch_stopped`, `made_room`); absent for a run that ended whole.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub incomplete: Option<super::runs::Incomplete>,
    /// What was decided when a hook steered the run (docs/steer.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub steering: Option<crate::watch::steer::SteerSummary>,
    /// For a run whose model calls went through Conclave's endpoint (its
    /// counts are then the endpoint's): its failed and refused calls.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gateway: Option<GatewayTally>,
}

/// Read the run held in `forest`.
pub(crate) fn summarise(
    trace_id: u128,
    forest: &Forest,
    prices: Option<&PriceTable>,
) -> WatchSummary {
    let readings: Readings = forest
        .arrived()
        .map(|s| (s.span_id, Box::new(read(s))))
        .collect();
    summarise_read(trace_id, forest, &readings, prices)
}

/// [`summarise`], each span of `forest` read already: `readings` holds
/// every one's (a span missing from it is read here).
pub(crate) fn summarise_read(
    trace_id: u128,
    forest: &Forest,
    readings: &Readings,
    prices: Option<&PriceTable>,
) -> WatchSummary {
    let spans: Vec<&Span> = forest.arrived().collect();
    if spans.iter().any(|s| !readings.contains_key(&s.span_id)) {
        return summarise(trace_id, forest, prices);
    }
    let agents_of = Agents { forest, readings };
    // The tool spans whose callee was told as a handoff.
    let mut delegations: HashSet<SpanId> = HashSet::new();
    let mut by_start: Vec<&Span> = spans.clone();
    by_start.sort_by_key(|s| s.start_ns);
    let mut summary = empty(trace_id, forest, &spans);
    summary.conversation = spans
        .iter()
        .find_map(|s| readings[&s.span_id].conversation.clone());
    let (active, wrappers) = agent_roles(&spans, readings, &agents_of);
    let mut handoffs: Vec<(u64, Handoff)> = Vec::new();
    let mut open_target: Vec<(u64, String)> = Vec::new();
    let mut last_turn: Option<String> = None;
    for span in &by_start {
        let r = &readings[&span.span_id];
        handoffs.extend(event_handoffs(span, r));
        if r.turns && matches!(r.kind(), Kind::Agent | Kind::Model) {
            last_turn = agents_of.of(span.span_id, true).or(last_turn);
        }
        match r.kind() {
            Kind::Agent => {
                if let Some(name) = &r.agent
                    && !summary.agents.contains(name)
                    && (active.contains(name) || !wrappers.contains(name))
                {
                    summary.agents.push(name.clone());
                }
                if let (Some((call, from)), Some(to)) =
                    (agents_of.delegated_by(span.span_id), &r.agent)
                    && &from != to
                    && delegations.insert(call)
                {
                    let to = to.clone();
                    handoffs.push((span.start_ns, Handoff { from, to }));
                }
            }
            Kind::Handoff => {
                let from = r
                    .handoff_from
                    .clone()
                    .or_else(|| agents_of.of(span.span_id, false));
                match (from, r.handoff_to.clone()) {
                    (Some(from), Some(to)) => handoffs.push((span.start_ns, Handoff { from, to })),
                    (Some(from), None) => open_target.push((span.start_ns, from)),
                    _ => {}
                }
            }
            Kind::Tool => summary.tool_calls.push(ToolCall {
                agent: agents_of
                    .of(span.span_id, false)
                    // A node that calls no model is no agent: in a run of
                    // turns its tool is the last acting agent's (a lone
                    // LangGraph ReAct agent runs its tools in node `tools`).
                    .filter(|a| !r.turns || summary.agents.contains(a))
                    .or_else(|| last_turn.clone().filter(|_| r.turns)),
                tool: r.tool.clone().unwrap_or_else(|| span.name.clone()),
                status: if span.error.is_some() { "error" } else { "ok" },
                ms: span.ms(),
            }),
            // An agent that calls a model acts, agent span or not
            // (LangGraph's supervisor node is a chain).
            Kind::Model => {
                if let Some(name) = agents_of.of(span.span_id, true)
                    && !summary.agents.contains(&name)
                {
                    summary.agents.push(name);
                }
            }
            _ => {}
        }
    }
    handoffs.extend(targets_of(open_target, &by_start, readings));
    let graph = graph_handoffs(&by_start, readings, &summary.agents, &handoffs);
    handoffs.extend(graph);
    let turns = turn_handoffs(&by_start, readings, &agents_of, &summary.agents, &handoffs);
    handoffs.extend(turns);
    handoffs.sort_by_key(|(at, _)| *at);
    summary.handoffs = handoffs.into_iter().map(|(_, h)| h).collect();
    add_model_calls(&mut summary, &calls_of(&by_start, &agents_of, prices));
    summary.final_answer = super::answer::final_answer(&by_start, readings);
    summary
}

/// The summary of `spans` before any is read: its ids, names and counts.
fn empty(trace_id: u128, forest: &Forest, spans: &[&Span]) -> WatchSummary {
    WatchSummary {
        trace_id: trace_hex(trace_id),
        service: forest
            .root()
            .or(spans.first().copied())
            .and_then(|s| s.service.clone()),
        framework: spans
            .iter()
            .find_map(|s| framework_of(s))
            .map(str::to_string),
        conversation: None,
        agents: Vec::new(),
        handoffs: Vec::new(),
        tool_calls: Vec::new(),
        model_calls: 0,
        input_tokens: 0,
        output_tokens: 0,
        cached_input_tokens: 0,
        cost_usd: None,
        cost_from: None,
        priced_as: Vec::new(),
        unpriced_calls: 0,
        errors: spans.iter().filter(|s| s.error.is_some()).count() as u64,
        spans: spans.len() as u64,
        spans_not_understood: spans.iter().filter(|s| !understood(s)).count() as u64,
        dropped_spans: forest.dropped,
        final_answer: None,
        recording: None,
        incomplete: None,
        steering: None,
        gateway: None,
    }
}

/// Which agents did something of their own (the nearest agent of a model
/// or tool call), and which only wrap other agents (the Agents SDK's
/// "Agent workflow" span holds each agent's span and calls nothing
/// itself): a wrapper that did nothing is no agent of the run.
fn agent_roles(
    spans: &[&Span],
    readings: &Readings,
    agents_of: &Agents<'_>,
) -> (HashSet<String>, HashSet<String>) {
    let mut active = HashSet::new();
    let mut wrappers = HashSet::new();
    for span in spans {
        let r = &readings[&span.span_id];
        match r.kind() {
            Kind::Model | Kind::Tool => active.extend(agents_of.of(span.span_id, false)),
            Kind::Agent => {
                if let Some(outer) = agents_of.of(span.span_id, false)
                    && r.agent.as_ref() != Some(&outer)
                {
                    wrappers.insert(outer);
                }
            }
            _ => {}
        }
    }
    (active, wrappers)
}

/// Sum the run's model calls: tokens, cost, and where the cost came from.
fn add_model_calls(summary: &mut WatchSummary, calls: &[ModelCall]) {
    let mut from = (false, false);
    for call in calls {
        summary.model_calls += 1;
        summary.input_tokens = summary.input_tokens.saturating_add(call.input_tokens);
        summary.output_tokens = summary.output_tokens.saturating_add(call.output_tokens);
        summary.cached_input_tokens = summary
            .cached_input_tokens
            .saturating_add(call.cached_input_tokens);
        if let (Some(model), Some(priced_as)) = (&call.model, &call.priced_as) {
            let named = PricedAs {
                model: model.clone(),
                priced_as: priced_as.clone(),
            };
            if !summary.priced_as.contains(&named) {
                summary.priced_as.push(named);
            }
        }
        match (call.cost_usd, call.cost_from) {
            (Some(cost), Some(by)) => {
                let sum = summary.cost_usd.unwrap_or(0.0) + cost;
                summary.cost_usd = Some(crate::pricing::round_dollars(sum));
                from.0 |= by == CostFrom::Span;
                from.1 |= by != CostFrom::Span;
            }
            _ => summary.unpriced_calls += 1,
        }
    }
    summary.cost_from = match from {
        (true, true) => Some(CostFrom::Mixed),
        (true, false) => Some(CostFrom::Span),
        (false, true) => Some(CostFrom::PriceTable),
        (false, false) => None,
    };
}
