//! The round table (000): role analysts give stances in rounds over shared
//! facts; the contract checks each contribution, conflicts and the consensus
//! policy decide each round, and a final brief closes a decided run. Flags
//! gate roles live: a gated-off role in the sequence stops the run with
//! `agent_denied`, and a flag that `joins` seats its roles after the sequence
//! from the next round.

pub(crate) mod checks;
pub(crate) mod compare;
pub(crate) mod contract;
mod contribution;
pub(crate) mod describe;
pub(crate) mod escalate;
pub(crate) mod events;
pub(crate) mod figures;
mod limits;
mod payload;
pub(crate) mod result;
pub(crate) mod scenario;
pub(crate) mod schema;
pub(crate) mod sim;
pub(crate) mod stops;
pub(crate) mod trace;

use super::{RunContext, RunOutcome, Runner};
use crate::bus::{EventKind, GatePoint, RunStatus, RunSummary};
use crate::gateway::CallError;
use crate::patterns::collaboration::events::Decision;
use crate::patterns::collaboration::events::RoundEvent;
use crate::patterns::events::PatternEvent;
use crate::provider::ModelRequest;
use crate::provider::prompts::{Prompt, compiled_in};
use crate::pycompat::py_strip;
use crate::stop::StopReason;
use contract::{decide_round, detect_conflicts};
use escalate::{Answer, Escalation};
pub(crate) use limits::{DEFAULT_MAX_SECONDS, Limits};
use result::{CollaborationResult, RoundRecord, StanceSummary, TeamSummary, TraceEntry};
use scenario::Team;
use serde_json::json;
use stops::{RoundStop, Stop};

/// The system prompt of the final brief (a contribution's is
/// `contribution`'s).
const BRIEF_PROMPT: Prompt = compiled_in!("collaboration_brief.md", text);

/// The round table.
pub(crate) const RUNNER: Runner = Runner {
    run: |ctx| Box::pin(run(ctx)),
    default_max_seconds: DEFAULT_MAX_SECONDS,
    compare: &compare::Rules,
    explain_stop: stops::explain,
    asking: Some(&escalate::ASKING),
};

struct Table<'a> {
    ctx: &'a mut RunContext,
    team: Team,
    limits: Limits,
    messages: u32,
    /// Rounds convened, the one in progress included.
    rounds: u32,
    history: Vec<RoundRecord>,
    trace: Vec<TraceEntry>,
    open_conflicts: Vec<crate::patterns::collaboration::events::Conflict>,
    escalation: Escalation,
    contracts: schema::Contracts,
}

pub(crate) async fn run(mut ctx: RunContext) -> RunOutcome {
    // The loader refuses a collaboration scenario without a team; one built
    // in code without it runs with an empty table.
    let team = ctx.scenario.team.clone().unwrap_or_default();
    let limits = Limits::of(&ctx.scenario);
    let escalation = Escalation::of(&ctx.scenario);
    let mut table = Table {
        ctx: &mut ctx,
        team,
        limits,
        messages: 0,
        rounds: 0,
        history: Vec::new(),
        trace: Vec::new(),
        open_conflicts: Vec::new(),
        escalation,
        contracts: schema::Contracts::default(),
    };
    let ended = table.play().await;
    finish(table, ended)
}

