//! One line of words per event, for the event log and its filter. Pure and
//! free of ratatui; the text is already cleaned for the terminal.

use crate::bus::{CallOutcome, EventKind, ResearchPhase, RunStatus, TaskStatus};
use crate::sanitize::clean;
use crate::words::plural;

pub(crate) use super::kinds::kind_name;

/// What happened, in a few words.
pub(crate) fn describe(kind: &EventKind) -> String {
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
        EventKind::EscalatedToHuman {
            round,
            blocking_rounds,
            ..
        } => format!(
            "round {round}: a blocking stance {blocking_rounds} rounds in a row; asking a person"
        ),
        EventKind::HumanDecided { choice, note } => match note {
            Some(note) => format!("a person chose {} (note: {note})", choice.as_str()),
            None => format!("a person chose {}", choice.as_str()),
        },
        EventKind::FinalizeStarted { decision } => {
            format!("writing the brief ({})", decision.as_str())
        }
        EventKind::BudgetConsumed {
            budget,
            used,
            limit,
        } => format!("{} {used}/{limit}", budget.as_str().replace('_', " ")),
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
        EventKind::CallDelta { call, text } => format!(
            "call {call}: {} more",
            plural(text.chars().count() as u64, "character")
        ),
        EventKind::CallFinished {
            tool,
            attempt,
            latency_ms,
            outcome,
            usage,
            error,
            first_token_ms,
            tokens_per_s,
            ..
        } => {
            let mut line = format!(
                "{tool}: {} in {latency_ms} ms{}",
                outcome_word(*outcome),
                attempt_note(*attempt)
            );
            if let Some(usage) = usage {
                // `~` marks the sim's estimates, as the header does.
                let about = if usage.estimated { "~" } else { "" };
                line.push_str(&format!(
                    " · {about}{}+{} tokens",
                    usage.input, usage.output
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
            line
        }
        EventKind::PlanAccepted { tasks } => {
            format!("{} planned", plural(tasks.len() as u64, "task"))
        }
        EventKind::WaveStarted { wave, tasks } => {
            format!("wave {wave}: {}", tasks.join(", "))
        }
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
        EventKind::TaskFinished {
            task,
            status,
            attempts_used,
            stop_reason,
            ..
        } => match (status, stop_reason) {
            (_, Some(reason)) => format!("{task} failed: {reason} ({})", attempts(*attempts_used)),
            (TaskStatus::Done, None) => format!("{task} done ({})", attempts(*attempts_used)),
            (TaskStatus::Failed, None) => format!("{task} failed ({})", attempts(*attempts_used)),
        },
        EventKind::Aggregated { health, .. } => format!("health {}", health.as_str()),
        EventKind::TurnStarted { turn, agent } => format!("turn {turn} · {agent}"),
        EventKind::TurnFinished {
            turn,
            agent,
            outcome,
            latency_ms,
        } => format!(
            "turn {turn} · {agent}: {} in {latency_ms} ms",
            outcome.as_str().replace('_', " ")
        ),
        EventKind::TransferRequested {
            turn,
            from,
            to,
            message,
        } => match message {
            Some(message) => {
                format!("turn {turn} · {from} asks to hand over to {to}: {message}")
            }
            None => format!("turn {turn} · {from} asks to hand over to {to}"),
        },
        EventKind::ToolUsed {
            turn,
            agent,
            tool,
            args,
            result,
            ok,
        } => format!(
            "turn {turn} · {agent} called {tool} {args} → {}{result}",
            if *ok { "" } else { "failed: " }
        ),
        EventKind::HandoffAccepted {
            from,
            to,
            handoffs,
            deadline_ms,
            ..
        } => match deadline_ms {
            Some(at) => format!("{from} → {to} (handoff {handoffs}, until {at} ms)"),
            None => format!("{from} → {to} (handoff {handoffs})"),
        },
        EventKind::HandoffRejected {
            from,
            to,
            reason,
            handoffs,
            window,
        } => format!(
            "{from} ✗ {to}: {reason} (handoffs {handoffs}, window [{}])",
            window.join(" ")
        ),
        EventKind::MemberCallStarted {
            turn, member, task, ..
        } => format!("turn {turn} · calls {member}: {task}"),
        EventKind::MemberCallFinished {
            member,
            outcome,
            latency_ms,
            reason,
            ..
        } => match reason {
            Some(reason) => format!("{member}: {reason} after {latency_ms} ms"),
            None => format!("{member}: {} in {latency_ms} ms", outcome_word(*outcome)),
        },
        EventKind::ResearchStepStarted(s) => format!("step {}: {}", s.step, s.phase),
        EventKind::ResearchStepFinished(s) => format!(
            "step {} {} done: {}",
            s.step,
            s.phase,
            counted(s.phase, s.count)
        ),
        EventKind::SourceFound(s) => format!("#{} {}", s.rank, s.url),
        EventKind::SourcesDeduped(s) => {
            format!("{} after dedupe", plural(s.urls.len() as u64, "source"))
        }
        EventKind::SourceAllowed(s) => format!("{} allowed: {}", s.domain, s.url),
        EventKind::SourceDenied(s) => match &s.gated_by {
            Some(flag) => format!("{}: {} (flag {flag} off)", s.url, s.reason.as_str()),
            None => format!("{}: {}", s.url, s.reason.as_str()),
        },
        EventKind::PageRead(p) => format!("{} ({}) {}", p.title, p.published_at, p.url),
        EventKind::NoteExtracted(n) => format!("{} {}", n.id, n.claim),
        EventKind::NotesVerified(v) if v.ok => {
            format!("{} checked, no issue", plural(v.checked, "note"))
        }
        EventKind::NotesVerified(v) => {
            format!(
                "{} checked: {}",
                plural(v.checked, "note"),
                v.issues.join(", ")
            )
        }
        EventKind::Cited(c) => format!("{} → {} ({})", c.id, c.url, c.published_at),
    };
    clean(&text).into_owned()
}

/// A research step's headline count, with what it counts.
fn counted(phase: ResearchPhase, count: u64) -> String {
    match phase {
        ResearchPhase::Plan => plural(count, "step"),
        ResearchPhase::Search => plural(count, "candidate"),
        ResearchPhase::Dedupe => plural(count, "source"),
        ResearchPhase::ReadExtract => plural(count, "note"),
        ResearchPhase::Verify => format!("{count} checked"),
        ResearchPhase::Synthesize => plural(count, "citation"),
    }
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

fn attempts(n: u32) -> String {
    plural(u64::from(n), "attempt")
}

fn attempt_note(attempt: u32) -> String {
    if attempt > 1 {
        format!(" (attempt {attempt})")
    } else {
        String::new()
    }
}

/// A run clock reading: `mm:ss.d` under an hour, `h:mm:ss.d` under a day,
/// `Nd hh:mm:ss.d` beyond (a recording may carry any `t_ms`).
pub(crate) fn clock(ms: u64) -> String {
    const MINUTE: u64 = 60_000;
    const HOUR: u64 = 60 * MINUTE;
    const DAY: u64 = 24 * HOUR;
    let tenths = (ms / 100) % 10;
    let seconds = (ms / 1000) % 60;
    let minutes = (ms / MINUTE) % 60;
    let hours = (ms / HOUR) % 24;
    let days = ms / DAY;
    if ms < HOUR {
        format!("{minutes:02}:{seconds:02}.{tenths}")
    } else if ms < DAY {
        format!("{hours}:{minutes:02}:{seconds:02}.{tenths}")
    } else {
        format!("{days}d {hours:02}:{minutes:02}:{seconds:02}.{tenths}")
    }
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
        let finished = |usage| EventKind::CallFinished {
            call: 3,
            tool: "model".into(),
            attempt: 1,
            latency_ms: 400,
            outcome: crate::bus::CallOutcome::Ok,
            usage: Some(usage),
            error: None,
            http_status: None,
            first_token_ms: None,
            tokens_per_s: None,
        };
        let counted = crate::bus::TokenUsage {
            input: 1200,
            output: 300,
            cost_usd: Some(0.00096),
            estimated: false,
        };
        assert_eq!(
            describe(&finished(counted)),
            "model: ok in 400 ms · 1200+300 tokens · $0.00096"
        );
        let estimated = crate::bus::TokenUsage {
            cost_usd: None,
            estimated: true,
            ..counted
        };
        assert_eq!(
            describe(&finished(estimated)),
            "model: ok in 400 ms · ~1200+300 tokens"
        );
    }

    #[test]
    fn clock_reads_minutes_seconds_tenths() {
        assert_eq!(clock(0), "00:00.0");
        assert_eq!(clock(3_250), "00:03.2");
        assert_eq!(clock(754_999), "12:34.9");
        assert_eq!(clock(3_599_999), "59:59.9");
    }

    #[test]
    fn long_clocks_read_in_hours_then_days() {
        assert_eq!(clock(3_600_000), "1:00:00.0");
        assert_eq!(clock(45_296_700), "12:34:56.7");
        assert_eq!(clock(86_399_999), "23:59:59.9");
        assert_eq!(clock(86_400_000), "1d 00:00:00.0");
        assert_eq!(clock(8 * 86_400_000 + 3_723_400), "8d 01:02:03.4");
        // The absurd t_ms of a damaged recording: no overflow, still readable.
        assert_eq!(clock(u64::MAX), "213503982334d 14:25:51.6");
    }
}
