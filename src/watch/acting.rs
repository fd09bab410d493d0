//! Who acts in a watched run: the agent each span works for, and the
//! run's model calls with the agent each was made for, its tokens and its
//! cost. The summary sums these calls and the dashboard shows them per
//! agent, so the two never disagree. A model call is a model span, or a
//! message that tells of one (AutoGen writes no model span; the same
//! message reaches every recipient and is counted once, by its id).

use super::forest::Forest;
use super::read::{Reading, read};
use super::span::{Span, SpanId};
use super::summary::CostFrom;
use super::vocab::Kind;
use crate::scenario::PriceTable;
use std::collections::{HashMap, HashSet};

/// The agent each span works for.
pub(super) struct Agents<'a> {
    pub(super) forest: &'a Forest,
    pub(super) readings: &'a HashMap<SpanId, Reading>,
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

    /// The agent span `id` works for: the nearest span at or above it
    /// (`self` included when `with_self`) that names the agent it works
    /// for (LangGraph's graph node), or that is an agent span.
    pub(super) fn of(&self, id: SpanId, with_self: bool) -> Option<String> {
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

/// One model call of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelCall {
    /// The agent it was made for (`None` when no span says).
    pub agent: Option<String>,
    pub model: Option<String>,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// `None` when it could not be priced.
    pub cost_usd: Option<f64>,
    /// `Span` or `PriceTable`, when priced.
    pub cost_from: Option<CostFrom>,
}

/// The model calls of the run held in `forest`, in order of start.
pub fn model_calls(forest: &Forest, prices: Option<&PriceTable>) -> Vec<ModelCall> {
    let readings: HashMap<SpanId, Reading> =
        forest.arrived().map(|s| (s.span_id, read(s))).collect();
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
    let mut out = Vec::new();
    // The messages whose model calls are counted, by id.
    let mut told: HashSet<&str> = HashSet::new();
    for span in by_start {
        let r = &agents.readings[&span.span_id];
        if r.kind() == Kind::Model {
            let (input, output) = (r.input_tokens.unwrap_or(0), r.output_tokens.unwrap_or(0));
            let priced = match (r.cost_usd, r.model.as_deref()) {
                (Some(cost), _) => Some((cost, CostFrom::Span)),
                (None, Some(model)) => {
                    price(model, input, output, prices).map(|cost| (cost, CostFrom::PriceTable))
                }
                (None, None) => None,
            };
            out.push(ModelCall {
                agent: agents.of(span.span_id, true),
                model: r.model.clone(),
                input_tokens: input,
                output_tokens: output,
                cost_usd: priced.map(|(cost, _)| cost),
                cost_from: priced.map(|(_, from)| from),
            });
        }
        for usage in &r.message_usage {
            if told.insert(usage.id.as_str()) {
                out.push(ModelCall {
                    agent: usage.agent.clone(),
                    model: None,
                    input_tokens: usage.input_tokens,
                    output_tokens: usage.output_tokens,
                    cost_usd: None,
                    cost_from: None,
                });
            }
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
