//! A call as the events tell it: its start and finish, and the words a
//! tool span carries for its arguments and result.

use super::Out;
use crate::bus::{CallOutcome, EventKind, TokenUsage};
use crate::patterns::events::{PatternEvent, TeamEvent};
use crate::span::Span;
use std::collections::HashMap;

/// A call a span tells of: its number, how long it took, how it failed.
pub(super) struct Called {
    pub(super) call: u64,
    pub(super) ms: u64,
    pub(super) error: Option<String>,
}

impl Called {
    /// The call's start and finish, of `tool` (`model` for a model call).
    pub(super) fn tell(
        self,
        tool: &str,
        label: String,
        agent: Option<String>,
        usage: Option<TokenUsage>,
        t_ms: u64,
        out: &mut Out,
    ) {
        out.push(
            t_ms,
            EventKind::CallStarted {
                call: self.call,
                tool: tool.to_string(),
                attempt: 1,
                label,
                agent,
            },
        );
        out.push(
            t_ms,
            EventKind::CallFinished {
                call: self.call,
                tool: tool.to_string(),
                attempt: 1,
                latency_ms: self.ms,
                outcome: if self.error.is_some() {
                    CallOutcome::Error
                } else {
                    CallOutcome::Ok
                },
                usage,
                error: self.error,
                http_status: None,
                first_token_ms: None,
                tokens_per_s: None,
                served: false,
                reasoning: None,
                record: None,
                extracted: None,
                fallback: false,
            },
        );
    }
}

/// The attributes a tool span's arguments are read from, first found first.
pub(super) const ARGS: &[&str] = &[
    "gen_ai.tool.call.arguments",
    "input.value",
    "tool.parameters",
];
/// The attributes a tool span's result is read from.
pub(super) const RESULTS: &[&str] = &["gen_ai.tool.call.result", "output.value"];

/// The first of `keys` the span carries, cut as a turn's words are.
pub(super) fn words_of(span: &Span, keys: &[&str]) -> String {
    keys.iter()
        .find_map(|k| span.attr(k))
        .map(|v| crate::patterns::team::events::turn_text(&v.text()))
        .unwrap_or_default()
}

pub(super) fn team(event: TeamEvent) -> EventKind {
    EventKind::Pattern(PatternEvent::Team(event))
}

/// Take one from the count at `key`; whether there was one.
pub(super) fn take_one(counts: &mut HashMap<(u64, u64), u32>, key: (u64, u64)) -> bool {
    match counts.get_mut(&key) {
        Some(n) if *n > 0 => {
            *n -= 1;
            true
        }
        _ => false,
    }
}
