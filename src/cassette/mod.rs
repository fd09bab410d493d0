//! Running from a recording. A recording keeps, on every `call_finished`,
//! what the call asked and what came back; a cassette made of one serves
//! those answers again to the same requests, in order, so that a run that
//! paid for a real model once runs again offline, byte for byte. A fork is
//! a cassette up to a gate and a live run from it.
//!
//! Calls are matched by what they ask: a model call by its purpose (the
//! role or agent it speaks for) and its prompt's hash, a worker or tool
//! call by its tool and arguments, each kind in the order the recording
//! made them. A call the recording does not hold is a miss: it stops the
//! run naming the first difference, or goes to the live model or tool
//! (`--cassette-miss live`).
//!
//! The engine's own decisions (timeouts, retries, breakers, budgets,
//! jitter) are not served: they follow from the served answers and their
//! recorded latencies as they did the first time.

mod differ;
mod edit;
mod load;
mod measures;

pub use crate::control::{GateError, GateTarget};
pub use edit::{EditError, OutputEdit};
pub use load::{CassetteError, Parent};
pub(crate) use measures::Measure;

use crate::bus::cassette::CallRecord;
use crate::bus::{CallOutcome, GatePoint, TokenUsage};
use crate::control::Control;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// What a cassette does with a call its recording does not hold.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum MissPolicy {
    /// Stop the run, naming the first difference (`cassette_miss`).
    #[default]
    Stop,
    /// Make the call live, and record it.
    Live,
}

/// One recorded attempt of a call, as the cassette serves it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Recorded {
    /// Which `call_finished` of the recording it is (its call id).
    pub(crate) call: u64,
    /// The seq of that `call_finished` event.
    pub(crate) seq: u64,
    pub(crate) record: CallRecord,
    pub(crate) outcome: CallOutcome,
    /// How long the call took, on the run clock.
    pub(crate) latency: Duration,
    /// The run time it ended at, when the recording says.
    pub(crate) ended: Option<Duration>,
    pub(crate) usage: Option<TokenUsage>,
    /// The model's reasoning text, as the call's `call_finished` kept it.
    pub(crate) reasoning: Option<String>,
    /// A streamed answer's text as it arrived, in order.
    pub(crate) deltas: Vec<RecordedDelta>,
}

/// One `call_delta` of a recorded call.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RecordedDelta {
    /// Run time since the call started.
    pub(crate) at: Duration,
    pub(crate) text: String,
    /// The text is the model's reasoning, not its answer.
    pub(crate) reasoning: bool,
    /// The text is a function call's arguments as they came.
    pub(crate) arguments: bool,
}

/// How the cassette answers one call.
#[derive(Debug)]
pub(crate) enum Serve {
    /// The recording's answer.
    Served(Box<Recorded>),
    /// The call goes to the live model or tool.
    Live,
    /// The recording does not hold the call: the run stops (the cassette
    /// keeps why).
    Miss,
}

/// The calls of one recorded run, served to the requests that match them.
#[derive(Debug)]
pub struct Cassette {
    /// Unserved attempts by what they are: the tool, and a model call's
    /// purpose; each in recorded order.
    shelves: Mutex<HashMap<(String, Option<String>), Shelf>>,
    miss: MissPolicy,
    /// A fork went live at its gate: every call from now on is live. The
    /// run's gate holds it too, and turns it at the fork's gate.
    live: Arc<AtomicBool>,
    /// A model call's prompt is compared too (not when a fork changed the
    /// goal, which every prompt holds).
    compare_prompts: bool,
    /// What the run's control did at which gate, to do it there again.
    script: Vec<(GatePoint, Control)>,
    /// The descriptions the recorded run's MCP servers gave.
    described: Option<Vec<(String, String)>>,
    /// What the recorded run measured around its calls.
    measures: Mutex<measures::Measures>,
    /// The first miss, in words.
    missed: Mutex<Option<String>>,
    parent: Parent,
}

#[derive(Debug, Default)]
struct Shelf {
    calls: std::collections::VecDeque<Recorded>,
    /// How many of this kind were served already.
    served: usize,
}

impl Cassette {
    /// What to do with a call the recording does not hold.
    pub fn with_miss(mut self, miss: MissPolicy) -> Self {
        self.miss = miss;
        self
    }