impl Table<'_> {
    /// Rounds until a decision, then the brief. `Ok` carries the answer and
    /// the decision.
    async fn play(&mut self) -> Result<(String, Decision), Stop> {
        let (mut decided, mut round, mut last) = (None, 0, self.limits.max_rounds);
        while round < last {
            round += 1;
            let gate = self.ctx.gate.pass(GatePoint::Round { round }).await;
            if gate.is_err() {
                return Err(Stop::new(StopReason::Cancelled).in_phase(format!("round_{round}")));
            }
            if self.limits.time_is_up(self.ctx.bus.clock().elapsed()) {
                return Err(Stop::new(StopReason::MaxSeconds));
            }
            // After 000's own time check: tokens and dollars are Conclave's.
            if let Some(reason) = self.ctx.gateway.spend_stop() {
                return Err(Stop::new(reason));
            }
            if let Some(decision) = self.round(round).await? {
                decided = Some(decision);
                break;
            }
            let record = self.history.last().expect("the round just recorded");
            let asked = self
                .escalation
                .after_round(&mut self.ctx.gate, &self.ctx.bus, record);
            match asked.await {
                Err(_) => return Err(Stop::new(StopReason::Cancelled)),
                Ok(None) => {}
                Ok(Some(Answer::Nobody)) => return Err(Stop::new(StopReason::EscalatedToHuman)),
                Ok(Some(Answer::Decided(decision))) => {
                    decided = Some(decision);
                    break;
                }
                Ok(Some(Answer::OneMoreRound)) => last = last.max(round + 1),
            }
        }
        let Some(decision) = decided else {
            return Err(Stop::new(RoundStop::MaxRoundsReached.into()));
        };
        self.ctx.bus.publish(EventKind::Pattern(PatternEvent::Round(
            RoundEvent::FinalizeStarted { decision },
        )));
        let answer = self.brief(decision).await?;
        Ok((answer, decision))
    }

    /// The speaking order of this round: the sequence, then the roles that
    /// joined through flags and are not in it.
    fn speakers(&self) -> Vec<String> {
        let mut speakers = self.team.sequence.clone();
        for role in self.ctx.gate.flags().joined_roles() {
            if !self.team.sequence.contains(&role) {
                speakers.push(role);
            }
        }
        speakers
    }

    async fn round(&mut self, round: u32) -> Result<Option<Decision>, Stop> {
        let speakers = self.speakers();
        self.rounds = round;
        self.ctx.bus.publish(EventKind::Pattern(PatternEvent::Round(
            RoundEvent::RoundStarted {
                round,
                speakers: speakers.clone(),
            },
        )));
        let mut contributions = Vec::with_capacity(speakers.len());
        for role in &speakers {
            let contribution = self.contribution(round, role).await?;
            self.trace.push(TraceEntry::Contribution {
                round,
                agent: role.clone(),
                stance: contribution.stance,
                confidence: contribution.confidence,
                accepted: true,
            });
            contributions.push(contribution);
        }

        let conflicts = detect_conflicts(&contributions);
        let decision = decide_round(&contributions, self.limits.min_go_votes);
        self.ctx.bus.publish(EventKind::Pattern(PatternEvent::Round(
            RoundEvent::RoundFinished {
                round,
                conflicts: conflicts.clone(),
                decision,
            },
        )));
        self.trace.push(TraceEntry::Round {
            round,
            conflicts: conflicts.clone(),
            decision: decision.map_or("next_round", Decision::as_str),
        });
        self.history.push(RoundRecord {
            round,
            contributions,
            conflicts: conflicts.clone(),
            decision,
        });
        if decision.is_none() {
            self.open_conflicts = conflicts;
        }
        Ok(decision)
    }

    async fn brief(&mut self, decision: Decision) -> Result<String, Stop> {
        let request = ModelRequest::new(
            sim::final_brief(),
            &BRIEF_PROMPT,
            json!({
                "goal": self.ctx.goal,
                "final_decision": decision,
                "history": self.history,
            }),
        );
        let phase = || "finalize".to_string();
        let text = match self.ctx.gateway.model("final brief".into(), request).await {
            Ok(output) => output.into_text(),
            Err(error) => return Err(Stop::new(call_stop(&error)).in_phase(phase())),
        };
        let answer = py_strip(&text);
        if answer.is_empty() {
            return Err(Stop::new(StopReason::LlmEmpty).in_phase(phase()));
        }
        Ok(answer.to_string())
    }
}

/// 000 stops a model call that failed with `llm_timeout`, whatever the
/// transport error. A call the gateway failed fast (only with a
/// `resilience` section) stops with the gateway's reason.
fn call_stop(error: &CallError) -> StopReason {
    error.stop_reason()
}

fn finish(table: Table<'_>, ended: Result<(String, Decision), Stop>) -> RunOutcome {
    let mut summary = RunSummary::default();
    summary.counts.set(figures::ROUNDS, u64::from(table.rounds));
    let result = match ended {
        Ok((answer, decision)) => {
            summary.put(figures::DECISION, decision);
            summary.set_answer(Some(answer.clone()));
            let last = table.history.last();
            CollaborationResult {
                status: RunStatus::Ok,
                stop_reason: StopReason::Success,
                phase: None,
                raw_contribution: None,
                answer: Some(answer),
                final_decision: Some(decision),
                rounds_used: Some(table.history.len()),
                team_summary: Some(TeamSummary {
                    report_date: table.ctx.scenario.fact("report_date"),
                    region: table.ctx.scenario.fact("region"),
                    stances: last
                        .map(|r| r.contributions.iter().map(StanceSummary::of).collect())
                        .unwrap_or_default(),
                    conflicts: last.map(|r| r.conflicts.clone()).unwrap_or_default(),
                }),
                decided_by: table.escalation.decided.then_some("human"),
                human_notes: table.escalation.notes,
                trace: table.trace,
                history: table.history,
            }
        }
        Err(stop) => CollaborationResult {
            status: RunStatus::Stopped,
            stop_reason: stop.reason,
            phase: stop.phase,
            raw_contribution: stop.raw_contribution,
            answer: None,
            final_decision: None,
            rounds_used: None,
            team_summary: None,
            decided_by: None,
            human_notes: table.escalation.notes,
            trace: table.trace,
            history: table.history,
        },
    };
    RunOutcome {
        error: None,
        status: result.status,
        stop_reason: result.stop_reason.clone(),
        phase: result.phase.clone(),
        result: super::document(&result, &table.ctx.gateway),
        summary,
    }
}
