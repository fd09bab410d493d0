//! The events a run publishes: what every viewer, the recorder and replay
//! understand. One JSON object per event, `{"run", "seq", "t_ms", "type", ...}`.
//! Adding a kind is backwards compatible; renaming one breaks old recordings.

use super::cassette::CallRecord;
use super::event_kinds::event_kinds;
use super::pattern::{PatternEvents, PatternPayload};
use super::question::AnsweredBy;
use super::resilience::{BreakerReason, BreakerState};
use super::result_doc::ResultDoc;
use super::summary::RunSummary;
pub use crate::clock::ClockMode;
use crate::scenario::PatternKind;
use crate::stop::StopReason;
use serde::{Deserialize, Serialize};

use std::sync::Arc;

pub(crate) mod named;

/// Whether this version reads events of the kind `name`, one every run
/// shares or a pattern's.
pub(crate) fn is_known_kind(name: &str) -> bool {
    named::is_known_kind_of::<PatternEvents>(name)
}
mod start;
pub(crate) mod values;
mod wire;

pub use start::RunStarted;
pub(crate) use start::WATCH_SOURCE;
pub use values::{
    BudgetKind, CallOutcome, FlagState, GateKind, GatePoint, RunModel, RunStatus, TokenUsage,
    WatchedSpan,
};

/// Which run of this process an event belongs to (1, 2, 3 …).
pub(crate) type RunId = u32;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(
    from = "wire::WireEvent<P>",
    bound(serialize = "P: Serialize", deserialize = "P: PatternPayload")
)]
pub struct Event<P = PatternEvents> {
    pub run: RunId,
    /// 1, 2, 3 … per run, without gaps.
    pub seq: u64,
    /// Milliseconds since the run started, on the engine's run clock.
    pub t_ms: u64,
    #[serde(flatten)]
    pub kind: EventKind<P>,
}

