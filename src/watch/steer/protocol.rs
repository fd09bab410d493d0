//! The steering protocol's JSON, as docs/steer.md describes it: what a
//! hook asks (`POST /v1/steer/hook`), what a steerer says (`POST
//! /v1/steer/control`), what is listed (`GET /v1/steer/runs`), the
//! decisions recorded, and a hook's answer as JSON. What is refused, and
//! every bound a request is checked against, are `bounds`'s.

pub use super::bounds::{MAX_KIND, MAX_NAME, MAX_OPTIONS, MAX_STEP, MAX_TEXT, Refused, trace_of};

/// What a breakpoint names, in the words of the gates a hook holds at:
/// the command line's `--break` and the dashboard's breakpoints dialog say
/// it from here, so the gates' kinds are named in one place.
pub const BREAK_ARG_HELP: &str = "A breakpoint: pause a hooked run before a gate of this name (a \
     tool, a node, an agent, a handoff; repeatable; docs/steer.md)";
/// The breakpoints dialog's first line.
pub const BREAK_DIALOG: &str =
    "Every run pauses before a gate of these names (tool, node, agent, handoff):";
/// The breakpoints dialog's typing row, in the keys' help.
pub const BREAK_TYPING: &str = "a tool, node, agent or handoff's name (Backspace deletes)";
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What waits for the steerer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "ask", rename_all = "snake_case")]
pub enum Ask {
    /// A gate: the run goes on when the pace lets it. `kind` says where
    /// (the adapters' kinds are listed in docs/steer.md).
    Gate {
        kind: String,
        name: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        agent: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        arguments: Option<serde_json::Value>,
    },
    /// A tool call to approve or reject.
    Approval {
        tool: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        agent: Option<String>,
        #[serde(default)]
        arguments: serde_json::Value,
    },
    /// A question for a person: free text, or one of `options`.
    Question {
        question: String,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        options: Vec<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        agent: Option<String>,
    },
}

/// A flag a hook declares.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlagDecl {
    pub name: String,
    #[serde(default)]
    pub default: bool,
    #[serde(default)]
    pub description: String,
}

/// What a hook's call is answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// Go on; while `lease_ms` lasts, the hook may let gates pass
    /// without asking (it counts them in its next call's `passed`), and
    /// for as long as its lease's long poll from `epoch` is not answered.
    Go {
        lease_ms: u64,
        epoch: u64,
    },
    /// Approved; with `arguments` when a person edited them (the tool
    /// is called with these).
    Approved {
        arguments: Option<serde_json::Value>,
    },
    Rejected {
        reason: String,
        by: By,
    },
    Answered {
        text: String,
    },
    /// Nobody is there to answer: the hook takes its default.
    Unanswered,
    /// A lease renewed no further: the run is held, the hook's next gate
    /// asks.
    Hold,
    Stopped {
        reason: String,
    },
}

/// A steerer's ruling on an approval.
#[derive(Clone, Debug, PartialEq)]
pub enum Ruling {
    /// Approve, with the arguments edited or not; `for_the_run`: every
    /// later call of the tool in the run too.
    Approve {
        arguments: Option<serde_json::Value>,
        for_the_run: bool,
    },
    Reject(String),
}

impl Answer {
    /// Go on, without a lease: the next gate asks again.
    pub fn go() -> Answer {
        Answer::Go {
            lease_ms: 0,
            epoch: 0,
        }
    }
}

/// Who decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum By {
    /// A person, through the steerer's API or the dashboard.
    Person,
    /// A `--approve` / `--reject` rule.
    Rule,
    /// Nobody steered: the run went on.
    Nobody,
}

/// One decision, an event of the watched run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum Decision {
    FlagsDeclared {
        flags: BTreeMap<String, bool>,
    },
    /// A gate was held by the pace.
    Held {
        gate: Ask,
    },
    Paused,
    Stepped {
        gates: u64,
    },
    RanOn,
    FlagSet {
        name: String,
        on: bool,
    },
    Approved {
        tool: String,
        #[serde(default)]
        agent: Option<String>,
        by: By,
        /// The arguments a person edited the call to.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        arguments: Option<serde_json::Value>,
        /// Approved for the rest of the run (this call, or a later one
        /// the standing approval let pass).
        #[serde(default, skip_serializing_if = "is_false")]
        for_the_run: bool,
    },
    Rejected {
        tool: String,
        #[serde(default)]
        agent: Option<String>,
        reason: String,
        by: By,
    },
    Answered {
        question: String,
        answer: String,
    },
    Unanswered {
        question: String,
    },
    Stopped {
        reason: String,
    },
    /// A running run paused at a breakpoint, before the gate `at`.
    Broke {
        at: String,
    },
}

