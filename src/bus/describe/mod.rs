//! One line of words per event, for the event log and its filter. Pure and
//! free of ratatui; the text is already cleaned for the terminal. Each
//! group of events words its own lines, in a file of its own.

mod calls;
mod run;

use crate::bus::EventKind;
use crate::bus::event::values::GateKind;
use crate::bus::pattern::PatternPayload;
use crate::sanitize::clean;

pub(crate) use super::kinds::kind_name;

/// What happened, in a few words: a pattern's event in its pattern's
/// words, every other kind in the run's or the gateway's.
pub(crate) fn describe<P: PatternPayload>(kind: &EventKind<P>) -> String {
    let text = match kind {
        EventKind::Pattern(event) => event.describe(),
        shared => run::line(shared)
            .or_else(|| calls::line(shared))
            .or_else(|| calls::attempt(shared))
            // Every kind has its words in one group; the name is a last resort.
            .unwrap_or_else(|| kind_name(shared).to_string()),
    };
    clean(&text).into_owned()
}

/// Whether `kind` begins one of its pattern's steps, the units a replay
/// steps through and a sweep counts: a round, a dispatch wave, an agent's
/// turn, a research step.
pub(crate) fn opens_step<P: PatternPayload>(kind: &EventKind<P>) -> bool {
    match kind {
        EventKind::Pattern(event) => event.opens_step(),
        _ => false,
    }
}

/// The gate `kind` opens a step after, with its number: a round's start
/// is the gate before that round.
pub(crate) fn opened_gate<P: PatternPayload>(kind: &EventKind<P>) -> Option<(GateKind, u32)> {
    match kind {
        EventKind::Pattern(event) => event.opened_gate(),
        _ => None,
    }
}

/// Whether `kind` closes a round, a task, a turn or a research step: the
/// events a headless replay prints.
pub(crate) fn closes_step<P: PatternPayload>(kind: &EventKind<P>) -> bool {
    match kind {
        EventKind::Pattern(event) => event.closes_step(),
        _ => false,
    }
}

pub(super) fn attempt_note(attempt: u32) -> String {
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
mod pattern_tests;
#[cfg(test)]
mod tests {
    use super::*;

    /// A shared kind's words, of a run of this crate's patterns.
    fn describe(kind: &EventKind) -> String {
        super::describe(kind)
    }

    #[test]
    fn gateway_events_read_as_sentences() {
        use crate::bus::{BreakerReason, BreakerState};
        use crate::stop::StopReason;
        let opened: EventKind = EventKind::BreakerTransition {
            tool: "enrichment_worker".into(),
            from: BreakerState::Closed,
            to: BreakerState::Open,
            reason: BreakerReason::FailureThreshold,
        };
        assert_eq!(
            describe(&opened),
            "enrichment_worker: closed → open (failure_threshold)"
        );
        let rejected: EventKind = EventKind::CallRejected {
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
        let retry: EventKind = EventKind::RetryScheduled {
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
            record: None,
            served: false,
            reasoning: None,
            extracted: None,
            fallback: false,
        };
        let counted = crate::bus::TokenUsage {
            input: 1200,
            output: 300,
            cost_usd: Some(0.00096),
            ..crate::bus::TokenUsage::default()
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
        let parts = crate::bus::TokenUsage {
            cached: 1000,
            reasoning: 120,
            ..counted
        };
        assert_eq!(
            describe(&finished(parts)),
            "model: ok in 400 ms · 1200+300 tokens (1.0k cached · 120 reasoning) · $0.00096"
        );
        let refused: EventKind = EventKind::CallFinished {
            call: 4,
            tool: "model".into(),
            attempt: 1,
            latency_ms: 3,
            outcome: crate::bus::CallOutcome::Error,
            usage: None,
            error: Some("the endpoint refused json_schema".into()),
            http_status: None,
            first_token_ms: None,
            tokens_per_s: None,
            record: None,
            served: false,
            reasoning: None,
            extracted: None,
            fallback: true,
        };
        assert_eq!(
            describe(&refused),
            "model: fallback in 3 ms: the endpoint refused json_schema · asked again another way"
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
