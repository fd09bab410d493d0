//! Who acts in a watched run: the agent each span works for, and the
//! run's model calls with the agent each was made for, its tokens and its
//! cost. The summary sums these calls and the dashboard shows them per
//! agent, so the two never disagree. A model call is a model span, or a
//! message that tells of one (AutoGen writes no model span of its own; the
//! same message reaches every recipient and is counted once, by its id).
//! Where the run has model spans too (AutoGen with its OpenAI client
//! instrumented), a message's usage is matched to the model span with the
//! same tokens and never added to it: only a message no span matches is a
//! call of its own. A call made while its agent's span is still open (no
//! agent span above it has arrived, and it names no agent itself) is the
//! agent the run's last handoff went to: the Agents SDK's calls after a
//! handoff, until the new agent's span ends.

use super::forest::Forest;
use super::read::{Reading, Readings};
use super::vocab::Kind;
use crate::pricing::price_as;
use crate::scenario::PriceTable;
use crate::span::{Span, SpanId};
use serde::Serialize;
use std::collections::{HashMap, HashSet, VecDeque};

/// Where a call's cost came from, and a run's: the summary sums its
/// calls' and says `mixed` where they differ.
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

/// The agent each span works for.
pub(super) struct Agents<'a> {
    pub(super) forest: &'a Forest,
    pub(super) readings: &'a Readings,
}

impl Agents<'_> {
    /// The agent that called agent span `id` through a tool (PydanticAI's
    /// delegation nests the callee's agent span under the caller's tool
    /// span), and the tool span: a handoff from that agent to this one,
    /// once per tool span (a callee's later turns under the same call,
    /// as Conclave's coordinator members take them, are no new handoff).
    pub(super) fn delegated_by(&self, id: SpanId) -> Option<(SpanId, String)> {
        let mut through_tool = None;
        for up in self.forest.ancestry(id).into_iter().skip(1) {
            let Some(r) = self.readings.get(&up) else {
                continue;
            };
            match r.kind() {
                Kind::Tool => through_tool = through_tool.or(Some(up)),
                Kind::Agent => return through_tool.zip(r.agent.clone()),
                _ => {}
            }
        }
        None
    }

    /// Whether span `id` hangs under a placeholder: a span above it has
    /// not arrived (an agent's span arrives when the agent is done).
    pub(super) fn waits_for_its_agent(&self, id: SpanId) -> bool {
        let ancestry = self.forest.ancestry(id);
        ancestry
            .last()
            .is_some_and(|top| self.forest.get(*top).is_none_or(|n| n.span.is_none()))
    }

    /// The agent span `id` works for: the nearest span at or above it
    /// (`self` included when `with_self`) that names the agent it works
    /// for (LangGraph's graph node), or that is an agent span. A model or
    /// tool call with none above it (its agent span has not arrived:
    /// spans arrive when they end) is the agent it names itself
    /// (PydanticAI's `gen_ai.agent.name`, CrewAI's `tool.agent_role`).
    pub(super) fn of(&self, id: SpanId, with_self: bool) -> Option<String> {
        self.above(id, with_self).or_else(|| self.named_by(id))
    }

    /// The agent the nearest span at or above `id` names.
    pub(super) fn above(&self, id: SpanId, with_self: bool) -> Option<String> {
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

    /// The agent model or tool call `id` names for itself.
    fn named_by(&self, id: SpanId) -> Option<String> {
        let r = self.readings.get(&id)?;
        matches!(r.kind(), Kind::Model | Kind::Tool)
            .then(|| r.caller.clone())
            .flatten()
    }
}

/// One model call of a run.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ModelCall {
    /// The agent it was made for (`None` when no span says).
    pub(crate) agent: Option<String>,
    pub(crate) model: Option<String>,
    pub(crate) input_tokens: u64,
    pub(crate) output_tokens: u64,
    /// The part of `input_tokens` served from the prompt cache (charged
    /// at the cached-input price).
    pub(crate) cached_input_tokens: u64,
    /// `None` when it could not be priced.
    pub(crate) cost_usd: Option<f64>,
    /// `Span` or `PriceTable`, when priced.
    pub(crate) cost_from: Option<CostFrom>,
    /// The name the price table priced it as, when that is not `model`
    /// (a dated snapshot's base name, or the model asked for).
    pub(crate) priced_as: Option<String>,
}

/// The model calls of the run held in `forest`, in order of start.
#[cfg(test)]
pub(crate) fn model_calls(forest: &Forest, prices: Option<&PriceTable>) -> Vec<ModelCall> {
    let readings: Readings = forest
        .arrived()
        .map(|s| (s.span_id, Box::new(super::read::read(s))))
        .collect();
    let mut by_start: Vec<&Span> = forest.arrived().collect();
    by_start.sort_by_key(|s| s.start_ns);
    let agents = Agents {
        forest,
        readings: &readings,
    };
    calls_of(&by_start, &agents, prices)
}

