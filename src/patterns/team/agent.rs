//! One team run's agents taking turns, shared by the swarm and the
//! coordinator: the control gate, the allowlist and the run's budgets before
//! each model call, then the call itself and the agents' tool calls, all
//! through the gateway with the agent's deadline. It decides nothing about
//! where control goes, and it never times a call itself.

use super::action::{Action, Reading};
pub(crate) use super::budget::TeamBudget;
use super::part::Part;
pub(crate) use super::run_shared::NodeTurns;
use super::run_shared::RunShared;
use super::stops::TeamStop;
use super::turn_asks::TurnAsks;
use super::turn_context::TurnContext;
use super::turn_order::{Lane, SCENARIO_LANE, TurnOrder};
use super::turn_shape::TurnShape;
use super::turn_words::{self, WrongTurn};
use crate::bus::{BudgetKind, Bus, EventKind, GatePoint};
use crate::control::SharedGate;
use crate::gateway::{CallError, Check, Checked, DispatchLimits, Gateway};
use crate::patterns::events::PatternEvent;
use crate::patterns::team::events::{TeamEvent, TurnOutcome};
use crate::provider::prompts::Prompt;
use crate::provider::shared_facts::SharedFacts;
use crate::provider::{ModelOutput, ModelRequest};
use crate::scenario::Scenario;
use crate::stop::StopReason;
use serde_json::Value;
use std::borrow::Cow;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Why an agent cannot go on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Halt {
    /// The agent's deadline cut its call off.
    Cut,
    Stop(StopReason),
}

/// A turn that did not come back with an output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Halted {
    pub(crate) halt: Halt,
    /// The turn's number, how it ended and how long its model call took,
    /// when the call started.
    pub(crate) call: Option<(u32, TurnOutcome, u64)>,
}

impl Halted {
    fn before_the_call(reason: StopReason) -> Self {
        Halted {
            halt: Halt::Stop(reason),
            call: None,
        }
    }
}

/// A turn the agent took.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Turn {
    pub(crate) number: u32,
    pub(crate) action: Action,
    /// The output as the history records it.
    pub(crate) output: Value,
    pub(crate) latency_ms: u64,
}

/// What the agents of one team share: the team's part, its goal and its
/// model calls, and what every team of the run shares.
pub(crate) struct TeamRun<'a> {
    pub(crate) scenario: &'a Scenario,
    /// The scenario's own team or a member team.
    pub(crate) part: Part<'a>,
    /// The run's goal; a member team's is the task its caller gave it.
    pub(crate) goal: Cow<'a, str>,
    pub(crate) bus: &'a Bus,
    pub(crate) gateway: &'a Gateway,
    pub(crate) gate: &'a SharedGate<'a>,
    pub(crate) budget: TeamBudget,
    /// Model calls started: the run's first (the one its budget counts),
    /// then those of each team down to this one.
    llm_calls: Vec<Arc<AtomicU64>>,
    pub(super) run: Arc<RunShared>,
    /// The chain of turns this team's agents take theirs in.
    pub(crate) lane: Lane,
    /// Tool calls have no dispatch budget and no run deadline of their
    /// own: only the agent's deadline bounds them.
    pub(super) tool_limits: Arc<DispatchLimits>,
    /// What each agent's turns are asked with (contract, purpose, payload
    /// head), built at its first turn.
    pub(super) asks: TurnAsks,
    /// The scenario's shared facts, written once for all the run's calls.
    pub(super) facts: SharedFacts,
}

impl<'a> TeamRun<'a> {
    pub(crate) fn new(
        scenario: &'a Scenario,
        goal: &'a str,
        bus: &'a Bus,
        gateway: &'a Gateway,
        gate: &'a SharedGate<'a>,
    ) -> Self {
        TeamRun {
            scenario,
            part: Part::of_scenario(scenario),
            goal: Cow::Borrowed(goal),
            bus,
            gateway,
            gate,
            budget: TeamBudget::of(scenario),
            llm_calls: vec![Arc::default()],
            run: Arc::default(),
            lane: SCENARIO_LANE,
            tool_limits: Arc::new(DispatchLimits::without_budget(Duration::MAX)),
            asks: TurnAsks::default(),
            facts: SharedFacts::new("shared_context", &scenario.context),
        }
    }

