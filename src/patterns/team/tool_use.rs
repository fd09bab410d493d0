//! An agent's tool call in a team run: through the gateway, bounded by
//! the agent's deadline (and a member team's caller's), the answer noted in
//! the turn's trace entry and published for the panes.

use super::agent::{Halt, TeamRun};
use super::trace::TraceEntry;
use crate::bus::EventKind;
use crate::gateway::{REAL_CALL_TIMEOUT, SafeModeVerdict, TimeoutFrom, ToolCall, ToolPolicy};
use crate::patterns::events::PatternEvent;
use crate::patterns::team::events::TeamEvent;
use crate::stop::StopReason;
use serde_json::{Value, json};
use std::time::Duration;

impl TeamRun<'_> {
    /// `agent`'s call of `tool` through the gateway, bounded by the
    /// agent's deadline, noted in the turn's trace `entry`; the history
    /// record of the call. A tool that fails answers with the error, for
    /// the agent to read on its next turn; only the deadline, cancelling
    /// the run and safe mode without partial results halt the agent.
    /// Without a timeout from the scenario an attempt gets
    /// [`REAL_CALL_TIMEOUT`] (003: every call has a timeout), the agent's
    /// deadline clipping it.
    pub(crate) async fn use_tool(
        &self,
        agent: &str,
        turn: u32,
        tool: &str,
        args: &Value,
        deadline: Option<Duration>,
        entry: &mut TraceEntry,
    ) -> Result<Value, Halt> {
        let path = self.part.path_of(agent);
        let task = format!("turn {turn} · {path}");
        let deadline = self.part.deadline(deadline);
        let known_as = self.part.tool_name(tool);
        // A failed tool call goes back to the agent as an error: safe mode
        // may skip it.
        let call = ToolCall {
            task: &task,
            tool: &known_as,
            args,
            critical: false,
        };
        let policy = ToolPolicy {
            max_attempts: 1,
            attempt_timeout: deadline.map_or(REAL_CALL_TIMEOUT, |at| {
                at.saturating_sub(self.now()).min(REAL_CALL_TIMEOUT)
            }),
            timeout_from: TimeoutFrom::Deadline,
        };
        let report = self
            .gateway
            .call_tool(call, &policy, &self.tool_limits, self.gate)
            .await;
        entry.target = Some(tool.to_string());
        entry.ok = Some(report.outcome.is_ok());
        entry.reason = report.outcome.as_ref().err().map(ToString::to_string);
        if let (Some(SafeModeVerdict::StopRun), Err(reason)) = (report.safe_mode, &report.outcome) {
            *self.run.safe_mode_stop.lock() = Some(reason.clone());
            return Err(Halt::Stop(reason.clone()));
        }
        let observation = match report.outcome {
            Err(StopReason::Cancelled) => return Err(Halt::Stop(StopReason::Cancelled)),
            Err(StopReason::TaskTimeout) if deadline.is_some_and(|at| self.now() >= at) => {
                return Err(Halt::Cut);
            }
            Ok(observation) => observation,
            Err(reason) => json!({"error": reason}),
        };
        self.bus.publish(EventKind::Pattern(PatternEvent::Team(
            TeamEvent::ToolUsed {
                turn,
                agent: path.into_owned(),
                tool: known_as.into_owned(),
                args: crate::patterns::team::events::turn_json(args),
                // What the tool answered, without the gateway's wrapping.
                result: crate::patterns::team::events::turn_json(
                    observation.get("result").unwrap_or(&observation),
                ),
                ok: entry.ok == Some(true),
            },
        )));
        Ok(
            json!({"turn": turn, "agent": agent, "tool": tool, "args": args,
                  "observation": observation}),
        )
    }
}
