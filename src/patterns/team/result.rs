//! The result document of a team of agents, as both references return it
//! (swarm and coordinator): how the run ended, who held control last, the
//! answer and the calls, then each pattern's own steps (a swarm's chain and
//! transfers, a coordinator's member calls), the trace and the history.

use super::figures::{FINAL_AGENT, LLM_CALLS};
use super::part::Part;
use super::trace::TraceEntry;
use crate::bus::{RunCounts, RunStatus, RunSummary};
use crate::gateway::Gateway;
use crate::patterns::RunOutcome;
use crate::stop::StopReason;
use serde::Serialize;
use serde_json::Value;

/// How a team's run ended, and what it leaves: its history as entries of
/// `H`, JSON values or a pattern's own typed entries.
pub(crate) struct TeamEnd<S, H = Value> {
    /// The answer, or why the run stopped.
    pub(crate) ended: Result<String, StopReason>,
    /// Who held control last (the coordinator, for a coordinator's run).
    pub(crate) final_agent: String,
    pub(crate) llm_calls: u64,
    /// Tools safe mode left out.
    pub(crate) degraded: Vec<String>,
    /// The pattern's own steps, placed after `llm_calls` in the document.
    pub(crate) steps: S,
    /// The pattern's own counts for the run's summary.
    pub(crate) counts: RunCounts,
    pub(crate) trace: Vec<TraceEntry>,
    pub(crate) history: Vec<H>,
}

#[derive(Debug, Serialize)]
struct TeamResult<S, H> {
    status: RunStatus,
    stop_reason: StopReason,
    final_agent: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    answer: Option<String>,
    llm_calls: u64,
    #[serde(flatten)]
    steps: S,
    trace: Vec<TraceEntry>,
    history: Vec<H>,
    #[serde(skip_serializing_if = "Option::is_none")]
    partial: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    degraded: Option<Vec<String>>,
}

/// How a member team's run ended, for the coordinator that called it.
pub(crate) struct TeamRan {
    /// The team's answer, or why it stopped: the member call's error.
    pub(crate) ended: Result<String, StopReason>,
    pub(crate) record: TeamRecord,
    /// The team's turns, its agents named by path, for the run's trace.
    pub(crate) trace: Vec<TraceEntry>,
}

/// A member team's own document under its member call: how it ended,
/// who held control last, its model calls, its own steps (a swarm's chain
/// and transfers, a coordinator's member calls) and the history its agents
/// saw, its agents named as the team names them.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct TeamRecord {
    /// The team's name in the scenario's `teams`.
    pub(crate) name: String,
    pub(crate) pattern: &'static str,
    /// Its place in the run's tree of teams: its agents are `PATH/AGENT`.
    pub(crate) path: String,
    pub(crate) stop_reason: StopReason,
    pub(crate) final_agent: String,
    pub(crate) llm_calls: u64,
    #[serde(flatten)]
    pub(crate) steps: serde_json::Map<String, Value>,
    pub(crate) history: Vec<Value>,
}

impl<S, H> TeamEnd<S, H>
where
    S: Serialize + Send + 'static,
    H: Serialize + Into<Value> + Send + 'static,
{
    /// The end of member team `part`, for its caller.
    pub(crate) fn ran(self, part: &Part<'_>) -> TeamRan {
        let stop_reason = match &self.ended {
            Ok(_) => StopReason::Success,
            Err(reason) => reason.clone(),
        };
        let steps = match serde_json::to_value(&self.steps) {
            Ok(Value::Object(steps)) => steps,
            _ => serde_json::Map::new(),
        };
        let trace = self
            .trace
            .into_iter()
            .map(|mut entry| {
                // The team's own agents; its member teams' entries are
                // named by their paths already.
                if !entry.agent.contains('/')
                    && let std::borrow::Cow::Owned(path) = part.path_of(&entry.agent)
                {
                    entry.agent = path.into();
                }
                entry
            })
            .collect();
        let (name, path) = part
            .nested
            .as_ref()
            .map(|n| (n.name.to_string(), n.path.clone()))
            .unwrap_or_default();
        TeamRan {
            ended: self.ended,
            record: TeamRecord {
                name,
                pattern: part.pattern.as_str(),
                path,
                stop_reason,
                final_agent: self.final_agent,
                llm_calls: self.llm_calls,
                steps,
                history: self.history.into_iter().map(Into::into).collect(),
            },
            trace,
        }
    }

    /// The run's outcome: its result document (with what the run's model
    /// calls used through `gateway`) and its summary.
    pub(crate) fn outcome(self, gateway: &Gateway) -> RunOutcome {
        let (status, stop_reason, answer) = match self.ended {
            Ok(answer) => (RunStatus::Ok, StopReason::Success, Some(answer)),
            Err(reason) => (RunStatus::Stopped, reason, None),
        };
        let partial = !self.degraded.is_empty();
        let mut summary = RunSummary::default();
        summary.partial = partial;
        summary.degraded = self.degraded.clone();
        summary.counts = self.counts;
        summary.set_answer(answer.clone());
        summary.put(FINAL_AGENT, &self.final_agent);
        summary.counts.set(LLM_CALLS, self.llm_calls);
        let result = TeamResult {
            status,
            stop_reason: stop_reason.clone(),
            final_agent: self.final_agent,
            answer,
            llm_calls: self.llm_calls,
            steps: self.steps,
            trace: self.trace,
            history: self.history,
            partial: partial.then_some(true),
            degraded: partial.then_some(self.degraded),
        };
        let document = crate::patterns::document(&result, gateway);
        // A turn of 100,000 member calls leaves as many records, which the
        // run's end need not wait to free.
        crate::patterns::drop_aside(result);
        RunOutcome {
            error: None,
            status,
            stop_reason,
            phase: None,
            result: document,
            summary,
        }
    }
}
