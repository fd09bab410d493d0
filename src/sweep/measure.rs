//! What a run used that its result does not count: model and tool calls,
//! tokens, orchestrator waves and research steps, read off its events as
//! they are published. It only counts; it never holds an event or waits.
//! Token sums stop at the largest count (2^64 − 1) rather than wrap: a
//! model may report any count, and a sum that wrapped would read small.

use crate::bus::{Event, EventKind, EventSink};
use crate::scenario::MODEL_TOOL;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// A lossless observer of one run (`LaunchOptions.observers`).
#[derive(Debug, Default)]
pub(crate) struct Measure {
    model_calls: AtomicU64,
    tool_calls: AtomicU64,
    input_tokens: AtomicU64,
    output_tokens: AtomicU64,
    waves: AtomicU64,
    steps: AtomicU64,
}

/// The counts, once the run has ended.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Measured {
    pub(crate) model_calls: u64,
    pub(crate) tool_calls: u64,
    pub(crate) input_tokens: u64,
    pub(crate) output_tokens: u64,
    pub(crate) waves: u64,
    pub(crate) steps: u64,
}

impl Measure {
    pub(crate) fn measured(&self) -> Measured {
        let read = |n: &AtomicU64| n.load(Ordering::Relaxed);
        Measured {
            model_calls: read(&self.model_calls),
            tool_calls: read(&self.tool_calls),
            input_tokens: read(&self.input_tokens),
            output_tokens: read(&self.output_tokens),
            waves: read(&self.waves),
            steps: read(&self.steps),
        }
    }
}

impl EventSink for Measure {
    fn accept(&self, event: Arc<Event>) {
        let bump = |n: &AtomicU64, by: u64| {
            n.fetch_add(by, Ordering::Relaxed);
        };
        let add = |n: &AtomicU64, by: u64| {
            // Only this run's engine publishes to it, so the swap
            // succeeds the first time.
            let _ = n.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |sum| {
                Some(sum.saturating_add(by))
            });
        };
        match &event.kind {
            // Every attempt that reached the model or the tool counts as a
            // call, as the gateway's meter charges each attempt's tokens.
            EventKind::CallFinished { tool, usage, .. } => {
                if tool == MODEL_TOOL {
                    bump(&self.model_calls, 1);
                } else {
                    bump(&self.tool_calls, 1);
                }
                if let Some(usage) = usage {
                    add(&self.input_tokens, usage.input);
                    add(&self.output_tokens, usage.output);
                }
            }
            EventKind::WaveStarted { .. } => bump(&self.waves, 1),
            EventKind::ResearchStepStarted(_) => bump(&self.steps, 1),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bus::{CallOutcome, TokenUsage};

    fn finished(input: u64, output: u64) -> Arc<Event> {
        let kind = EventKind::CallFinished {
            call: 1,
            tool: MODEL_TOOL.into(),
            attempt: 1,
            latency_ms: 0,
            outcome: CallOutcome::Ok,
            usage: Some(TokenUsage {
                input,
                output,
                ..TokenUsage::default()
            }),
            error: None,
            http_status: None,
            first_token_ms: None,
            tokens_per_s: None,
        };
        Arc::new(Event {
            run: 1,
            seq: 1,
            t_ms: 0,
            kind,
        })
    }

    #[test]
    fn token_sums_stop_at_the_largest_count_rather_than_wrap() {
        let measure = Measure::default();
        measure.accept(finished(u64::MAX - 3, 7));
        measure.accept(finished(5, 7));
        let measured = measure.measured();
        assert_eq!(measured.input_tokens, u64::MAX, "not 1");
        assert_eq!(measured.output_tokens, 14);
        assert_eq!(measured.model_calls, 2);
    }
}
