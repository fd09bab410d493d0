//! The research pattern (004): a bounded workflow. A plan is checked to be
//! search → dedupe → read and extract notes → verify → synthesize; the
//! search's candidates are normalised and deduplicated; each source passes
//! the policy, then the execution allowlist (flags narrow it live) before
//! it is read within the read and note budgets; notes carry provenance and
//! are checked and verified; the answer may cite only existing notes.
//! Every model and tool call goes through the gateway; the run stops at a
//! control gate before each step. It never retries or times a call.

mod answer_checks;
pub(crate) mod checks;
pub(crate) mod compare;
pub(crate) mod contract;
pub(crate) mod describe;
pub(crate) mod events;
pub(crate) mod figures;
pub(crate) mod plan;
mod read_extract;
pub(crate) mod result;
pub(crate) mod scenario;
pub(crate) mod schema;
pub(crate) mod sim;
pub(crate) mod sim_tools;
mod sources;
pub(crate) mod stops;
pub(crate) mod trace;
mod workflow;

use super::{RunContext, RunOutcome, Runner};
use crate::bus::{EventKind, GatePoint, RunStatus, RunSummary};
use crate::cassette::Measure;
use crate::control::SharedGate;
use crate::gateway::{
    CallError, Check, DispatchLimits, Gateway, TimeoutFrom, ToolCall, ToolPolicy,
};
use crate::patterns::events::PatternEvent;
use crate::patterns::research::events::ResearchEvent;
use crate::patterns::research::events::{ResearchPhase, StepFinished, StepStarted};
use crate::provider::contract::Contract;
use crate::provider::prompts::Prompt;
use crate::provider::{ModelRequest, Purpose};
use crate::scenario::{DEFAULT_MAX_SECONDS, ResearchLimits, ResearchTool, Scenario};
use crate::stop::StopReason;
use contract::tool_data;
use result::{
    Aggregate, CitationDetail, DeniedSource, HistoryDetail, HistoryEntry, OUTCOME, ResearchResult,
    TraceCounts, TraceEntry,
};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::sync::Arc;
use std::time::Duration;

/// The research workflow: its runs take steps.
pub(crate) const RUNNER: Runner = Runner {
    run: |ctx| Box::pin(run(ctx)),
    default_max_seconds: DEFAULT_MAX_SECONDS,
    compare: &compare::Rules,
    explain_stop: stops::explain,
    asking: None,
};

pub(crate) async fn run(ctx: RunContext) -> RunOutcome {
    let RunContext {
        scenario,
        goal,
        bus,
        mut gate,
        gateway,
        seed,
    } = ctx;
    let gate = SharedGate::new(&mut gate);
    let mut desk = Desk {
        scenario: &scenario,
        goal: &goal,
        bus: &bus,
        gate: &gate,
        gateway: &gateway,
        limits: ResearchLimits::of(&scenario),
        // 004's tools have no timeout, no retry and no dispatch budget.
        policy: ToolPolicy {
            max_attempts: 1,
            attempt_timeout: Duration::MAX,
            timeout_from: TimeoutFrom::Deadline,
        },
        dispatch: DispatchLimits::unmetered(),
        phase: ResearchPhase::Plan,
        trace: Vec::new(),
        history: Vec::new(),
    };
    let ended = desk.research().await;
    desk.finish(run_id(seed, &scenario.name), ended)
}

/// A stable run id for the same scenario and seed, shaped like the
/// reference's UUID4.
fn run_id(seed: u64, name: &str) -> String {
    let digest = Sha256::digest(format!("conclave research {name} {seed}").as_bytes());
    let mut b = [0u8; 16];
    b.copy_from_slice(&digest[..16]);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}

/// How a run ends early: the reason, and what the result adds to it.
#[derive(Debug, Default)]
struct Stop {
    reason: Option<StopReason>,
    denied_sources: Option<Vec<DeniedSource>>,
    details: Option<Value>,
    verification: Option<Value>,
}

impl From<StopReason> for Stop {
    fn from(reason: StopReason) -> Self {
        Stop {
            reason: Some(reason),
            ..Stop::default()
        }
    }
}

impl From<stops::ResearchStop> for Stop {
    fn from(reason: stops::ResearchStop) -> Self {
        StopReason::from(reason).into()
    }
}

/// The grounded answer and what the result reports with it.
struct Answer {
    answer: String,
    citations: Vec<String>,
    citation_details: Vec<CitationDetail>,
    aggregate: Aggregate,
}

/// One research run in progress.
struct Desk<'a> {
    scenario: &'a Scenario,
    goal: &'a str,
    bus: &'a crate::bus::Bus,
    gate: &'a SharedGate<'a>,
    gateway: &'a Gateway,
    limits: ResearchLimits,
    policy: ToolPolicy,
    dispatch: DispatchLimits,
    phase: ResearchPhase,
    trace: Vec<TraceEntry>,
    history: Vec<HistoryEntry>,
}

