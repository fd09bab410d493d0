//! One line of words per event, for the event log and its filter. Pure and
//! free of ratatui; the text is already cleaned for the terminal.

use super::sanitize::clean;
use crate::bus::{CallOutcome, EventKind, RunStatus, TaskStatus};

/// The kind of an event as its serde name, e.g. `contribution_accepted`.
pub fn kind_name(kind: &EventKind) -> &'static str {
    match kind {
        EventKind::RunStarted(_) => "run_started",
        EventKind::RunFinished { .. } => "run_finished",
        EventKind::RoundStarted { .. } => "round_started",
        EventKind::ContributionRequested { .. } => "contribution_requested",
        EventKind::ContributionAccepted { .. } => "contribution_accepted",
        EventKind::ContributionRejected { .. } => "contribution_rejected",
        EventKind::RoundFinished { .. } => "round_finished",
        EventKind::FinalizeStarted { .. } => "finalize_started",
        EventKind::BudgetConsumed { .. } => "budget_consumed",
        EventKind::FlagChanged { .. } => "flag_changed",
        EventKind::Paused { .. } => "paused",
        EventKind::Resumed { .. } => "resumed",
        EventKind::Stepped { .. } => "stepped",
        EventKind::CallStarted { .. } => "call_started",
        EventKind::CallFinished { .. } => "call_finished",
        EventKind::PlanAccepted { .. } => "plan_accepted",
        EventKind::PlanRejected { .. } => "plan_rejected",
        EventKind::TaskQueued { .. } => "task_queued",
        EventKind::AttemptStarted { .. } => "attempt_started",
        EventKind::AttemptFinished { .. } => "attempt_finished",
        EventKind::RetryScheduled { .. } => "retry_scheduled",
        EventKind::CallRejected { .. } => "call_rejected",
        EventKind::BreakerTransition { .. } => "breaker_transition",
        EventKind::Bulkhead { .. } => "bulkhead",
        EventKind::TaskFinished { .. } => "task_finished",
        EventKind::Aggregated { .. } => "aggregated",
    }
}

/// What happened, in a few words.
pub fn describe(kind: &EventKind) -> String {
    let text = match kind {
        EventKind::RunStarted(started) => format!(
            "{} ({}) seed {}",
            started.scenario.name, started.pattern, started.seed
        ),
        EventKind::RunFinished {
            status,
            stop_reason,
            phase,
            ..
        } => {
            let status = match status {
                RunStatus::Ok => "ok",
                RunStatus::Stopped => "stopped",
            };
            match phase {
                Some(phase) => format!("{status}: {stop_reason} at {phase}"),
                None => format!("{status}: {stop_reason}"),
            }
        }
        EventKind::RoundStarted { round, speakers } => {
            format!("round {round}: {}", speakers.join(", "))
        }
        EventKind::ContributionRequested { round, agent } => {
            format!("round {round} · {agent} asked")
        }
        EventKind::ContributionAccepted {
            round,
            agent,
            stance,
            confidence,
            summary,
            ..
        } => format!(
            "round {round} · {agent}: {} {confidence} — {summary}",
            stance.as_str()
        ),
        EventKind::ContributionRejected {
            round,
            agent,
            reason,
            ..
        } => format!("round {round} · {agent} rejected: {reason}"),
        EventKind::RoundFinished {
            round,
            conflicts,
            decision,
        } => {
            let conflicts: Vec<&str> = conflicts.iter().map(|c| c.as_str()).collect();
            let conflicts = if conflicts.is_empty() {
                "no conflicts".to_string()
            } else {
                conflicts.join(", ")
            };
            let decision = decision.map_or("next round", |d| d.as_str());
            format!("round {round}: {conflicts} → {decision}")
        }
        EventKind::FinalizeStarted { decision } => {
            format!("writing the brief ({})", decision.as_str())
        }
        EventKind::BudgetConsumed {
            budget,
            used,
            limit,
        } => format!("{budget:?} {used}/{limit}").to_lowercase(),
        EventKind::FlagChanged { name, on } => {
            format!("{name} {}", if *on { "on" } else { "off" })
        }
        EventKind::Paused { gate } | EventKind::Resumed { gate } | EventKind::Stepped { gate } => {
            gate.to_string()
        }
        EventKind::CallStarted {
            tool,
            attempt,
            label,
            ..
        } => format!("{tool}: {label}{}", attempt_note(*attempt)),
        EventKind::CallFinished {
            tool,
            attempt,
            latency_ms,
            outcome,
            ..
        } => format!(
            "{tool}: {} in {latency_ms} ms{}",
            outcome_word(*outcome),
            attempt_note(*attempt)
        ),
        EventKind::PlanAccepted { tasks } => format!("{} tasks planned", tasks.len()),
        EventKind::PlanRejected { reason, .. } => format!("plan refused: {reason}"),
        EventKind::TaskQueued {
            task,
            worker,
            critical,
            ..
        } => format!(
            "{task} → {worker}{}",
            if *critical { " (critical)" } else { "" }
        ),
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
                outcome_word(*outcome)
            ),
        },
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
        EventKind::TaskFinished {
            task,
            status,
            attempts_used,
            stop_reason,
            ..
        } => match (status, stop_reason) {
            (_, Some(reason)) => format!("{task} failed: {reason} ({attempts_used} attempts)"),
            (TaskStatus::Done, None) => format!("{task} done ({attempts_used} attempts)"),
            (TaskStatus::Failed, None) => format!("{task} failed ({attempts_used} attempts)"),
        },
        EventKind::Aggregated { health, .. } => format!("health {}", health.as_str()),
    };
    clean(&text).into_owned()
}

