//! What a watched run amounts to, read from its whole forest: the agents
//! in order of first activity, the handoffs, the tool calls, the model
//! calls with their tokens summed (over model spans only, never an
//! agent's aggregate) and their cost. This is what `--headless` prints
//! and what the recording ends with. Pure: a forest and a price table in,
//! a [`WatchSummary`] out.

use super::forest::Forest;
use super::read::{Reading, read};
use super::span::{Span, SpanId, trace_hex};
use super::vocab::{Kind, framework_of};
use crate::scenario::PriceTable;
use serde::Serialize;
use std::collections::{HashMap, HashSet};

/// A handoff from one agent to another.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Handoff {
    pub from: String,
    pub to: String,
}

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

/// Where a run's cost came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CostFrom {
    /// Every priced call carried its cost on its span.
    Span,
    /// Every priced call was priced from Conclave's table (and `--pricing`).
    PriceTable,
    /// Some of each.
    Mixed,
}

/// A watched run, as `conclave watch --headless` prints it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WatchSummary {
    pub trace_id: String,
    pub service: Option<String>,
    pub framework: Option<String>,
    pub agents: Vec<String>,
    pub handoffs: Vec<Handoff>,
    pub tool_calls: Vec<ToolCall>,
    pub model_calls: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// `None` (null) when no model call could be priced.
    pub cost_usd: Option<f64>,
    pub cost_from: Option<CostFrom>,
    /// Model calls that could not be priced.
    pub unpriced_calls: u64,
    pub errors: u64,
    pub spans: u64,
    /// Spans not kept (over the run's limit, or sent twice).
    pub dropped_spans: u64,
    /// The recording's path, once written.
    pub recording: Option<String>,
}

/// The agent each span runs under: the nearest agent span at or above
/// it (`self` included when `with_self`).
struct Agents<'a> {
    forest: &'a Forest,
    readings: &'a HashMap<SpanId, Reading>,
}

impl Agents<'_> {
    /// The agent that called agent span `id` through a tool (PydanticAI's
    /// delegation nests the callee's agent span under the caller's tool
    /// span): a handoff from that agent to this one.
    fn delegated_by(&self, id: SpanId) -> Option<String> {
        let mut through_tool = false;
        for up in self.forest.ancestry(id).into_iter().skip(1) {
            let Some(r) = self.readings.get(&up) else {
                continue;
            };
            match r.kind() {
                Kind::Tool => through_tool = true,
                Kind::Agent => return through_tool.then(|| r.agent.clone()).flatten(),
                _ => {}
            }
        }
        None
    }

    /// The agent span `id` works for: the nearest span at or above it
    /// (`self` included when `with_self`) that names the agent it works
    /// for (LangGraph's graph node), or that is an agent span.
    fn of(&self, id: SpanId, with_self: bool) -> Option<String> {
        let skip = usize::from(!with_self);
        self.forest
            .ancestry(id)
            .into_iter()
            .skip(skip)
            .find_map(|up| {
                let r = self.readings.get(&up)?;
                r.actor
                    .clone()
                    .or_else(|| (r.kind() == Kind::Agent).then(|| r.agent.clone()).flatten())
            })
    }
}

/// Read the run held in `forest`.
pub fn summarise(trace_id: u128, forest: &Forest, prices: Option<&PriceTable>) -> WatchSummary {
    let spans: Vec<&Span> = forest.arrived().collect();
    let readings: HashMap<SpanId, Reading> = spans.iter().map(|s| (s.span_id, read(s))).collect();
    let agents_of = Agents {
        forest,
        readings: &readings,
    };
    let mut by_start: Vec<&Span> = spans.clone();
    by_start.sort_by_key(|s| s.start_ns);
    let mut summary = WatchSummary {
        trace_id: trace_hex(trace_id),
        service: forest
            .root()
            .or(spans.first().copied())
            .and_then(|s| s.service.clone()),
        framework: spans
            .iter()
            .find_map(|s| framework_of(&s.scope).or_else(|| framework_of(s.service.as_deref()?)))
            .map(str::to_string),
        agents: Vec::new(),
        handoffs: Vec::new(),
        tool_calls: Vec::new(),
        model_calls: 0,
        input_tokens: 0,
        output_tokens: 0,
        cost_usd: None,
        cost_from: None,
        unpriced_calls: 0,
        errors: spans.iter().filter(|s| s.error.is_some()).count() as u64,
        spans: spans.len() as u64,
        dropped_spans: forest.dropped,
        recording: None,
    };
    let (active, wrappers) = agent_roles(&spans, &readings, &agents_of);
    let mut handoffs: Vec<(u64, Handoff)> = Vec::new();
    let mut open_target: Vec<(u64, String)> = Vec::new();
    // Calls priced from their span, from the table.
    let mut priced = (false, false);
    // The messages whose model calls are counted (AutoGen's, by id).
    let mut told: HashSet<&str> = HashSet::new();
    for span in &by_start {
        let r = &readings[&span.span_id];
        handoffs.extend(event_handoffs(span, r));
        match r.kind() {
            Kind::Agent => {
                if let Some(name) = &r.agent
                    && !summary.agents.contains(name)
                    && (active.contains(name) || !wrappers.contains(name))
                {
                    summary.agents.push(name.clone());
                }
                if let (Some(from), Some(to)) = (agents_of.delegated_by(span.span_id), &r.agent)
                    && &from != to
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
                agent: agents_of.of(span.span_id, false),
                tool: r.tool.clone().unwrap_or_else(|| span.name.clone()),
                status: if span.error.is_some() { "error" } else { "ok" },
                ms: span.ms(),
            }),
            Kind::Model => {
                // An agent that calls a model acts, agent span or not
                // (LangGraph's supervisor node is a chain).
                if let Some(name) = agents_of.of(span.span_id, true)
                    && !summary.agents.contains(&name)
                {
                    summary.agents.push(name);
                }
                let call = Call {
                    input: r.input_tokens.unwrap_or(0),
                    output: r.output_tokens.unwrap_or(0),
                    cost: r.cost_usd,
                    model: r.model.as_deref(),
                };
                add_model_call(&mut summary, call, prices, &mut priced);
            }
            _ => {}
        }
        for usage in &r.message_usage {
            if told.insert(usage.id.as_str()) {
                let call = Call {
                    input: usage.input_tokens,
                    output: usage.output_tokens,
                    cost: None,
                    model: None,
                };
                add_model_call(&mut summary, call, prices, &mut priced);
            }
        }
    }
    handoffs.extend(targets_of(open_target, &by_start, &readings));
    let turns = turn_handoffs(&by_start, &readings, &agents_of, &summary.agents, &handoffs);
    handoffs.extend(turns);
    handoffs.sort_by_key(|(at, _)| *at);
    summary.handoffs = handoffs.into_iter().map(|(_, h)| h).collect();
    summary.cost_from = match priced {
        (true, true) => Some(CostFrom::Mixed),
        (true, false) => Some(CostFrom::Span),
        (false, true) => Some(CostFrom::PriceTable),
        (false, false) => None,
    };
    summary
}

