//! What steering did to a run's tool calls, on its line: a call a person
//! or a rule rejected is `rejected`, not the `ok` its span says (the tool
//! answered, with the rejection). Decisions and calls of a tool are
//! matched in order, and only when each call of it was decided.

use super::protocol::{Decision, SteerSummary};
use crate::watch::summary::{ToolCall, WatchSummary};

/// `summary` with the run's steering (when it had any), its rejected
/// calls marked.
pub(crate) fn with_steering(summary: &mut WatchSummary, steering: Option<SteerSummary>) {
    if let Some(steering) = &steering {
        steering.mark_rejected(&mut summary.tool_calls);
    }
    summary.steering = steering;
}

impl SteerSummary {
    /// Mark the calls in `calls` that were rejected.
    pub(crate) fn mark_rejected(&self, calls: &mut [ToolCall]) {
        let mut tools: Vec<&str> = calls.iter().map(|c| c.tool.as_str()).collect();
        tools.sort_unstable();
        tools.dedup();
        let tools: Vec<String> = tools.into_iter().map(str::to_string).collect();
        for tool in tools {
            let rejected: Vec<bool> = self
                .decisions
                .iter()
                .filter_map(|t| match &t.decision {
                    Decision::Approved { tool: of, .. } if *of == tool => Some(false),
                    Decision::Rejected { tool: of, .. } if *of == tool => Some(true),
                    _ => None,
                })
                .collect();
            let mut of_tool: Vec<&mut ToolCall> =
                calls.iter_mut().filter(|c| c.tool == tool).collect();
            if rejected.len() != of_tool.len() {
                continue;
            }
            for (call, rejected) in of_tool.iter_mut().zip(rejected) {
                if rejected {
                    call.status = "rejected";
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::watch::steer::protocol::{By, Timed};

    fn call(tool: &str) -> ToolCall {
        ToolCall {
            agent: Some("Billing Agent".into()),
            tool: tool.into(),
            status: "ok",
            ms: 3,
        }
    }

    fn decided(decision: Decision) -> Timed {
        Timed { at_ms: 1, decision }
    }

    #[test]
    fn a_rejected_call_is_rejected_on_the_line_and_an_undecided_tool_is_left_as_it_was() {
        let approved = Decision::Approved {
            tool: "lookup".into(),
            agent: None,
            by: By::Person,
            arguments: None,
            for_the_run: false,
        };
        let rejected = |tool: &str| Decision::Rejected {
            tool: tool.into(),
            agent: None,
            reason: "no".into(),
            by: By::Rule,
        };
        let summary = SteerSummary {
            decisions: vec![
                decided(approved),
                decided(rejected("lookup")),
                decided(rejected("wire")),
            ],
            ..SteerSummary::default()
        };
        let mut calls = vec![call("lookup"), call("count"), call("lookup"), call("wire")];
        // Two calls of wire, one decision: which one is unknown, so neither.
        calls.push(call("wire"));
        summary.mark_rejected(&mut calls);
        let status: Vec<&str> = calls.iter().map(|c| c.status).collect();
        assert_eq!(status, ["ok", "ok", "rejected", "ok", "ok"]);
    }
}