fn outcome_word(outcome: CallOutcome) -> &'static str {
    match outcome {
        CallOutcome::Ok => "ok",
        CallOutcome::Timeout => "timeout",
        CallOutcome::Error => "error",
        CallOutcome::Cancelled => "cancelled",
        CallOutcome::Refused => "refused",
    }
}

fn attempt_note(attempt: u32) -> String {
    if attempt > 1 {
        format!(" (attempt {attempt})")
    } else {
        String::new()
    }
}

/// `mm:ss.d` for a run clock reading.
pub fn clock(ms: u64) -> String {
    let tenths = (ms / 100) % 10;
    let seconds = (ms / 1000) % 60;
    let minutes = ms / 60_000;
    format!("{minutes:02}:{seconds:02}.{tenths}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bus::{Conflict, Decision, Stance};

    #[test]
    fn lines_read_as_sentences_and_are_clean() {
        let accepted = EventKind::ContributionAccepted {
            round: 2,
            agent: "risk_analyst".into(),
            stance: Stance::Caution,
            confidence: 0.71,
            summary: "watch\u{1b}[2J it".into(),
            actions: vec![],
        };
        assert_eq!(
            describe(&accepted),
            "round 2 · risk_analyst: caution 0.71 — watch it"
        );
        let finished = EventKind::RoundFinished {
            round: 1,
            conflicts: vec![Conflict::BlockingVsNonBlock],
            decision: None,
        };
        assert_eq!(
            describe(&finished),
            "round 1: blocking_vs_non_block → next round"
        );
        let decided = EventKind::RoundFinished {
            round: 2,
            conflicts: vec![],
            decision: Some(Decision::Go),
        };
        assert_eq!(describe(&decided), "round 2: no conflicts → go");
        assert_eq!(kind_name(&decided), "round_finished");
    }

    #[test]
    fn gateway_events_read_as_sentences() {
        use crate::bus::{BreakerReason, BreakerState};
        use crate::stop::StopReason;
        let opened = EventKind::BreakerTransition {
            tool: "enrichment_worker".into(),
            from: BreakerState::Closed,
            to: BreakerState::Open,
            reason: BreakerReason::FailureThreshold,
        };
        assert_eq!(
            describe(&opened),
            "enrichment_worker: closed → open (failure_threshold)"
        );
        let rejected = EventKind::CallRejected {
            tool: "search_worker".into(),
            attempt: 2,
            reason: StopReason::BulkheadFull {
                tool: "search_worker".into(),
            },
        };
        assert_eq!(
            describe(&rejected),
            "search_worker (attempt 2): failed fast, bulkhead_full:search_worker"
        );
        let retry = EventKind::RetryScheduled {
            tool: "model".into(),
            task: None,
            attempt: 2,
            delay_ms: 120,
            after: StopReason::LlmTimeout,
        };
        assert_eq!(
            describe(&retry),
            "model attempt 2 in 120 ms (after llm_timeout)"
        );
        assert_eq!(kind_name(&retry), "retry_scheduled");
    }

    #[test]
    fn clock_reads_minutes_seconds_tenths() {
        assert_eq!(clock(0), "00:00.0");
        assert_eq!(clock(3_250), "00:03.2");
        assert_eq!(clock(754_999), "12:34.9");
    }
}