/// The model calls of spans `by_start` (in order of start), read by `agents`.
pub(super) fn calls_of(
    by_start: &[&Span],
    agents: &Agents<'_>,
    prices: Option<&PriceTable>,
) -> Vec<ModelCall> {
    let mut out: Vec<ModelCall> = Vec::new();
    // The agent the run's last handoff went to, by start.
    let mut handed_to: Option<&str> = None;
    for span in by_start {
        let r = &agents.readings[&span.span_id];
        if r.kind() == Kind::Handoff
            && let Some(to) = &r.handoff_to
        {
            handed_to = Some(to);
        }
        if r.kind() == Kind::Model {
            let mut call = span_call(span, r, agents, prices);
            // Under a placeholder after a handoff, the handoff's target is
            // surer than a name the call gives itself (the contrib Agents
            // SDK instrumentation stamps "OpenAI Agent" on every call).
            if let Some(to) = handed_to
                && agents.above(span.span_id, true).is_none()
                && agents.waits_for_its_agent(span.span_id)
            {
                call.agent = Some(to.to_string());
            }
            out.push(call);
        }
    }
    // The model spans no message has been matched to yet, by their
    // tokens, each list in order of start.
    let mut unmatched: HashMap<(u64, u64), VecDeque<usize>> = HashMap::new();
    for (at, call) in out.iter().enumerate() {
        let tokens = (call.input_tokens, call.output_tokens);
        unmatched.entry(tokens).or_default().push_back(at);
    }
    // The messages whose model calls are counted, by id.
    let mut told: HashSet<&str> = HashSet::new();
    for span in by_start {
        let r = &agents.readings[&span.span_id];
        for usage in &r.message_usage {
            if !told.insert(usage.id.as_str()) {
                continue;
            }
            let same = unmatched
                .get_mut(&(usage.input_tokens, usage.output_tokens))
                .and_then(VecDeque::pop_front);
            match same {
                // The span told this call already: the message names its agent.
                Some(at) => {
                    let call = &mut out[at];
                    if call.agent.is_none() {
                        call.agent.clone_from(&usage.agent);
                    }
                }
                None => out.push(ModelCall {
                    agent: usage.agent.clone(),
                    model: None,
                    input_tokens: usage.input_tokens,
                    output_tokens: usage.output_tokens,
                    cached_input_tokens: 0,
                    cost_usd: None,
                    cost_from: None,
                    priced_as: None,
                }),
            }
        }
    }
    out
}

/// The model call model span `span` (read as `r`) tells of: its cost its
/// own when it carries one (the framework's figure is what the user
/// pays), else from the price table by the model that answered, a dated
/// snapshot by its base name, or the model asked for.
fn span_call(
    span: &Span,
    r: &Reading,
    agents: &Agents<'_>,
    prices: Option<&PriceTable>,
) -> ModelCall {
    let (input, output, cached) = tokens_of(r);
    let (priced, priced_as) = priced(r, prices);
    ModelCall {
        agent: agents.of(span.span_id, true),
        model: r.model.clone(),
        input_tokens: input,
        output_tokens: output,
        cached_input_tokens: cached,
        cost_usd: priced.map(|(cost, _)| cost),
        cost_from: priced.map(|(_, from)| from),
        priced_as,
    }
}

/// A model span's input, output and cached input tokens (the cached
/// ones never more than the input).
pub(super) fn tokens_of(r: &Reading) -> (u64, u64, u64) {
    let (input, output) = (r.input_tokens.unwrap_or(0), r.output_tokens.unwrap_or(0));
    (input, output, r.cached_input_tokens.unwrap_or(0).min(input))
}

/// What a model span read as `r` cost and where the figure came from,
/// and the price table's name for its model when that is not the span's.
pub(super) fn priced(
    r: &Reading,
    prices: Option<&PriceTable>,
) -> (Option<(f64, CostFrom)>, Option<String>) {
    let (input, output, cached) = tokens_of(r);
    let mut priced_as = None;
    let priced = match (r.cost_usd, r.model.as_deref()) {
        (Some(cost), _) => Some((cost, CostFrom::Span)),
        (None, Some(model)) => {
            price_as(model, r.request_model.as_deref(), prices).map(|(price, name)| {
                if name != model {
                    priced_as = Some(name);
                }
                let usage = crate::bus::TokenUsage {
                    input,
                    output,
                    cached,
                    ..Default::default()
                };
                (crate::pricing::cost(&usage, &price), CostFrom::PriceTable)
            })
        }
        (None, None) => None,
    };
    (priced, priced_as)
}