/// A hook's request.
#[derive(Clone, Debug, Deserialize)]
pub struct HookRequest {
    /// The run: its trace id, 32 hex digits.
    pub trace_id: String,
    /// The hook's own id, the same for all its calls.
    pub session: String,
    /// How long this call may be held, ms (at most the heartbeat).
    #[serde(default)]
    pub wait_ms: Option<u64>,
    /// Gates the hook let pass under a lease since its last call.
    #[serde(default)]
    pub passed: u64,
    #[serde(flatten)]
    pub op: HookOp,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum HookOp {
    Declare {
        flags: Vec<FlagDecl>,
    },
    Gate {
        kind: String,
        name: String,
        #[serde(default)]
        agent: Option<String>,
        #[serde(default)]
        arguments: Option<serde_json::Value>,
    },
    Approval {
        tool: String,
        #[serde(default)]
        agent: Option<String>,
        #[serde(default)]
        arguments: serde_json::Value,
    },
    Question {
        question: String,
        #[serde(default)]
        options: Vec<String>,
        #[serde(default)]
        agent: Option<String>,
    },
    /// Ask again about a wait, after a `waiting` answer.
    Poll {
        id: u64,
    },
    /// Renew a lease (counts no gate): `go` with a new lease while the
    /// run runs, else `hold` or `stopped`. With `epoch` (the one the hook
    /// last saw) and `wait_ms`, a long poll: held while the run runs on as
    /// it was at `epoch`, answered at once when it is paused, stopped or a
    /// flag is set.
    Lease {
        #[serde(default)]
        epoch: Option<u64>,
    },
}

/// A steerer's request.
#[derive(Clone, Debug, Deserialize)]
pub struct ControlRequest {
    /// The run; only `pause` and `run_on` go without one (every run).
    #[serde(default)]
    pub trace_id: Option<String>,
    #[serde(flatten)]
    pub op: ControlOp,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum ControlOp {
    Pause,
    Step {
        #[serde(default = "one")]
        gates: u64,
    },
    RunOn,
    SetFlag {
        name: String,
        on: bool,
    },
    Approve {
        id: u64,
        /// The call's arguments as a person edited them.
        #[serde(default)]
        arguments: Option<serde_json::Value>,
        /// Approve every later call of the tool in the run too.
        #[serde(default)]
        for_the_run: bool,
    },
    Reject {
        id: u64,
        reason: String,
    },
    Answer {
        id: u64,
        text: String,
    },
    Stop {
        #[serde(default)]
        reason: Option<String>,
    },
    /// A breakpoint of every run, set or cleared (no trace id).
    SetBreak {
        name: String,
        on: bool,
    },
}

fn one() -> u64 {
    1
}

/// A run as the steerer lists it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunView {
    pub trace_id: String,
    pub paused: bool,
    /// Gates still allowed to pass while paused.
    pub passes: u64,
    pub steered: bool,
    pub stopped: Option<String>,
    pub gates: u64,
    pub flags: Vec<FlagView>,
    pub waiting: Vec<WaitView>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlagView {
    pub name: String,
    pub on: bool,
    pub default: bool,
    pub description: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WaitView {
    pub id: u64,
    pub waited_ms: u64,
    #[serde(flatten)]
    pub ask: Ask,
}

/// What a run's steering left, for its summary and recording.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SteerSummary {
    /// Gates the hook reached.
    pub gates: u64,
    /// Why the run was stopped, when a person (or a rule) stopped it.
    pub stopped: Option<String>,
    /// The flags' last values.
    pub flags: BTreeMap<String, bool>,
    /// Every decision, in order, with its time after the hook's first call.
    pub decisions: Vec<Timed>,
    /// Decisions past the limit, not kept.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub decisions_dropped: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// A decision and when, in ms after the hook's first call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Timed {
    pub at_ms: u64,
    #[serde(flatten)]
    pub decision: Decision,
}

/// A hook's answer as JSON: `status` and what goes with it, and the
/// run's flags.
pub fn answer_json(answer: &Answer, flags: &BTreeMap<String, bool>) -> serde_json::Value {
    use serde_json::json;
    let mut value = match answer {
        Answer::Go { lease_ms: 0, .. } => json!({"status": "go"}),
        Answer::Go { lease_ms, epoch } => {
            json!({"status": "go", "lease_ms": lease_ms, "epoch": epoch})
        }
        Answer::Approved { arguments: None } => json!({"status": "approved"}),
        Answer::Approved {
            arguments: Some(arguments),
        } => json!({"status": "approved", "arguments": arguments}),
        Answer::Rejected { reason, by } => {
            json!({"status": "rejected", "reason": reason, "by": by})
        }
        Answer::Answered { text } => json!({"status": "answered", "text": text}),
        Answer::Unanswered => json!({"status": "unanswered"}),
        Answer::Hold => json!({"status": "hold"}),
        Answer::Stopped { reason } => json!({"status": "stopped", "reason": reason}),
    };
    value["flags"] = json!(flags);
    value
}
