//! The calls through the gateway a run is waiting on, as the panes name
//! them.

use super::partial::PartialText;

/// A call through the gateway that has started and not finished.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CallInFlight {
    pub(crate) call: u64,
    /// `model`, or the worker or tool called.
    pub(crate) tool: String,
    pub(crate) attempt: u32,
    /// What the call is for, e.g. `round 2 · risk_analyst`.
    pub(crate) label: String,
    /// The role or agent a model call speaks for.
    pub(crate) agent: Option<String>,
    /// A streamed model call's text so far, dropped with the call when it
    /// finishes.
    pub(crate) text: PartialText,
}

/// Repairs of model answers on their way: the model call whose answer
/// failed its contract has finished, and the call that asks again has not
/// started yet. Bounded: a recording may hold any number of repairs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Repairs {
    /// The latest finished model calls and whom they spoke for.
    finished: std::collections::VecDeque<(u64, Option<String>)>,
    /// Repairs announced, by whom they speak for: the line the next call
    /// of that speaker shows.
    pending: Vec<(Option<String>, String)>,
    /// Every repair of the run.
    pub(crate) count: u64,
}

/// Finished calls and announced repairs kept, at most.
const REPAIRS_KEPT: usize = 64;

impl Repairs {
    /// A model call finished, speaking for `agent`.
    pub(crate) fn finished(&mut self, call: u64, agent: Option<String>) {
        if self.finished.len() == REPAIRS_KEPT {
            self.finished.pop_front();
        }
        self.finished.push_back((call, agent));
    }

    /// The answer of `call` is asked for again: repair `attempt` of `of`.
    pub(crate) fn announced(&mut self, call: u64, attempt: u32, of: u32, error: &str) {
        self.count += 1;
        let agent = self
            .finished
            .iter()
            .rev()
            .find(|(id, _)| *id == call)
            .and_then(|(_, agent)| agent.clone());
        if self.pending.len() == REPAIRS_KEPT {
            self.pending.remove(0);
        }
        self.pending
            .push((agent, format!("↻ repair {attempt}/{of}: {error}")));
    }

    /// The line a model call of `agent` that starts now shows, when it is
    /// a repair.
    pub(crate) fn starting(&mut self, agent: Option<&str>) -> Option<String> {
        let at = self
            .pending
            .iter()
            .position(|(whom, _)| whom.as_deref() == agent)?;
        Some(self.pending.remove(at).1)
    }
}
