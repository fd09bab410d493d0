//! The agents pane's rows, made with each reading (so a frame draws only
//! the rows it shows): the agents in order of first activity, each with
//! its spend, the calls of no agent a span names, the handoffs in order
//! (from → to), then one worker row per tool call. Pure: a summary and
//! the spend per agent in, rows of text out; the pane cleans and fits
//! them as it draws.

use super::spend::AgentSpend;
use crate::figures::{compact, dollars};
use crate::tui::widgets::millis;
use crate::watch::summary::{CostFrom, WatchSummary};

/// How a row is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Look {
    Agent,
    Quiet,
    Handoff,
    Ok,
    Failed,
}

/// One row of the agents pane.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ChainRow {
    pub(crate) text: String,
    pub(crate) look: Look,
}

fn row(text: String, look: Look) -> ChainRow {
    ChainRow { text, look }
}

/// The cost in words, marked where it came from.
pub(crate) fn cost_words(cost: Option<f64>, from: Option<CostFrom>) -> String {
    match (cost, from) {
        (None, _) => "cost unknown (unpriced)".into(),
        (Some(c), Some(CostFrom::Span)) => format!("${} (from span)", dollars(c)),
        (Some(c), Some(CostFrom::PriceTable)) => format!("${} (from price table)", dollars(c)),
        (Some(c), _) => format!("${} (from span and price table)", dollars(c)),
    }
}

fn spend_words(spend: &AgentSpend) -> String {
    format!(
        "{} {} · {} in / {} out · {}",
        spend.calls,
        if spend.calls == 1 { "call" } else { "calls" },
        compact(spend.input_tokens),
        compact(spend.output_tokens),
        cost_words(spend.cost_usd, spend.cost_from)
    )
}

/// The rows of `summary` with `spend`.
pub(crate) fn rows(summary: &WatchSummary, spend: &[AgentSpend]) -> Vec<ChainRow> {
    let named: std::collections::HashSet<&str> =
        summary.agents.iter().map(String::as_str).collect();
    let by_agent: std::collections::HashMap<&str, &AgentSpend> =
        spend.iter().map(|s| (s.agent.as_str(), s)).collect();
    let mut rows = Vec::new();
    for agent in &summary.agents {
        rows.push(row(format!("▸ {agent}"), Look::Agent));
        if let Some(spent) = by_agent.get(agent.as_str()) {
            rows.push(row(format!("    {}", spend_words(spent)), Look::Quiet));
        }
    }
    for spent in spend.iter().filter(|s| !named.contains(s.agent.as_str())) {
        let text = format!("▸ {} · {}", spent.agent, spend_words(spent));
        rows.push(row(text, Look::Quiet));
    }
    for handoff in &summary.handoffs {
        let text = format!("  {} → {}", handoff.from, handoff.to);
        rows.push(row(text, Look::Handoff));
    }
    for call in &summary.tool_calls {
        let (glyph, look) = if call.status == "error" {
            ("✗", Look::Failed)
        } else {
            ("✓", Look::Ok)
        };
        let text = format!(
            "{glyph} {} · {} · {}",
            call.tool,
            call.agent.as_deref().unwrap_or("(no agent)"),
            millis(call.ms)
        );
        rows.push(row(text, look));
    }
    rows
}
