//! What each agent of a watched run spent on model calls: the watch's
//! own reading of the calls, summed per agent, for the agents pane and
//! the run's reading.

use crate::scenario::PriceTable;
use crate::watch::acting::model_calls;
use crate::watch::forest::Forest;
use crate::watch::summary::CostFrom;

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