impl Desk<'_> {
    /// Pass the gate before `phase`, then announce it.
    async fn enter(&mut self, phase: ResearchPhase) -> Result<(), Stop> {
        self.phase = phase;
        let step = phase.step();
        if self
            .gate
            .pass(GatePoint::Step { step, phase })
            .await
            .is_err()
        {
            return Err(StopReason::Cancelled.into());
        }
        // Past the run's tokens or dollars, no step starts.
        if let Some(reason) = self.gateway.spend_stop() {
            return Err(reason.into());
        }
        self.bus.publish(EventKind::Pattern(PatternEvent::Research(
            ResearchEvent::ResearchStepStarted(StepStarted { step, phase }),
        )));
        Ok(())
    }

    /// The current step went well: trace, history and event.
    /// The step's run time is its event's, or served, the recorded one
    /// (see `Measure`).
    fn done(&mut self, counts: TraceCounts, detail: HistoryDetail, count: usize) {
        let step = self.phase.step();
        let ended = self
            .bus
            .publish_stamped(EventKind::Pattern(PatternEvent::Research(
                ResearchEvent::ResearchStepFinished(StepFinished {
                    step,
                    phase: self.phase,
                    count: u64::try_from(count).unwrap_or(u64::MAX),
                }),
            )));
        let ended = self
            .gateway
            .served_measure(|| Measure::StepEnded(step))
            .unwrap_or(ended);
        self.trace.push(TraceEntry {
            step,
            phase: self.phase,
            counts,
            elapsed_ms: ended.max(1),
            ok: true,
        });
        self.history.push(HistoryEntry {
            step,
            action: detail.action(),
            detail,
        });
    }

    fn time_is_up(&self) -> bool {
        self.bus.clock().elapsed().as_secs_f64() > self.limits.max_seconds
    }

    /// Ask the model for an answer, read once by `check` (an endpoint's is
    /// asked again while the reading fails): what it read, or the reading
    /// that failed when the repairs ran out.
    async fn model<T, E>(
        &self,
        label: &str,
        purpose: Purpose,
        prompt: &'static Prompt,
        payload: Value,
        contract: Arc<Contract>,
        check: &Check<'_, T, E>,
    ) -> Result<Result<T, E>, Stop> {
        let request = ModelRequest::new(purpose, prompt, payload).keeping(contract);
        let (answer, _) = self
            .gateway
            .model_checked(label.to_string(), request, None, check)
            .await;
        answer
            .unwrap_or(Err(CallError::Timeout))
            .map_err(|error: CallError| error.stop_reason().into())
    }

    /// Call a research tool through the gateway; the `data` of its output.
    async fn tool(
        &self,
        step_id: &str,
        tool: ResearchTool,
        args: Value,
    ) -> Result<Map<String, Value>, Stop> {
        // The workflow cannot go on without its tools' answers.
        let call = ToolCall {
            task: step_id,
            tool: tool.as_str(),
            args: &args,
            critical: true,
        };
        let report = self
            .gateway
            .call_tool(call, &self.policy, &self.dispatch, self.gate)
            .await;
        match report.outcome {
            Ok(output) => tool_data(&output, tool.as_str()).map_err(Stop::from),
            Err(StopReason::Cancelled) => Err(StopReason::Cancelled.into()),
            Err(_) => Err(tool_failed(tool)),
        }
    }

    fn finish(self, run_id: String, ended: Result<Answer, Stop>) -> RunOutcome {
        let mut summary = RunSummary::default();
        if let Ok(answer) = &ended {
            summary.set_answer(Some(answer.answer.clone()));
            summary.put(figures::CITATIONS, &answer.citations);
        }
        let result = match ended {
            Ok(answer) => ResearchResult {
                run_id,
                status: RunStatus::Ok,
                stop_reason: StopReason::Success,
                phase: None,
                outcome: Some(OUTCOME),
                answer: Some(answer.answer),
                citations: Some(answer.citations),
                citation_details: Some(answer.citation_details),
                aggregate: Some(answer.aggregate),
                trace: self.trace,
                history: self.history,
                denied_sources: None,
                details: None,
                verification: None,
            },
            Err(stop) => ResearchResult {
                run_id,
                status: RunStatus::Stopped,
                stop_reason: stop.reason.unwrap_or(StopReason::Cancelled),
                phase: Some(self.phase),
                outcome: None,
                answer: None,
                citations: None,
                citation_details: None,
                aggregate: None,
                trace: self.trace,
                history: self.history,
                denied_sources: stop.denied_sources,
                details: stop.details,
                verification: stop.verification,
            },
        };
        RunOutcome {
            error: None,
            status: result.status,
            stop_reason: result.stop_reason.clone(),
            phase: result.phase.map(|p| p.as_str().to_string()),
            result: super::document(&result, self.gateway),
            summary,
        }
    }
}

fn tool_failed(tool: ResearchTool) -> Stop {
    stops::ResearchStop::ToolInvalidOutput {
        tool: tool.as_str().to_string(),
    }
    .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_ids_are_stable_uuid4_shapes() {
        let id = run_id(7, "payments");
        assert_eq!(id, run_id(7, "payments"));
        assert_ne!(id, run_id(8, "payments"));
        assert_eq!(id.len(), 36);
        assert_eq!(&id[14..15], "4");
        assert!(matches!(&id[19..20], "8" | "9" | "a" | "b"));
    }
}
