//! The gateway's events: model and tool calls, a task's attempts, retries, calls failed
//! fast, stale answers served, breakers and bulkheads.

use super::attempt_note;
use crate::bus::EventKind;
use crate::bus::event::values::Extracted;
use crate::words::plural;

/// The event's line, when it is one of this group's.
pub(super) fn line<P>(kind: &EventKind<P>) -> Option<String> {
    Some(match kind {
        EventKind::CallStarted {
            tool,
            attempt,
            label,
            ..
        } => format!("{tool}: {label}{}", attempt_note(*attempt)),
        EventKind::CallDelta {
            call,
            text,
            reasoning,
            arguments,
        } => format!(
            "call {call}: {} more{}",
            plural(text.chars().count() as u64, "character"),
            match (*reasoning, *arguments) {
                (true, _) => " of reasoning",
                (false, true) => " of arguments",
                (false, false) => "",
            }
        ),
        EventKind::CallFinished { .. } => finished(kind)?,
        EventKind::OutputModeChanged { from, to, said } => {
            format!(
                "model: the endpoint refused {from} output, asking as {to} from now on ({said})"
            )
        }
        EventKind::RequestAdapted {
            parameter,
            from,
            to,
            said,
        } => format!(
            "model: the endpoint refused {parameter} = {from}, sending {to} from now on ({said})"
        ),
        EventKind::CallRepair {
            call,
            attempt,
            of,
            error,
        } => format!("↻ repair {attempt}/{of} of call {call}: {error}"),
        EventKind::RetryScheduled {
            tool,
            task,
            attempt,
            delay_ms,
            after,
        } => format!(
            "{} attempt {attempt} in {delay_ms} ms (after {after})",
            task.as_deref().unwrap_or(tool)
        ),
        EventKind::CallRejected {
            tool,
            attempt,
            reason,
        } => format!("{tool}{}: failed fast, {reason}", attempt_note(*attempt)),
        EventKind::FallbackServed { tool, task, after } => format!(
            "{}: served {tool}'s last good answer, stale ({after})",
            task.as_deref().unwrap_or(tool)
        ),
        EventKind::BreakerTransition {
            tool,
            from,
            to,
            reason,
        } => format!(
            "{tool}: {} → {} ({})",
            from.as_str(),
            to.as_str(),
            reason.as_str()
        ),
        EventKind::Bulkhead {
            tool,
            in_flight,
            max,
            queued,
        } => format!("{tool}: {in_flight}/{max} in flight, {queued} waiting"),
        _ => return None,
    })
}

/// A task's attempt, as its line, when the event is one.
pub(super) fn attempt<P>(kind: &EventKind<P>) -> Option<String> {
    Some(match kind {
        EventKind::AttemptStarted {
            task,
            attempt,
            max_attempts,
            timeout_ms,
            ..
        } if *timeout_ms == u64::MAX => {
            format!("{task} attempt {attempt}/{max_attempts}, no timeout")
        }
        EventKind::AttemptStarted {
            task,
            attempt,
            max_attempts,
            timeout_ms,
            ..
        } => format!("{task} attempt {attempt}/{max_attempts}, timeout {timeout_ms} ms"),
        EventKind::AttemptFinished {
            task,
            attempt,
            outcome,
            elapsed_ms,
            reason,
            ..
        } => match reason {
            Some(reason) => format!("{task} attempt {attempt}: {reason} after {elapsed_ms} ms"),
            None => format!(
                "{task} attempt {attempt}: {} in {elapsed_ms} ms",
                outcome.word()
            ),
        },
        _ => return None,
    })
}

/// A model or tool call's `call_finished`, in words.
fn finished<P>(kind: &EventKind<P>) -> Option<String> {
    let EventKind::CallFinished {
        tool,
        attempt,
        latency_ms,
        outcome,
        usage,
        error,
        first_token_ms,
        tokens_per_s,
        served,
        extracted,
        fallback,
        ..
    } = kind
    else {
        return None;
    };
    // A fallback is the endpoint refusing a way of asking, and the call
    // asking again another way: not an error of the call.
    let word = if *fallback {
        "fallback"
    } else {
        outcome.word()
    };
    let mut line = format!(
        "{tool}: {}{word} in {latency_ms} ms{}",
        if *served { "served " } else { "" },
        attempt_note(*attempt)
    );
    if let Some(usage) = usage {
        // `~` marks the sim's estimates, as the header does.
        let about = if usage.estimated { "~" } else { "" };
        line.push_str(&format!(
            " · {about}{}+{} tokens{}",
            usage.input,
            usage.output,
            crate::figures::token_parts(usage.cached, usage.reasoning)
        ));
        if let Some(cost) = usage.cost_usd {
            line.push_str(&format!(" · {about}${}", crate::figures::dollars(cost)));
        }
    }
    if let Some(first) = first_token_ms {
        line.push_str(&format!(" · first token {first} ms"));
    }
    if let Some(rate) = tokens_per_s {
        line.push_str(&format!(" · {rate:.0} tokens/s"));
    }
    if let Some(error) = error {
        line.push_str(&format!(": {error}"));
    }
    if *fallback {
        line.push_str(" · asked again another way");
    }
    if let Some(how) = extracted {
        line.push_str(match how {
            Extracted::Fence => " · JSON read from a code fence",
            Extracted::Prose => " · JSON read from prose around it",
        });
    }
    Some(line)
}
