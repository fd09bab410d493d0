//! The calls through the gateway a run is waiting on, as the panes name
//! them, and how a call's events fold into the run.

use super::MAX_SPENDERS;
use super::partial::PartialText;
use crate::bus::EventKind;

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

impl super::RunState {
    /// A gateway call started, streamed text or finished.
    pub(super) fn apply_call(&mut self, kind: &EventKind, t_ms: u64) {
        match kind {
            EventKind::CallStarted {
                call,
                tool,
                attempt,
                label,
                agent,
            } => {
                let mut text = PartialText::default();
                if tool == crate::scenario::MODEL_TOOL
                    && let Some(note) = self.repairs.starting(agent.as_deref())
                {
                    text.set_note(note);
                }
                self.calling.push(CallInFlight {
                    call: *call,
                    tool: tool.clone(),
                    attempt: *attempt,
                    label: label.clone(),
                    agent: agent.clone(),
                    text,
                });
                self.model_calls += 1;
                self.resilience.apply(kind, t_ms);
            }
            // Shown where the call's agent sits until the call finishes
            // (and not a line of the log); a function call's arguments are
            // the answer in the making, shown as its text is.
            EventKind::CallDelta {
                call,
                text,
                reasoning,
                ..
            } => {
                if let Some(calling) = self.calling.iter_mut().find(|c| c.call == *call) {
                    if *reasoning {
                        calling.text.push_reasoning(text);
                    } else {
                        calling.text.push(text);
                    }
                }
            }
            EventKind::CallFinished { call, usage, .. } => {
                // Whose tokens: the agent the call speaks for, else what a
                // model call was for (`plan`, `final brief`).
                let agent = self.calling.iter().find(|c| c.call == *call).and_then(|c| {
                    c.agent.clone().or_else(|| {
                        (c.tool == crate::scenario::MODEL_TOOL).then(|| c.label.clone())
                    })
                });
                if let Some(finished) = self.calling.iter().find(|c| c.call == *call)
                    && finished.tool == crate::scenario::MODEL_TOOL
                {
                    self.repairs.finished(*call, finished.agent.clone());
                }
                self.calling.retain(|c| c.call != *call);
                if let Some(usage) = usage {
                    self.spend.add(usage);
                    // A recording names whatever agents and labels it likes:
                    // past `MAX_SPENDERS` a new name is counted in the run's
                    // total only, so the state stays bounded.
                    if let Some(agent) = agent
                        && (self.spend_by_agent.len() < MAX_SPENDERS
                            || self.spend_by_agent.contains_key(&agent))
                    {
                        self.spend_by_agent.entry(agent).or_default().add(usage);
                    }
                }
                self.resilience.apply(kind, t_ms);
            }
            EventKind::CallRepair {
                call,
                attempt,
                of,
                error,
            } => self.repairs.announced(*call, *attempt, *of, error),
            // `apply` sends no other kind here.
            _ => {}
        }
    }
}