/// The handoffs a span's events tell of, at the time of its first event.
fn event_handoffs<'a>(span: &Span, r: &'a Reading) -> impl Iterator<Item = (u64, Handoff)> + 'a {
    let at = span.events.first().map_or(span.start_ns, |e| e.at_ns);
    r.event_handoffs.iter().map(move |(from, to)| {
        let handoff = Handoff {
            from: from.clone(),
            to: to.clone(),
        };
        (at, handoff)
    })
}

/// Which agents did something of their own (the nearest agent of a model
/// or tool call), and which only wrap other agents (the Agents SDK's
/// "Agent workflow" span holds each agent's span and calls nothing
/// itself): a wrapper that did nothing is no agent of the run.
fn agent_roles(
    spans: &[&Span],
    readings: &HashMap<SpanId, Reading>,
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

/// One model call's figures, from its span or its message.
struct Call<'a> {
    input: u64,
    output: u64,
    cost: Option<f64>,
    model: Option<&'a str>,
}

/// The handoffs of a run that passes control by turns (LangGraph,
/// AutoGen): each change of the agent that acts, by the start of the
/// agent, model and tool spans that say so, at the start of the new
/// agent's first span. A change a handoff span already told of (between
/// the two spans) is not told twice; an agent that is no agent of the run
/// (a graph node that calls no model) takes no turn.
fn turn_handoffs(
    by_start: &[&Span],
    readings: &HashMap<SpanId, Reading>,
    agents_of: &Agents<'_>,
    agents: &[String],
    told: &[(u64, Handoff)],
) -> Vec<(u64, Handoff)> {
    let mut out = Vec::new();
    let mut last: Option<(String, u64)> = None;
    for span in by_start {
        let r = &readings[&span.span_id];
        if !r.turns || !matches!(r.kind(), Kind::Agent | Kind::Model | Kind::Tool) {
            continue;
        }
        let Some(actor) = agents_of
            .of(span.span_id, true)
            .filter(|a| agents.contains(a))
        else {
            continue;
        };
        let at = span.start_ns;
        if let Some((from, since)) = &last
            && *from != actor
        {
            let handoff = Handoff {
                from: from.clone(),
                to: actor.clone(),
            };
            if !told
                .iter()
                .any(|(when, h)| *h == handoff && (*since..=at).contains(when))
            {
                out.push((at, handoff));
            }
        }
        last = Some((actor, at));
    }
    out
}

/// Count one model call: its tokens, and its cost from the span or the
/// price table (`priced` says which were used).
fn add_model_call(
    summary: &mut WatchSummary,
    call: Call<'_>,
    prices: Option<&PriceTable>,
    priced: &mut (bool, bool),
) {
    summary.model_calls += 1;
    let (input, output) = (call.input, call.output);
    summary.input_tokens = summary.input_tokens.saturating_add(input);
    summary.output_tokens = summary.output_tokens.saturating_add(output);
    let cost = match (call.cost, call.model) {
        (Some(cost), _) => {
            priced.0 = true;
            Some(cost)
        }
        (None, Some(model)) => price(model, input, output, prices).inspect(|_| priced.1 = true),
        (None, None) => None,
    };
    match cost {
        Some(cost) => {
            let sum = summary.cost_usd.unwrap_or(0.0) + cost;
            summary.cost_usd = Some(crate::pricing::round_dollars(sum));
        }
        None => summary.unpriced_calls += 1,
    }
}

/// A handoff that does not name its target (Traceloop's) goes to the
/// next agent that starts after it under another name.
fn targets_of(
    open: Vec<(u64, String)>,
    by_start: &[&Span],
    readings: &HashMap<SpanId, Reading>,
) -> Vec<(u64, Handoff)> {
    let mut out = Vec::new();
    for (at, from) in open {
        let next = by_start.iter().find_map(|s| {
            let r = &readings[&s.span_id];
            let name = r.agent.as_ref().filter(|_| r.kind() == Kind::Agent)?;
            (s.start_ns >= at && *name != from).then(|| name.clone())
        });
        if let Some(to) = next {
            out.push((at, Handoff { from, to }));
        }
    }
    out
}

fn price(model: &str, input: u64, output: u64, prices: Option<&PriceTable>) -> Option<f64> {
    let price = crate::pricing::price_of(model, prices, None)?;
    let usage = crate::bus::TokenUsage {
        input,
        output,
        ..Default::default()
    };
    Some(crate::pricing::cost(&usage, &price))
}