    /// A member team of this one (`part`), asked `task` in the member
    /// call `lane`: its turns count against the run's budgets and into
    /// every caller's model calls.
    pub(crate) fn member_team(&self, part: Part<'a>, task: &str, lane: Lane) -> TeamRun<'a> {
        let mut llm_calls = self.llm_calls.clone();
        llm_calls.push(Arc::default());
        TeamRun {
            scenario: self.scenario,
            part,
            goal: Cow::Owned(task.to_string()),
            bus: self.bus,
            gateway: self.gateway,
            gate: self.gate,
            budget: self.budget,
            llm_calls,
            run: Arc::clone(&self.run),
            lane,
            tool_limits: Arc::clone(&self.tool_limits),
            asks: TurnAsks::default(),
            facts: self.facts.clone(),
        }
    }

    /// This team as a graph's team node: the team `part`, its turns
    /// numbered in the graph run's order `turns` on a lane of their own,
    /// within the graph's time budget `max_seconds`.
    pub(crate) fn in_graph(
        mut self,
        part: Part<'a>,
        turns: &NodeTurns,
        max_seconds: Duration,
    ) -> Self {
        self.part = part;
        // What was built for the agents of the part before is not theirs.
        self.asks = TurnAsks::default();
        self.run = Arc::clone(&turns.0);
        self.lane = self.run.turns.outside();
        self.budget.max_seconds = max_seconds;
        self
    }

    /// The order the run's turns take their numbers in, which this team's
    /// member calls join.
    pub(crate) fn turns(&self) -> &TurnOrder {
        &self.run.turns
    }

    /// Model calls this team started so far, its member teams' and
    /// cut-off ones included.
    pub(crate) fn llm_calls(&self) -> u64 {
        self.llm_calls
            .last()
            .map_or(0, |calls| calls.load(Ordering::Acquire))
    }

    /// The stop a cut means when the caller's deadline has passed: the
    /// member call of this team is over.
    pub(crate) fn cut_by_caller(&self) -> Option<StopReason> {
        let nested = self.part.nested.as_ref()?;
        self.part.caller_cut(self.now()).then(|| {
            TeamStop::MemberTimeout {
                member: nested.member.clone(),
            }
            .into()
        })
    }

    /// Whether `reason` is the stop safe mode called for after a tool
    /// call failed fast: a stop of the whole run, not of one member.
    pub(crate) fn is_safe_mode_stop(&self, reason: &StopReason) -> bool {
        self.run.safe_mode_stop.lock().as_ref() == Some(reason)
    }

    /// The tools safe mode skipped, for a partial result.
    pub(crate) fn degraded(&self) -> Vec<String> {
        self.gateway.degraded()
    }

    pub(crate) fn now(&self) -> Duration {
        self.bus.clock().elapsed()
    }

    /// One turn of `agent`, in the chain of turns `lane`, asked with
    /// `prompt` (its pattern's, for the agent's part), which must be done
    /// by `deadline`. Its number comes in the order the run decides
    /// ([`TurnOrder`]). Before the call: the control gate, the execution allowlist, then `max_seconds`
    /// and `max_llm_calls` in DESIGN.md's order, the call counted before it
    /// starts, then the run's `max_tokens` and `max_cost`.
    pub(crate) async fn turn(
        &self,
        lane: Lane,
        agent: &str,
        prompt: &'static Prompt,
        deadline: Option<Duration>,
        context: impl Into<TurnContext>,
    ) -> Result<Turn, Halted> {
        let numbered = self.run.turns.number(lane).await;
        let number = numbered.number;
        let path = self.part.path_of(agent).into_owned();
        let at = GatePoint::Turn {
            turn: number,
            agent: path.clone(),
        };
        // The gate is passed, and the run's limits checked, before the
        // next lane's turn takes its number: a stop of the whole run met
        // here starts no member call after it, whichever answers first.
        if self.gate.pass(at).await.is_err() {
            numbered.stop_run();
            return Err(Halted::before_the_call(StopReason::Cancelled));
        }
        if !self.gate.allows(&self.part.flag_name(agent)) {
            return Err(Halted::before_the_call(StopReason::AgentDenied {
                role: path,
            }));
        }
        if self.now() > self.budget.max_seconds {
            numbered.stop_run();
            return Err(Halted::before_the_call(StopReason::MaxSeconds));
        }
        // The caller's deadline passed while the team was busy: no call
        // is started for a member call that is over.
        if self.part.caller_cut(self.now()) {
            return Err(Halted {
                halt: Halt::Cut,
                call: None,
            });
        }
        let deadline = self.part.deadline(deadline);
        if let Err(reason) = self.count_call() {
            numbered.stop_run();
            return Err(Halted::before_the_call(reason));
        }
        drop(numbered);
        self.bus.publish(team_event(TeamEvent::TurnStarted {
            turn: number,
            agent: path.clone(),
        }));
        let request = self.request((&path, agent), prompt, context.into());
        // The call's own time, as the gateway measured it (or, served
        // from a cassette, as the recording says it measured it then).
        let (answer, took) = self
            .ask(format!("turn {number} · {path}"), agent, request, deadline)
            .await;
        let latency_ms = millis(took);
        let halted = |outcome, halt| {
            let call = Some((number, outcome, latency_ms));
            (outcome, Err(Halted { halt, call }))
        };
        let (outcome, result) = match answer {
            None | Some(Err(CallError::Cut)) => halted(TurnOutcome::Cut, Halt::Cut),
            Some(Err(CallError::Cancelled)) => {
                halted(TurnOutcome::Cancelled, Halt::Stop(StopReason::Cancelled))
            }
            // As 000 and 001 do, a failed model call is `llm_timeout`; a call
            // the gateway failed fast, or a real endpoint's refusal, stops
            // with its own reason.
            Some(Err(error)) => halted(TurnOutcome::Timeout, Halt::Stop(error.stop_reason())),
            // The turn as the check read it, once: a turn still wrong when
            // the repairs ran out is the pattern's to judge.
            Some(Ok(read)) => {
                let (action, output) = read.unwrap_or_else(|wrong| wrong.turn);
                let turn = Turn {
                    number,
                    action,
                    output,
                    latency_ms,
                };
                (turn.action.outcome(), Ok(turn))
            }
        };
        self.bus.publish(team_event(TeamEvent::TurnFinished {
            turn: number,
            agent: path,
            outcome,
            latency_ms,
        }));
        result
    }

    /// Ask the model for a turn that keeps the turn's contract: an
    /// endpoint's answer that does not is asked for again, each repair
    /// counted as one more model call of the turn.
    async fn ask(
        &self,
        label: String,
        agent: &str,
        request: ModelRequest,
        deadline: Option<Duration>,
    ) -> (Checked<(Action, Value), Box<WrongTurn>>, Duration) {
        let agents = |name: &str| self.part.agents.contains_key(name);
        let keys = TurnShape::of(&self.part, agent).action_keys();
        let read =
            |output: ModelOutput| turn_words::checked(output, self.reading(), &keys, &agents);
        let before_repair = || self.count_call();
        let check = Check {
            read: &read,
            problem: &|wrong| wrong.problem.clone(),
            before_repair: &before_repair,
        };
        self.gateway
            .model_checked(label, request, deadline, &check)
            .await
    }

    /// How a turn's answer is read now: exactly on the sim; on an
    /// endpoint leniently, a reply only through the contract while the
    /// run asks for it natively or by tool (the mode may have moved on
    /// during the call).
    fn reading(&self) -> Reading {
        self.gateway.reading().now()
    }

    /// Count a model call against the run's `max_llm_calls`, then its
    /// tokens and dollars, and into every team up to the run's; the stop
    /// when one is spent. Checked and counted in one step: members share
    /// the budget. The run's tokens and dollars come after 002's call
    /// budget, and a call they stop is not counted.
    fn count_call(&self) -> Result<(), StopReason> {
        let max = self.budget.max_llm_calls;
        let spent = self.gateway.spend_stop();
        let counted = self.llm_calls[0].fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| {
            (used < max && spent.is_none()).then_some(used + 1)
        });
        let before = match (counted, spent) {
            (Ok(before), _) => before,
            (Err(used), Some(reason)) if used < max => return Err(reason),
            (Err(_), _) => return Err(StopReason::MaxLlmCalls),
        };
        for team in &self.llm_calls[1..] {
            team.fetch_add(1, Ordering::AcqRel);
        }
        self.bus.publish(EventKind::BudgetConsumed {
            budget: BudgetKind::LlmCalls,
            used: before + 1,
            limit: max,
        });
        Ok(())
    }
}

pub(crate) fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// A team's event as the bus carries it.
fn team_event(event: TeamEvent) -> EventKind {
    EventKind::Pattern(PatternEvent::Team(event))
}
