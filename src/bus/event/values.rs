//! The small values events carry: token counts, flag states, a run's
//! status and model, budgets, gates and call outcomes. Data only: the
//! patterns' event files read them, so nothing here imports the bus's
//! upper parts.

pub use crate::bus::pattern::GateKind;
use crate::bus::pattern::StepPhase;
use crate::scenario::ProviderKind;
use crate::span::Span;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::Arc;

/// Who serves a run's model calls and under which model name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunModel {
    pub provider: ProviderKind,
    pub name: String,
    /// The endpoint's base URL, without any user or password in it: a
    /// fork's live part goes there unless asked otherwise. Absent for the
    /// sim and in recordings made before it was written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
}

/// Tokens a model call took: prompt in, completion out, and what they
/// cost when the model has a price. `cached` is a part of `input` and
/// `reasoning` a part of `output`, as the endpoint bills them: never
/// added on top.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TokenUsage {
    pub input: u64,
    pub output: u64,
    /// Prompt tokens the endpoint served from its prompt cache
    /// (`prompt_tokens_details.cached_tokens`), at most `input`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cached: u64,
    /// Output tokens the model spent reasoning before its answer
    /// (`completion_tokens_details.reasoning_tokens`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub reasoning: u64,
    /// US dollars, from the model's price per million tokens; absent when
    /// the model has none (or in a recording made before prices).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// The counts are the simulated model's estimate from the length of
    /// the text, not an endpoint's count.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub estimated: bool,
}

/// Counts of zero are left out, so that usage without cached or
/// reasoning tokens reads as it did before they were counted.
fn is_zero(count: &u64) -> bool {
    *count == 0
}

impl TokenUsage {
    /// Input and output together.
    pub fn total(&self) -> u64 {
        self.input.saturating_add(self.output)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlagState {
    pub name: String,
    pub on: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    Ok,
    Stopped,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BudgetKind {
    Messages,
    /// Orchestrator attempts started, retries included.
    Dispatches,
    /// Model calls a swarm or coordinator team started.
    LlmCalls,
}

impl BudgetKind {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            BudgetKind::Messages => "messages",
            BudgetKind::Dispatches => "dispatches",
            BudgetKind::LlmCalls => "llm_calls",
        }
    }
}

/// Where a run checks its control channel.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "before", rename_all = "snake_case")]
pub enum GatePoint {
    Round {
        round: u32,
    },
    /// Before the orchestrator starts queued tasks in the free dispatch
    /// slots (the first wave fills them all; later ones refill freed slots).
    Wave {
        wave: u32,
    },
    /// Before the gateway starts attempt `attempt` of a task again.
    Retry {
        task: String,
        attempt: u32,
    },
    /// Before an agent of a swarm or coordinator team takes a turn.
    Turn {
        turn: u32,
        agent: String,
    },
    /// Before a step of the research workflow.
    Step {
        step: u32,
        phase: StepPhase,
    },
    /// Where a round table that escalated waits for a person's decision,
    /// after round `round` (not before the next one: the person may end
    /// the run there).
    Decision {
        round: u32,
    },
    /// Before the `step`-th activation of a graph run, of node `node`
    /// (a human node asks its question here too).
    Activation {
        step: u32,
        node: String,
    },
}

impl fmt::Display for GatePoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GatePoint::Round { round } => write!(f, "before round {round}"),
            GatePoint::Wave { wave } => write!(f, "before dispatch wave {wave}"),
            GatePoint::Retry { task, attempt } => {
                write!(f, "before attempt {attempt} of task {task}")
            }
            GatePoint::Turn { turn, agent } => write!(f, "before turn {turn} ({agent})"),
            GatePoint::Step { step, phase } => write!(f, "before step {step} ({phase})"),
            GatePoint::Decision { round } => {
                write!(f, "before a person's decision after round {round}")
            }
            GatePoint::Activation { step, node } => write!(f, "before step {step} ({node})"),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallOutcome {
    Ok,
    Timeout,
    Error,
    Cancelled,
    /// The gateway refused the call before it reached the tool (allowlist,
    /// budget, deadline, open breaker, full bulkhead or retry budget).
    Refused,
}

impl CallOutcome {
    /// The outcome as the event log words it.
    pub(crate) fn word(self) -> &'static str {
        match self {
            CallOutcome::Ok => "ok",
            CallOutcome::Timeout => "timeout",
            CallOutcome::Error => "error",
            CallOutcome::Cancelled => "cancelled",
            CallOutcome::Refused => "refused",
        }
    }
}

/// How an answer's JSON was found in its text (the gateway reads an
/// endpoint's answer leniently; see `provider::lenient`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Extracted {
    /// Inside a Markdown code fence.
    Fence,
    /// Inside prose, between words before or after it.
    Prose,
}

/// A watched span as a `span_arrived` event carries it: the watch's own
/// span, shared with the forests that hold it (the watch's and the
/// pane's) rather than copied or written out as text, and written into
/// the event's JSON as the compact span a watch recording writes. A
/// span a recording holds that this version cannot read (another
/// version's) is kept as the JSON it was and written back as it was;
/// the pane counts it unread.
#[derive(Clone, Debug, PartialEq)]
pub struct WatchedSpan(Arrived);

#[derive(Clone, Debug, PartialEq)]
enum Arrived {
    Read(Arc<Span>),
    Unread(Box<serde_json::Value>),
}

impl WatchedSpan {
    /// `span`, shared.
    pub(crate) fn of(span: Arc<Span>) -> WatchedSpan {
        WatchedSpan(Arrived::Read(span))
    }

    /// The span, where this version could read it.
    pub(crate) fn span(&self) -> Option<&Arc<Span>> {
        match &self.0 {
            Arrived::Read(span) => Some(span),
            Arrived::Unread(_) => None,
        }
    }
}

impl Serialize for WatchedSpan {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            Arrived::Read(span) => span.serialize(serializer),
            Arrived::Unread(value) => value.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for WatchedSpan {
    /// Read through a value, so that an event read from any source (a
    /// file, a message, a value in a test) gives its span, and a span
    /// this version cannot read still gives its event.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<WatchedSpan, D::Error> {
        let value = serde_json::Value::deserialize(deserializer)?;
        Ok(WatchedSpan(match Span::deserialize(&value) {
            Ok(span) => Arrived::Read(Arc::new(span)),
            Err(_) => Arrived::Unread(Box::new(value)),
        }))
    }
}
