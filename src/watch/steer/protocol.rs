//! The steering protocol's JSON, as docs/steer.md describes it: what a
//! hook asks (`POST /v1/steer/hook`), what a steerer says (`POST
//! /v1/steer/control`), what is listed (`GET /v1/steer/runs`), the
//! decisions recorded, and the refusals with their HTTP status. Every
//! text is bounded here, before the board sees it.

use crate::watch::span::TraceId;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The longest name (tool, agent, gate, flag, session).
pub const MAX_NAME: usize = 256;
/// The longest free text (a question, an answer, a reason, a flag's
/// description).
pub const MAX_TEXT: usize = 4096;
/// The most options a question offers.
pub const MAX_OPTIONS: usize = 32;
/// The most gates one step lets pass.
pub const MAX_STEP: u64 = 1_000_000;

/// The longest gate kind.
pub const MAX_KIND: usize = 64;

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
    /// without asking (it counts them in its next call's `passed`).
    Go {
        lease_ms: u64,
    },
    Approved,
    Rejected {
        reason: String,
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
    /// Renew a lease (never held, counts no gate): `go` with a new lease
    /// while the run runs, else `hold` or `stopped`.
    Lease,
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

#[derive(Clone, Debug, Deserialize)]
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

/// Why a call changed nothing: its HTTP status and what it says.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    #[error("{0}")]
    Bad(String),
    #[error("the body is over the steering limit of {0} bytes")]
    TooLarge(usize),
    #[error(
        "this watch needs an Authorization: Bearer token (the value of its --token-env variable)"
    )]
    Unauthorized,
    #[error(
        "no such path: steering is POST /v1/steer/hook, POST /v1/steer/control, GET /v1/steer/runs"
    )]
    NotFound,
    #[error("this trace id is steered by another hook: a hook names its own run's trace")]
    OtherHook,
    #[error("too many {0}")]
    TooMany(&'static str),
    #[error("no run with this trace id is steered")]
    NoSuchRun,
    #[error("nothing waits with id {0}")]
    NoSuchWait(u64),
    #[error("the run declared no flag {0:?}")]
    NoSuchFlag(String),
    #[error("the run is not paused: pause it before stepping")]
    NotPaused,
    #[error("{0} is not {1}")]
    WrongKind(u64, &'static str),
    #[error("{0} is decided already")]
    Decided(u64),
    #[error("the answer must be one of the options {0:?}")]
    NotAnOption(Vec<String>),
}

impl Refused {
    pub fn status(&self) -> u16 {
        match self {
            Refused::Bad(_) | Refused::NotAnOption(_) => 400,
            Refused::Unauthorized => 401,
            Refused::NotFound | Refused::NoSuchRun | Refused::NoSuchWait(_) => 404,
            Refused::NoSuchFlag(_) => 404,
            Refused::OtherHook | Refused::NotPaused | Refused::WrongKind(..) => 409,
            Refused::Decided(_) => 409,
            Refused::TooLarge(_) => 413,
            Refused::TooMany(_) => 429,
        }
    }
}

/// A trace id in hex, 32 digits, not all zero.
pub fn trace_of(text: &str) -> Result<TraceId, Refused> {
    let bad = || {
        Refused::Bad(format!(
            "trace_id {text:?}: expected 32 hex digits, not all zero"
        ))
    };
    if text.len() != 32 || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(bad());
    }
    match u128::from_str_radix(text, 16) {
        Ok(0) | Err(_) => Err(bad()),
        Ok(id) => Ok(id),
    }
}

fn bounded(field: &str, text: &str, max: usize) -> Result<(), Refused> {
    if text.len() > max {
        return Err(Refused::Bad(format!(
            "{field}: {} bytes, at most {max}",
            text.len()
        )));
    }
    Ok(())
}

fn named(field: &str, text: &str) -> Result<(), Refused> {
    if text.trim().is_empty() {
        return Err(Refused::Bad(format!("{field}: must not be empty")));
    }
    bounded(field, text, MAX_NAME)
}

impl HookRequest {
    /// The request's texts within their bounds.
    pub fn check(&self) -> Result<(), Refused> {
        named("session", &self.session)?;
        if self.passed > MAX_STEP {
            return Err(Refused::Bad(format!(
                "passed {}: expected at most {MAX_STEP} gates between two calls",
                self.passed
            )));
        }
        let agent = |agent: &Option<String>| match agent {
            Some(a) => named("agent", a),
            None => Ok(()),
        };
        match &self.op {
            HookOp::Declare { flags } => {
                for flag in flags {
                    named("flags[].name", &flag.name)?;
                    bounded("flags[].description", &flag.description, MAX_TEXT)?;
                }
            }
            HookOp::Gate {
                kind,
                name,
                agent: a,
                ..
            } => {
                let plain = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_';
                if kind.is_empty() || kind.len() > MAX_KIND || !kind.chars().all(plain) {
                    return Err(Refused::Bad(format!(
                        "kind {kind:?}: expected lowercase letters, digits and _, at most {MAX_KIND}"
                    )));
                }
                named("name", name)?;
                agent(a)?;
            }
            HookOp::Approval { tool, agent: a, .. } => {
                named("tool", tool)?;
                agent(a)?;
            }
            HookOp::Question {
                question,
                options,
                agent: a,
            } => {
                named("question", question)?;
                bounded("question", question, MAX_TEXT)?;
                if options.len() > MAX_OPTIONS {
                    return Err(Refused::Bad(format!("options: at most {MAX_OPTIONS}")));
                }
                for option in options {
                    named("options[]", option)?;
                }
                agent(a)?;
            }
            HookOp::Poll { .. } | HookOp::Lease => {}
        }
        Ok(())
    }
}

impl ControlRequest {
    /// The request's texts within their bounds.
    pub fn check(&self) -> Result<(), Refused> {
        match &self.op {
            ControlOp::Step { gates } if *gates == 0 || *gates > MAX_STEP => {
                Err(Refused::Bad(format!("gates: from 1 to {MAX_STEP}")))
            }
            ControlOp::SetFlag { name, .. } => named("name", name),
            ControlOp::Reject { reason, .. } => {
                named("reason", reason)?;
                bounded("reason", reason, MAX_TEXT)
            }
            ControlOp::Answer { text, .. } => bounded("text", text, MAX_TEXT),
            ControlOp::Stop {
                reason: Some(reason),
            } => bounded("reason", reason, MAX_TEXT),
            _ => Ok(()),
        }
    }
}

/// A hook's answer as JSON: `status` and what goes with it, and the
/// run's flags.
pub fn answer_json(answer: &Answer, flags: &BTreeMap<String, bool>) -> serde_json::Value {
    use serde_json::json;
    let mut value = match answer {
        Answer::Go { lease_ms: 0 } => json!({"status": "go"}),
        Answer::Go { lease_ms } => json!({"status": "go", "lease_ms": lease_ms}),
        Answer::Approved => json!({"status": "approved"}),
        Answer::Rejected { reason } => json!({"status": "rejected", "reason": reason}),
        Answer::Answered { text } => json!({"status": "answered", "text": text}),
        Answer::Unanswered => json!({"status": "unanswered"}),
        Answer::Hold => json!({"status": "hold"}),
        Answer::Stopped { reason } => json!({"status": "stopped", "reason": reason}),
    };
    value["flags"] = json!(flags);
    value
}
