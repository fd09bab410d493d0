//! The events of a team of agents (swarm and coordinator) and their
//! vocabulary: how an agent's turn ended and why a transfer was refused.
//! The bus carries them as `PatternEvent` (`patterns::events`); the
//! result documents and every viewer read them. Data only.

use crate::bus::CallOutcome;
use crate::bus::event_kinds::event_kinds;
use crate::scenario::PatternKind;
use crate::stop::StopReason;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use std::fmt;

/// How many characters of a turn's words (a transfer's message, a tool
/// call's arguments or result) its events carry: enough to read on a
/// screen, bounded however much the model or the tool wrote.
pub const TURN_TEXT_CHARS: usize = 600;

/// `text` cut to [`TURN_TEXT_CHARS`], with `…` where it was cut.
pub(crate) fn turn_text(text: &str) -> String {
    match text.char_indices().nth(TURN_TEXT_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// `value` as compact JSON text (a string as itself), cut as
/// [`turn_text`] cuts.
pub(crate) fn turn_json(value: &Value) -> String {
    match value {
        Value::String(text) => turn_text(text),
        other => turn_text(&other.to_string()),
    }
}

/// How one turn of an agent ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnOutcome {
    /// The agent answered: in a swarm the run ends with its reply; in a
    /// coordinator team a member's reply goes back to the coordinator.
    Reply,
    /// The agent asked to hand control to another agent.
    Transfer,
    /// The agent asked for a tool call.
    ToolCall,
    /// The coordinator asked for member calls.
    CallMembers,
    /// The model call timed out or failed.
    Timeout,
    /// The model answered nothing.
    Empty,
    /// The agent's deadline cut the call off.
    Cut,
    /// The output fits no kind of turn.
    Invalid,
    /// The run was cancelled during the call.
    Cancelled,
}

impl TurnOutcome {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            TurnOutcome::Reply => "reply",
            TurnOutcome::Transfer => "transfer",
            TurnOutcome::ToolCall => "tool_call",
            TurnOutcome::CallMembers => "call_members",
            TurnOutcome::Timeout => "timeout",
            TurnOutcome::Empty => "empty",
            TurnOutcome::Cut => "cut",
            TurnOutcome::Invalid => "invalid",
            TurnOutcome::Cancelled => "cancelled",
        }
    }
}

/// Why a transfer was refused, written as 002's swarm names its
/// rejections (`unknown_agent:ghost`). A refused transfer does not end the
/// run: the agent that asked takes its next turn.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum HandoffRejection {
    /// No agent of that name is declared.
    UnknownAgent { agent: String },
    /// The agent named itself.
    SelfTransfer,
    /// A flag that is off gates the target.
    AgentDenied { agent: String },
    /// More transfers than `max_handoffs` were asked for.
    MaxHandoffsExceeded,
    /// The window of recent targets holds too few distinct names.
    RepetitiveHandoff,
    /// A reason this build does not know, read from another version's
    /// recording.
    Other(String),
}

impl HandoffRejection {}

impl fmt::Display for HandoffRejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HandoffRejection::UnknownAgent { agent } => write!(f, "unknown_agent:{agent}"),
            HandoffRejection::SelfTransfer => f.write_str("self_transfer"),
            HandoffRejection::AgentDenied { agent } => write!(f, "agent_denied:{agent}"),
            HandoffRejection::MaxHandoffsExceeded => f.write_str("max_handoffs_exceeded"),
            HandoffRejection::RepetitiveHandoff => f.write_str("repetitive_handoff"),
            HandoffRejection::Other(s) => f.write_str(s),
        }
    }
}

impl HandoffRejection {
    fn parse(s: &str) -> HandoffRejection {
        match s {
            "self_transfer" => HandoffRejection::SelfTransfer,
            "max_handoffs_exceeded" => HandoffRejection::MaxHandoffsExceeded,
            "repetitive_handoff" => HandoffRejection::RepetitiveHandoff,
            other => match other.split_once(':') {
                Some(("unknown_agent", agent)) => HandoffRejection::UnknownAgent {
                    agent: agent.to_string(),
                },
                Some(("agent_denied", agent)) => HandoffRejection::AgentDenied {
                    agent: agent.to_string(),
                },
                _ => HandoffRejection::Other(other.to_string()),
            },
        }
    }
}

