//! What the steering protocol refuses, and why: every name and text
//! bounded, a trace id read, each request checked before the board sees
//! it, and each refusal with its HTTP status.

use super::protocol::{ControlOp, ControlRequest, HookOp, HookRequest};
use crate::span::TraceId;

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
            HookOp::Poll { .. } | HookOp::Lease { .. } => {}
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
            ControlOp::SetFlag { name, .. } | ControlOp::SetBreak { name, .. } => {
                named("name", name)
            }
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
