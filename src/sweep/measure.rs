//! What a run used that its result does not count: model and tool calls
//! (in all and per tool), tokens (with their cached and reasoning parts),
//! dollars, and the steps its events
//! opened (which a pattern may report as waves or steps), read off its
//! events as they are published. It only counts; it never holds an event or waits.
//! Token sums stop at the largest count (2^64 − 1) rather than wrap: a
//! model may report any count, and a sum that wrapped would read small.

use crate::bus::describe;
use crate::bus::{CallOutcome, Event, EventKind, EventSink};
use crate::scenario::MODEL_TOOL;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

/// A lossless observer of one run (`LaunchOptions.observers`).
#[derive(Debug, Default)]
pub(crate) struct Measure {
    model_calls: AtomicU64,
    tool_calls: AtomicU64,
    input_tokens: AtomicU64,
    output_tokens: AtomicU64,
    cached_tokens: AtomicU64,
    reasoning_tokens: AtomicU64,
    steps_opened: AtomicU64,
    /// Calls per tool and the dollars of priced calls; one lock per
    /// finished call, which nothing else holds.
    by_call: Mutex<ByCall>,
}

#[derive(Debug, Default)]
struct ByCall {
    tools: BTreeMap<String, ToolCalls>,
    cost_usd: Option<f64>,
}

/// The counts, once the run has ended.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Measured {
    pub(crate) model_calls: u64,
    pub(crate) tool_calls: u64,
    pub(crate) input_tokens: u64,
    pub(crate) output_tokens: u64,
    /// Of the input, the tokens the endpoint served from its prompt cache;
    /// of the output, those the model spent reasoning.
    pub(crate) cached_tokens: u64,
    pub(crate) reasoning_tokens: u64,
    /// Steps the run's events opened (`describe::opens_step`): rounds,
    /// waves, turns or workflow steps, as its pattern takes them.
    pub(crate) steps_opened: u64,
    /// Tool call attempts per tool (the model not among them).
    pub(crate) tool_calls_by_tool: BTreeMap<String, ToolCalls>,
    /// What the priced model calls cost; `None` when none had a price.
    pub(crate) cost_usd: Option<f64>,
}

/// One tool's call attempts that reached it, and those of them that failed
/// (an error or a timeout: during an outage, every call that reaches it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ToolCalls {
    pub calls: u64,
    #[serde(default)]
    pub failed: u64,
}

impl Measure {
    pub(crate) fn measured(&self) -> Measured {
        let read = |n: &AtomicU64| n.load(Ordering::Relaxed);
        let by_call = self.by_call.lock().unwrap_or_else(PoisonError::into_inner);
        Measured {
            tool_calls_by_tool: by_call.tools.clone(),
            cost_usd: by_call.cost_usd,
            model_calls: read(&self.model_calls),
            tool_calls: read(&self.tool_calls),
            input_tokens: read(&self.input_tokens),
            output_tokens: read(&self.output_tokens),
            cached_tokens: read(&self.cached_tokens),
            reasoning_tokens: read(&self.reasoning_tokens),
            steps_opened: read(&self.steps_opened),
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
            EventKind::CallFinished {
                tool,
                usage,
                outcome,
                ..
            } => {
                let mut by_call = self.by_call.lock().unwrap_or_else(PoisonError::into_inner);
                if tool == MODEL_TOOL {
                    bump(&self.model_calls, 1);
                } else {
                    bump(&self.tool_calls, 1);
                    let failed = matches!(outcome, CallOutcome::Error | CallOutcome::Timeout);
                    let count = match by_call.tools.get_mut(tool) {
                        Some(count) => count,
                        None => by_call.tools.entry(tool.clone()).or_default(),
                    };
                    count.calls = count.calls.saturating_add(1);
                    count.failed = count.failed.saturating_add(u64::from(failed));
                }
                if let Some(cost) = usage.as_ref().and_then(|u| u.cost_usd) {
                    let sum = by_call.cost_usd.unwrap_or(0.0) + cost;
                    by_call.cost_usd = Some(crate::pricing::round_dollars(sum));
                }
                if let Some(usage) = usage {
                    add(&self.input_tokens, usage.input);
                    add(&self.output_tokens, usage.output);
                    add(&self.cached_tokens, usage.cached);
                    add(&self.reasoning_tokens, usage.reasoning);
                }
            }
            kind if describe::opens_step(kind) => bump(&self.steps_opened, 1),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bus::TokenUsage;

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
            reasoning: None,
            record: None,
            served: false,
            extracted: None,
            fallback: false,
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
        assert_eq!(measured.cost_usd, None, "no call had a price");
    }

    #[test]
    fn tool_calls_are_counted_per_tool_and_priced_calls_summed() {
        let measure = Measure::default();
        let tool_call = |tool: &str, ended: CallOutcome| {
            let mut event = (*finished(0, 0)).clone();
            if let EventKind::CallFinished {
                tool: t,
                usage,
                outcome,
                ..
            } = &mut event.kind
            {
                *t = tool.into();
                *usage = None;
                *outcome = ended;
            }
            Arc::new(event)
        };
        measure.accept(tool_call("vendor_api", CallOutcome::Ok));
        measure.accept(tool_call("vendor_api", CallOutcome::Timeout));
        measure.accept(tool_call("vendor_api", CallOutcome::Error));
        measure.accept(tool_call("orders_db", CallOutcome::Ok));
        let mut priced = (*finished(100, 10)).clone();
        if let EventKind::CallFinished {
            usage: Some(usage), ..
        } = &mut priced.kind
        {
            usage.cost_usd = Some(0.0001);
        }
        measure.accept(Arc::new(priced.clone()));
        measure.accept(Arc::new(priced));
        let measured = measure.measured();
        assert_eq!(measured.tool_calls, 4);
        let calls = |calls, failed| ToolCalls { calls, failed };
        assert_eq!(
            measured.tool_calls_by_tool,
            BTreeMap::from([
                ("orders_db".to_string(), calls(1, 0)),
                ("vendor_api".to_string(), calls(3, 2))
            ])
        );
        assert_eq!(measured.cost_usd, Some(0.0002));
    }
}
