//! What a run used that its result does not count: model and tool calls,
//! tokens, orchestrator waves and research steps, read off its events as
//! they are published. It only counts; it never holds an event or waits.

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
                    bump(&self.input_tokens, usage.input);
                    bump(&self.output_tokens, usage.output);
                }
            }
            EventKind::WaveStarted { .. } => bump(&self.waves, 1),
            EventKind::ResearchStepStarted(_) => bump(&self.steps, 1),
            _ => {}
        }
    }
}