event_kinds! {
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    bound(serialize = "P: Serialize", deserialize = "P: PatternPayload")
)]
pub enum EventKind<P = PatternEvents>, read as KindNamed = "EventKind" {
    RunStarted(RunStarted),
    RunFinished {
        status: RunStatus,
        stop_reason: StopReason,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        phase: Option<String>,
        /// The run's result document, as `run --headless` prints it;
        /// shared with the run's outcome and every viewer, not copied (for
        /// a large run it is the biggest thing the run makes).
        result: Arc<ResultDoc>,
        /// The result in types, for viewers. An event read without one (a
        /// recording made before it was written) gets the one its `result`
        /// stands for. Boxed: every event is as big as the biggest kind.
        #[serde(default)]
        summary: Box<RunSummary>,
        /// What went wrong with the last failed model call, when the run
        /// stopped on it (e.g. which variable holds a refused key).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    /// A question asked at a gate got its answer (see
    /// [`crate::bus::Question`]): from a person in the dashboard, on the
    /// command line or by a control message, or the question's default.
    HumanDecided {
        /// The chosen option's name.
        choice: String,
        /// What the person added to the shared context, if anything.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<String>,
        /// The gate the answer was given at, so that a cassette gives it
        /// there again; absent in recordings made before cassettes.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        gate: Option<GatePoint>,
        /// Written only when nobody answered and the question's default
        /// did; absent, a person answered (as in every recording made
        /// before questions had defaults), so those recordings read and
        /// are written as they were.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        by: Option<AnsweredBy>,
    },
    BudgetConsumed {
        budget: BudgetKind,
        used: u64,
        limit: u64,
    },
    FlagChanged {
        name: String,
        on: bool,
        /// The gate the change took effect at, so that a cassette makes it
        /// there again; absent in recordings made before cassettes.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        gate: Option<GatePoint>,
    },
    Paused {
        gate: GatePoint,
    },
    Resumed {
        gate: GatePoint,
    },
    Stepped {
        gate: GatePoint,
    },
    CallStarted {
        call: u64,
        tool: String,
        attempt: u32,
        /// What the call is for, e.g. `round 2 · risk_analyst`.
        label: String,
        /// The role or agent a model call speaks for (a round table's
        /// role, a turn's agent or member), so that a pane can show its
        /// text as it arrives where that agent sits.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        agent: Option<String>,
    },
    /// Text of a streaming model call as it arrived since the previous
    /// delta of that call: the deltas of a call, in order, concatenate to
    /// its text (those marked `reasoning`, to its reasoning; those marked
    /// `arguments`, to its function calls' arguments). Published at most
    /// once per 50 ms per call (a call whose text turns from reasoning to
    /// answer within one may publish a delta of each at once); what is
    /// left is published before the call's `call_finished`.
    CallDelta {
        call: u64,
        text: String,
        /// The text is the model's reasoning (`reasoning_content`), which
        /// comes before its answer and is never part of it.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        reasoning: bool,
        /// The text is a function call's arguments as the model writes
        /// them (tool mode): the answer in the making, which the call's
        /// answer is read from, though not the call's text. Absent in
        /// recordings made before it was published.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        arguments: bool,
    },
    CallFinished {
        call: u64,
        tool: String,
        attempt: u32,
        latency_ms: u64,
        outcome: CallOutcome,
        /// Tokens the model call took, when the endpoint counts them.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        usage: Option<TokenUsage>,
        /// Why the call failed, in words (never the API key).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
        /// The HTTP status a real worker's endpoint answered with, when it
        /// answered with an error.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        http_status: Option<u16>,
        /// A streamed model call: run time from the call's start to its
        /// first text.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        first_token_ms: Option<u64>,
        /// A streamed model call: output tokens a second, from the first
        /// text to the last (when the endpoint counted the tokens).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tokens_per_s: Option<f64>,
        /// The call was served from a cassette: its answer is the
        /// recording's, it cost nothing now and nothing left the machine.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        served: bool,
        /// The model's reasoning text (`reasoning_content`), whole and
        /// scrubbed: kept apart from the answer, never part of a prompt,
        /// and served again by a cassette.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reasoning: Option<String>,
        /// What was asked and what came back, for a cassette to serve the
        /// call again.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        record: Option<Box<CallRecord>>,
        /// How an endpoint's JSON answer was found in its text, when it was
        /// not the whole text: inside a code fence or inside prose.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        extracted: Option<values::Extracted>,
        /// The attempt failed because the endpoint refused a feature of
        /// the request by name, and the call asks again another way
        /// (`output_mode_changed` or `request_adapted` says how): a
        /// fallback, which says nothing of the endpoint's health. Absent in
        /// recordings made before it was published.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        fallback: bool,
    },
    /// A model's answer failed its contract (or was cut at the output
    /// limit), and the model is asked again with its answer and what was
    /// wrong: repair `attempt` of `of` (`provider.output_retries`).
    CallRepair {
        /// The model call whose answer failed.
        call: u64,
        attempt: u32,
        of: u32,
        /// What was wrong, as the model is told.
        error: String,
    },
    /// The endpoint refused the way the run asked for answers (HTTP 400
    /// or 422 naming `response_format`, `json_schema` or `tools`), and
    /// the run asks the next way from now on (`provider.output: auto`):
    /// `native` → `tool` → `json` → `prompted`. `said` quotes the
    /// endpoint.
    OutputModeChanged {
        from: String,
        to: String,
        said: String,
    },
    /// The endpoint refused a parameter of the request (a reasoning
    /// model's `temperature`, `max_completion_tokens`), and the run asks
    /// without it, or under its other name, from now on.
    RequestAdapted {
        parameter: String,
        from: String,
        to: String,
        said: String,
    },
    /// The descriptions the run's MCP servers gave the tools the scenario
    /// leaves undescribed, by tool name: a cassette serves them again
    /// without starting a server.
    ToolsDescribed {
        tools: Vec<(String, String)>,
    },
    /// A fork reached its gate: calls were served from the parent's
    /// recording until here, and are live from here on.
    WentLive {
        gate: GatePoint,
    },
    /// One attempt of a task begins; its worker call follows unless the
    /// gateway refuses it.
    AttemptStarted {
        task: String,
        worker: String,
        attempt: u32,
        max_attempts: u32,
        /// How long this attempt may run: the task timeout, clipped to the
        /// time left before `max_seconds`.
        timeout_ms: u64,
    },
    AttemptFinished {
        task: String,
        worker: String,
        attempt: u32,
        outcome: CallOutcome,
        /// Run time the attempt took.
        elapsed_ms: u64,
        /// Why the attempt failed, when it did.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<StopReason>,
    },
    /// The gateway will call `tool` again after `delay_ms`: every retry of
    /// every call, the model's included, and only the gateway's.
    RetryScheduled {
        /// Older recordings call it `worker`.
        #[serde(alias = "worker")]
        tool: String,
        /// The task the call is for, when there is one (an orchestrator
        /// task, a swarm agent's tool call).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        task: Option<String>,
        /// The attempt about to start.
        attempt: u32,
        delay_ms: u64,
        /// What the previous attempt failed with.
        after: StopReason,
    },
    /// The gateway failed an attempt fast, without calling the tool: its
    /// breaker is open, its bulkhead stayed full, or the retry budget is
    /// spent.
    CallRejected {
        tool: String,
        attempt: u32,
        reason: StopReason,
    },
    /// A call that failed fast was served the tool's last good answer to
    /// the same arguments (`safe_mode.fallback: "last_known_good"`): stale.
    FallbackServed {
        tool: String,
        /// The task the call was for, when there is one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        task: Option<String>,
        /// Why the call failed fast.
        after: StopReason,
    },
    /// A tool's circuit breaker changed state.
    BreakerTransition {
        tool: String,
        from: BreakerState,
        to: BreakerState,
        reason: BreakerReason,
    },
    /// A tool's bulkhead occupancy changed: calls running, its limit, and
    /// calls waiting for a slot.
    Bulkhead {
        tool: String,
        in_flight: u32,
        max: u32,
        queued: u32,
    },
    /// A span of another framework's run, as `conclave watch` received
    /// it (docs/watch.md): only a watched run has them, one a span in
    /// arrival order, beside the events of calls and turns the watch
    /// read from the spans. `span` is the compact span as a watch
    /// recording writes it; `span_kind` is what the watch read it as
    /// (`agent`, `model`, `tool` …).
    SpanArrived {
        span_kind: String,
        /// Its parent had not arrived, neither before it nor in the same
        /// request.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        under_placeholder: bool,
        /// The model or tool call the span is, by the number its
        /// `call_started` carries.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        call: Option<u64>,
        /// Where a model call's cost came from: `span` (the framework's
        /// own figure) or `price_table`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cost_from: Option<String>,
        /// The price table's name for the model, when it is not the
        /// span's (a dated snapshot priced as its base name).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        priced_as: Option<String>,
        /// The span's name, and whether it has no parent (the run's top).
        #[serde(default)]
        name: String,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        top: bool,
        /// The agent an agent span names, as the watch read it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        agent: Option<String>,
        span: WatchedSpan,
    },
    /// A steering decision made in a watched run through its hook
    /// (docs/steer.md), as the run's watch recording holds it: only a
    /// watched run has them. `said` is the decision in the words the
    /// watch's screen says it (`paused`, `approved refund_invoice (by a
    /// person)` …), `decision` the recorded decision whole.
    Steered {
        said: String,
        decision: Box<serde_json::Value>,
    },
    /// A line a program launched from the dashboard wrote (docs/launch.md),
    /// cleaned of escape sequences and control characters: only such a
    /// run has them. `stderr` says which stream it came on.
    ProgramOutput {
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        stderr: bool,
        text: String,
    },
} wrapping {
    /// A pattern's step, in its pattern's own events (the registry's
    /// [`PatternEvents`]).
    Pattern(P),
}

}

#[cfg(test)]
mod tests;