impl Serialize for HandoffRejection {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for HandoffRejection {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = std::borrow::Cow::<str>::deserialize(deserializer)?;
        Ok(HandoffRejection::parse(&s))
    }
}

/// A coordinator's member that is a team of its own (002's "Team of
/// Teams"), as its member call announces it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemberTeam {
    /// The team's name in the scenario's `teams`.
    pub name: String,
    /// `swarm` or `coordinator`.
    pub pattern: String,
    /// The agent that takes the team's first turn.
    pub entry: String,
    /// Where the team sits in the run's tree of teams: the top
    /// coordinator's name, then each member team's name down to this one
    /// (`launch/research_team`). Its agents are named `PATH/AGENT` in
    /// every event, the log and the usage by agent.
    pub path: String,
}

impl MemberTeam {
    /// Whether the team is a coordinator's, its lead calling members by
    /// name, rather than a swarm's, its agents handing control on.
    pub(crate) fn is_coordinator(&self) -> bool {
        self.pattern == PatternKind::Coordinator.as_str()
    }
}

event_kinds! {
/// The events of a team of agents (swarm and coordinator): turns,
/// transfers of control, tool calls and the coordinator's member calls.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TeamEvent, read as TeamNamed = "TeamEvent" {
    /// An agent of a swarm or coordinator team takes a turn: one model call.
    TurnStarted {
        /// 1, 2, 3 … over the run, members' turns included.
        turn: u32,
        agent: String,
    },
    TurnFinished {
        turn: u32,
        agent: String,
        outcome: TurnOutcome,
        /// Run time the model call took (up to the cut, when cut off).
        latency_ms: u64,
    },
    /// The agent holding control asked to hand it to `to`.
    TransferRequested {
        turn: u32,
        from: String,
        to: String,
        /// The message the agent handed over with control, cut to
        /// [`TURN_TEXT_CHARS`].
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message: Option<String>,
    },
    /// An agent's turn called a tool (swarm, coordinator and its members):
    /// what it asked and what came back, each as JSON text cut to
    /// [`TURN_TEXT_CHARS`], so that a pane shows the call as
    /// it happens and not only the final history.
    ToolUsed {
        turn: u32,
        agent: String,
        tool: String,
        args: String,
        result: String,
        ok: bool,
    },
    /// `to` holds control from now on.
    HandoffAccepted {
        from: String,
        to: String,
        /// Transfers counted so far, this one included.
        handoffs: u64,
        /// The recent targets the loop check looks at, oldest first.
        window: Vec<String>,
        /// Run time by which `to` must be done (`node_timeout_ms`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        deadline_ms: Option<u64>,
    },
    /// The transfer was refused; `from` keeps control.
    HandoffRejected {
        from: String,
        to: String,
        reason: HandoffRejection,
        /// Transfers counted so far (refused ones count unless the reason
        /// says otherwise).
        handoffs: u64,
        window: Vec<String>,
    },
    /// The coordinator calls a member as a tool.
    MemberCallStarted {
        /// The coordinator's turn that asked for the call.
        turn: u32,
        member: String,
        task: String,
        /// Run time by which the member must answer (`member_timeout_ms`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        deadline_ms: Option<u64>,
        /// The team the member is, when it is one (a nested team): the
        /// events of its agents follow, named `PATH/AGENT`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        team: Option<MemberTeam>,
    },
    MemberCallFinished {
        turn: u32,
        member: String,
        outcome: CallOutcome,
        latency_ms: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reply: Option<String>,
        /// Why the call failed, when it did.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<StopReason>,
    },
}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejections_round_trip_as_002_writes_them() {
        for (reason, wire) in [
            (
                HandoffRejection::UnknownAgent {
                    agent: "ghost".into(),
                },
                "unknown_agent:ghost",
            ),
            (HandoffRejection::SelfTransfer, "self_transfer"),
            (
                HandoffRejection::AgentDenied {
                    agent: "refunds".into(),
                },
                "agent_denied:refunds",
            ),
            (
                HandoffRejection::MaxHandoffsExceeded,
                "max_handoffs_exceeded",
            ),
            (HandoffRejection::RepetitiveHandoff, "repetitive_handoff"),
            (HandoffRejection::Other("later:x".into()), "later:x"),
        ] {
            let json = serde_json::to_value(&reason).unwrap();
            assert_eq!(json, wire);
            assert_eq!(
                serde_json::from_value::<HandoffRejection>(json).unwrap(),
                reason
            );
        }
    }
}
