//! The resilience pane's tools as listed: sickest first or sorted by
//! state, name, calls, latency or errors; every tool, the sick ones or
//! those that failed; following the first sick tool. Which tool is
//! selected is kept by the pane's `ListView`.

use super::selection::{ListView, Show, Shown, Sort};
use super::state::{Band, Resilience, ToolHealth};
use crate::bus::BreakerState;
use std::cmp::Reverse;

/// The sorts `o` cycles through.
pub(crate) const SORTS: &[Sort] = Sort::ALL;

/// What the title calls the rows `v` shows besides all of them.
pub(crate) const SHOW_WORDS: [&str; 2] = ["sick", "failed"];

/// The tools as `view` shows them, as indexes into `resilience.tools`.
pub(crate) fn shown(resilience: &Resilience, view: &ListView) -> Shown {
    let tools = &resilience.tools;
    let mut order: Vec<usize> = match view.sort {
        Sort::Natural => resilience
            .ordered()
            .into_iter()
            .filter_map(|tool| tools.iter().position(|t| std::ptr::eq(t, tool)))
            .collect(),
        _ => (0..tools.len()).collect(),
    };
    order.retain(|i| match view.show {
        Show::All => true,
        Show::Active => sick(&tools[*i]),
        Show::Failed => failed(&tools[*i]),
    });
    match view.sort {
        Sort::Natural => {}
        Sort::State => order.sort_by_key(|i| Reverse(state_rank(&tools[*i]))),
        Sort::Name => order.sort_by(|a, b| tools[*a].name.cmp(&tools[*b].name)),
        Sort::Attempts => order.sort_by_key(|i| Reverse(tools[*i].calls)),
        Sort::Latency => order.sort_by_key(|i| Reverse(tools[*i].latency(95))),
        Sort::Errors => order.sort_by_key(|i| Reverse(tools[*i].failures + tools[*i].rejected)),
    }
    let lead = order.iter().copied().find(|i| sick(&tools[*i]));
    Shown { order, lead }
}

/// The selected tool.
pub(crate) fn selected<'a>(resilience: &'a Resilience, view: &ListView) -> Option<&'a ToolHealth> {
    let item = view.item(&shown(resilience, view))?;
    resilience.tools.get(item)
}

/// A tool as searched: its name and its breaker's state.
pub(crate) fn text(tool: &ToolHealth) -> String {
    let breaker = match tool.breaker.as_ref().map(|b| b.state) {
        Some(BreakerState::Open) => "open",
        Some(BreakerState::HalfOpen) => "half-open",
        Some(BreakerState::Closed) => "closed",
        None => "",
    };
    format!("{} {breaker}", tool.name)
}

/// Out of the healthy band as last ranked.
fn sick(tool: &ToolHealth) -> bool {
    tool.rank.band > Band::Healthy
}

/// A failure or a call failed fast in the run.
fn failed(tool: &ToolHealth) -> bool {
    tool.failures > 0 || tool.rejected > 0
}

/// The breaker's state, open first, then the tool's health score.
fn state_rank(tool: &ToolHealth) -> (u8, u32) {
    let breaker = match tool.breaker.as_ref().filter(|b| !b.off).map(|b| b.state) {
        Some(BreakerState::Open) => 3,
        Some(BreakerState::HalfOpen) => 2,
        Some(BreakerState::Closed) => 1,
        None => 0,
    };
    (breaker, tool.rank.score)
}