    /// Serve model calls whatever their prompt says (a fork that changed
    /// the goal): matched by purpose and order alone.
    pub fn ignoring_prompts(mut self) -> Self {
        self.compare_prompts = false;
        self
    }

    /// What the cassette does with a call its recording does not hold.
    pub fn miss(&self) -> MissPolicy {
        self.miss
    }

    /// The recorded run this cassette is made of.
    pub fn parent(&self) -> &Parent {
        &self.parent
    }

    /// Every call from now on is live (a fork reached its gate; the run's
    /// gate turns the [`Cassette::live_switch`] itself).
    #[cfg(test)]
    pub(crate) fn go_live(&self) {
        self.live.store(true, Ordering::Release);
    }

    pub(crate) fn is_live(&self) -> bool {
        self.live.load(Ordering::Acquire)
    }

    /// What turns every call live, for the run's gate to turn at the
    /// fork's gate (the gate knows the switch, not the cassette).
    pub(crate) fn live_switch(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.live)
    }

    /// Commands the recorded run's control gave, with the gate each took
    /// effect at.
    pub(crate) fn script(&self) -> Vec<(GatePoint, Control)> {
        self.script.clone()
    }

    /// The descriptions the recorded run's MCP servers gave its tools, to
    /// use instead of starting them; `None` when the run started none or
    /// the cassette has gone live.
    pub(crate) fn described(&self) -> Option<Vec<(String, String)>> {
        if self.is_live() {
            return None;
        }
        self.described.clone()
    }

    /// The recorded value of `measure`'s next reading, while the run is
    /// served (not once a fork has gone live).
    pub(crate) fn measured(&self, measure: &Measure) -> Option<u64> {
        if self.is_live() {
            return None;
        }
        self.measures
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take(measure)
    }

    /// The first call the recording did not hold, in words.
    pub(crate) fn missed(&self) -> Option<String> {
        self.missed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The answer to a model call for `purpose` whose prompt hashes to
    /// `prompt_sha256`.
    pub(crate) fn serve_model(&self, purpose: &str, prompt_sha256: &str) -> Serve {
        let asked = Asked::Model {
            purpose,
            prompt_sha256,
        };
        self.serve(crate::scenario::MODEL_TOOL, Some(purpose), &asked)
    }

    /// The answer to a call of `tool` with `args`.
    pub(crate) fn serve_tool(&self, tool: &str, args: &serde_json::Value) -> Serve {
        self.serve(tool, None, &Asked::Tool { tool, args })
    }

    fn serve(&self, tool: &str, purpose: Option<&str>, asked: &Asked<'_>) -> Serve {
        if self.is_live() {
            return Serve::Live;
        }
        let mut shelves = self.shelves.lock().unwrap_or_else(PoisonError::into_inner);
        let key = (tool.to_string(), purpose.map(str::to_string));
        let shelf = shelves.entry(key).or_default();
        let found = shelf
            .calls
            .iter()
            .position(|recorded| asked.matches(&recorded.record, self.compare_prompts));
        if let Some(index) = found {
            shelf.served += 1;
            return match shelf.calls.remove(index) {
                Some(recorded) => Serve::Served(Box::new(recorded)),
                None => Serve::Live,
            };
        }
        let words = differ::first_difference(asked, shelf.calls.front(), shelf.served);
        drop(shelves);
        match self.miss {
            MissPolicy::Live => Serve::Live,
            MissPolicy::Stop => {
                self.missed
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .get_or_insert(words);
                Serve::Miss
            }
        }
    }
}

/// What a call asks, as it is matched against the recording.
#[derive(Debug)]
pub(crate) enum Asked<'a> {
    Model {
        purpose: &'a str,
        prompt_sha256: &'a str,
    },
    Tool {
        tool: &'a str,
        args: &'a serde_json::Value,
    },
}

impl Asked<'_> {
    fn matches(&self, record: &CallRecord, compare_prompts: bool) -> bool {
        match self {
            Asked::Model { prompt_sha256, .. } => {
                !compare_prompts || record.prompt_sha256.as_deref() == Some(prompt_sha256)
            }
            Asked::Tool { args, .. } => record.args.as_ref() == Some(args),
        }
    }
}

#[cfg(test)]
mod tests;
