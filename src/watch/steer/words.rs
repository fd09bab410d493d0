//! A steering decision in the words the watch says it (docs/steer.md):
//! one line of a watched run's event log, live on the watch's screen and
//! in the dashboard's replay of its recording.

use super::protocol::{Ask, By, Decision};

/// A decision as the event log says it.
pub(crate) fn decision_words(decision: &Decision) -> String {
    let by = |by: By| match by {
        By::Person => "by a person",
        By::Rule => "by a rule",
        By::Nobody => "nobody steering",
    };
    match decision {
        Decision::FlagsDeclared { flags } => {
            let flags: Vec<String> = flags
                .iter()
                .map(|(name, on)| format!("{name} {}", on_off(*on)))
                .collect();
            format!("flags declared: {}", flags.join(", "))
        }
        Decision::Held { gate } => format!("held at {}", gate_words(gate)),
        Decision::Paused => "paused".to_string(),
        Decision::Stepped { gates } => format!("stepped {gates} gate(s)"),
        Decision::RanOn => "ran on".to_string(),
        Decision::FlagSet { name, on } => format!("flag {name} {}", on_off(*on)),
        Decision::Approved {
            tool,
            by: b,
            arguments,
            for_the_run,
            ..
        } => {
            let mut how = by(*b).to_string();
            if *for_the_run {
                how.push_str(", for the rest of the run");
            }
            match arguments {
                Some(edited) => format!("approved {tool} ({how}) with arguments {edited}"),
                None => format!("approved {tool} ({how})"),
            }
        }
        Decision::Rejected {
            tool,
            reason,
            by: b,
            ..
        } => format!("rejected {tool} ({}): {reason}", by(*b)),
        Decision::Answered { question, answer } => format!("answered {question:?}: {answer}"),
        Decision::Unanswered { question } => format!("unanswered {question:?}"),
        Decision::Stopped { reason } => format!("stopped: {reason}"),
        Decision::Broke { at } => format!("paused at the breakpoint {at}"),
    }
}

fn on_off(on: bool) -> &'static str {
    if on { "on" } else { "off" }
}

/// Where a run waits: `tool lookup_invoice · Billing Agent`.
pub(crate) fn gate_words(ask: &Ask) -> String {
    match ask {
        Ask::Gate {
            kind, name, agent, ..
        } => {
            let kind = match kind.as_str() {
                "tool_call" => "tool".to_string(),
                "agent_turn" => "turn of".to_string(),
                other => other.replace('_', " "),
            };
            match agent {
                Some(agent) if agent != name => format!("{kind} {name} · {agent}"),
                _ => format!("{kind} {name}"),
            }
        }
        Ask::Approval { tool, agent, .. } => match agent {
            Some(agent) => format!("approval of {tool} · {agent}"),
            None => format!("approval of {tool}"),
        },
        Ask::Question { question, .. } => format!("question {question:?}"),
    }
}
