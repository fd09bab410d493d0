//! The orchestrator (001): a planner proposes tasks for specialised
//! workers; the plan is checked against the declared workers; the tasks run
//! in parallel through the gateway, which times, retries and budgets each
//! call; a failed critical task stops the run, otherwise the results are
//! aggregated, rated and summed up in a final brief. Flags gate workers
//! live, from the next wave or retry.

mod aggregate;
pub(crate) mod checks;
pub(crate) mod compare;
pub(crate) mod describe;
mod dispatch;
pub(crate) mod events;
pub(crate) mod figures;
pub(crate) mod plan;
pub(crate) mod plan_schema;
pub(crate) mod result;
pub(crate) mod scenario;
pub(crate) mod sim;
pub(crate) mod stops;
pub(crate) mod trace;

use super::{RunContext, RunOutcome, Runner, answer_words};
use crate::bus::{EventKind, RunStatus, RunSummary};
use crate::control::SharedGate;
use crate::gateway::{CallError, Check, DispatchLimits, TimeoutFrom, ToolPolicy};
use crate::patterns::events::PatternEvent;
use crate::patterns::figures::{FAILED_TASKS, TASKS};
use crate::patterns::orchestrator::events::TaskEvent;
use crate::patterns::orchestrator::events::{PlannedTask, TaskStatus};
use crate::provider::prompts::{Prompt, compiled_in};
use crate::provider::{ModelOutput, ModelRequest};
use crate::pycompat::py_strip;
use crate::scenario::Scenario;
use crate::stop::StopReason;
use dispatch::Dispatcher;
use plan::{PLAN_KEYS, read_plan};
use result::{OrchestratorResult, Phase, TaskRecord};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use stops::{PlanError, TaskStop};

/// 001's `Budget` defaults.
pub(crate) const DEFAULT_MAX_TASKS: u32 = 4;
pub(crate) const DEFAULT_MAX_PARALLEL: u32 = 3;
pub(crate) const DEFAULT_MAX_RETRIES_PER_TASK: u32 = 1;
pub(crate) const DEFAULT_MAX_DISPATCHES: u32 = 8;
pub(crate) const DEFAULT_TASK_TIMEOUT_SECONDS: f64 = 2.0;
pub(crate) const DEFAULT_MAX_SECONDS: f64 = 25.0;

/// The system prompts of the planner and of the final brief.
const PLAN_PROMPT: Prompt = compiled_in!("orchestrator_plan.md", json);
const BRIEF_PROMPT: Prompt = compiled_in!("orchestrator_brief.md", text);

/// The orchestrator: its runs dispatch tasks in waves.
pub(crate) const RUNNER: Runner = Runner {
    run: |ctx| Box::pin(run(ctx)),
    default_max_seconds: DEFAULT_MAX_SECONDS,
    compare: &compare::Rules,
    explain_stop: stops::explain,
    asking: None,
};

/// The limits of one orchestrator run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Limits {
    pub(crate) max_tasks: u32,
    pub(crate) max_parallel: u32,
    pub(crate) max_retries_per_task: u32,
    pub(crate) max_dispatches: u32,
    pub(crate) task_timeout: Duration,
    pub(crate) max_seconds: Duration,
}

impl Limits {
    pub(crate) fn of(scenario: &Scenario) -> Self {
        let budget = scenario.budget.clone().unwrap_or_default();
        Limits {
            max_tasks: budget.max_tasks.unwrap_or(DEFAULT_MAX_TASKS),
            max_parallel: budget.max_parallel.unwrap_or(DEFAULT_MAX_PARALLEL).max(1),
            max_retries_per_task: budget
                .max_retries_per_task
                .unwrap_or(DEFAULT_MAX_RETRIES_PER_TASK),
            max_dispatches: budget.max_dispatches.unwrap_or(DEFAULT_MAX_DISPATCHES),
            task_timeout: seconds(
                budget
                    .task_timeout_seconds
                    .unwrap_or(DEFAULT_TASK_TIMEOUT_SECONDS),
            ),
            max_seconds: seconds(budget.max_seconds.unwrap_or(DEFAULT_MAX_SECONDS)),
        }
    }
}

/// Seconds as a duration, to the nearest nanosecond (so 0.7 s is exactly
/// 700 ms, as the references' float seconds mean it).
/// Held to `[0, duration::MAX]`, so that a value that slipped past
/// validation cannot overflow a deadline.
fn seconds(s: f64) -> Duration {
    crate::duration::clamp_seconds(s)
}

pub(crate) async fn run(mut ctx: RunContext) -> RunOutcome {
    let mut result = orchestrate(&mut ctx).await;
    result.mark_degraded(ctx.gateway.degraded());
    let mut summary = RunSummary::default();
    summary.partial = result.partial.unwrap_or(false);
    summary.degraded = result.degraded.clone().unwrap_or_default();
    summary.put(figures::HEALTH, result.health);
    summary.set_answer(result.answer.clone());
    let failed = result
        .history
        .iter()
        .filter(|t| t.status == TaskStatus::Failed)
        .count();
    summary.counts.set(figures::DISPATCHES, result.dispatches);
    summary.counts.set(TASKS, result.history.len() as u64);
    summary.counts.set(FAILED_TASKS, failed as u64);
    let outcome = RunOutcome {
        error: None,
        status: result.status,
        stop_reason: result.stop_reason.clone(),
        phase: result.phase.map(|p| p.as_str().to_string()),
        result: super::document(&result, &ctx.gateway),
        summary,
    };
    if result.history.len() >= MANY_TASKS {
        super::drop_aside(result);
    }
    outcome
}

/// From this many tasks, a run's records are freed aside.
const MANY_TASKS: usize = 10_000;

/// Plan → dispatch → aggregate → finalize, stopping where 001 stops.
async fn orchestrate(ctx: &mut RunContext) -> OrchestratorResult {
    let limits = Limits::of(&ctx.scenario);
    let tasks = match plan_tasks(ctx, &limits).await {
        Ok(tasks) => tasks,
        Err(stopped) => return stopped,
    };
    let (records, dispatches) = match dispatch_tasks(ctx, &limits, &tasks).await {
        Ok(dispatched) => dispatched,
        Err(stopped) => return stopped,
    };
    finalize(ctx, &limits, tasks, records, dispatches).await
}

/// 001's time check, on the run clock.
fn time_is_up(ctx: &RunContext, limits: &Limits) -> bool {
    ctx.bus.clock().elapsed() > limits.max_seconds
}

/// Ask the planner for tasks and check them against the declared workers;
/// the accepted plan is announced, a rejected one stops the run.
async fn plan_tasks(
    ctx: &RunContext,
    limits: &Limits,
) -> Result<Arc<[PlannedTask]>, OrchestratorResult> {
    let scenario = &ctx.scenario;
    // The plan is asked for once a run: so is its contract built.
    let workers = scenario.workers.keys().map(String::as_str);
    let contract = Arc::new(plan_schema::plan_contract(workers, limits.max_tasks));
    let payload = plan_payload(scenario, &ctx.goal, limits.max_tasks);
    let request = ModelRequest::new(sim::plan(), &PLAN_PROMPT, payload).keeping(contract);
    let declared = |worker: &str| scenario.workers.contains_key(worker);
    // The plan is read once, by the gateway's check: the result keeps the
    // normalised plan; the raw one can be big, and its args are moved
    // into the tasks.
    let read = |output: ModelOutput| read_plan(output, declared, limits.max_tasks);
    let problem = |(error, raw): &(PlanError, Value)| {
        let reason = TaskStop::InvalidPlan(error.clone());
        match error {
            PlanError::Args => answer_words::args_problem(
                &reason,
                raw,
                ("tasks", "task"),
                "{\"report_date\": \"2026-02-26\", \"region\": \"US\"}",
            ),
            PlanError::TaskId => answer_words::id_problem(&reason, raw, ("tasks", "task"), "t1"),
            _ => answer_words::problem(&reason, raw, &PLAN_KEYS),
        }
    };
    let check = Check {
        read: &read,
        problem: &problem,
        before_repair: &|| Ok(()),
    };
    let (answer, _) = ctx
        .gateway
        .model_checked("plan".into(), request, None, &check)
        .await;
    let read = match answer.unwrap_or(Err(CallError::Timeout)) {
        Ok(read) => read,
        Err(error) => return Err(OrchestratorResult::stopped(call_stop(&error), Phase::Plan)),
    };
    let tasks = match read {
        Ok(tasks) => Arc::<[PlannedTask]>::from(tasks),
        Err((error, raw_plan)) => {
            let reason = StopReason::from(TaskStop::InvalidPlan(error));
            ctx.bus.publish(EventKind::Pattern(PatternEvent::Tasks(
                TaskEvent::PlanRejected {
                    reason: reason.clone(),
                    raw: raw_plan.clone(),
                },
            )));
            let mut result = OrchestratorResult::stopped(reason, Phase::Plan);
            result.raw_plan = Some(raw_plan);
            return Err(result);
        }
    };
    ctx.bus.publish(EventKind::Pattern(PatternEvent::Tasks(
        TaskEvent::PlanAccepted {
            tasks: Arc::clone(&tasks),
        },
    )));
    Ok(tasks)
}

/// Run the tasks in parallel through the gateway: every record, and the
/// attempts started. A failed critical task stops the run here.
async fn dispatch_tasks(
    ctx: &mut RunContext,
    limits: &Limits,
    tasks: &Arc<[PlannedTask]>,
) -> Result<(Vec<TaskRecord>, u64), OrchestratorResult> {
    let stopped_in_dispatch = |reason, dispatches| {
        let mut result = OrchestratorResult::stopped(reason, Phase::Dispatch);
        result.plan = Some(Arc::clone(tasks));
        result.dispatches = dispatches;
        result
    };
    if time_is_up(ctx, limits) {
        return Err(stopped_in_dispatch(StopReason::MaxSeconds, 0));
    }
    // The plan's tokens may have spent the run's budget: stop before the
    // first wave, after 001's own time check.
    if let Some(reason) = ctx.gateway.spend_stop() {
        return Err(stopped_in_dispatch(reason, 0));
    }

    let dispatch_limits = DispatchLimits::new(u64::from(limits.max_dispatches), limits.max_seconds);
    let policy = task_policy(&ctx.scenario, limits);
    let gate = SharedGate::new(&mut ctx.gate);
    let dispatcher = Dispatcher {
        gateway: &ctx.gateway,
        bus: &ctx.bus,
        gate: &gate,
        limits: &dispatch_limits,
        policy: &policy,
        max_parallel: limits.max_parallel as usize,
    };
    let dispatched = dispatcher.run(tasks).await;
    let dispatches = dispatch_limits.used();
    let records = match dispatched {
        Ok(records) => records,
        Err(stop) => {
            let mut result = stopped_in_dispatch(stop.reason, dispatches);
            result.history = stop.finished;
            return Err(result);
        }
    };

    let failed_critical: Vec<_> = records
        .iter()
        .filter(|r| r.status == TaskStatus::Failed && r.critical)
        .cloned()
        .collect();
    if !failed_critical.is_empty() {
        let mut result = stopped_in_dispatch(TaskStop::CriticalTaskFailed.into(), dispatches);
        result.failed_critical = Some(failed_critical);
        result.history = records;
        return Err(result);
    }
    Ok((records, dispatches))
}

/// How each task's attempts are retried and timed; the timeout is the
/// scenario's when its budget sets one.
fn task_policy(scenario: &Scenario, limits: &Limits) -> ToolPolicy {
    ToolPolicy {
        max_attempts: limits.max_retries_per_task.saturating_add(1),
        attempt_timeout: limits.task_timeout,
        timeout_from: if scenario
            .budget
            .as_ref()
            .is_some_and(|b| b.task_timeout_seconds.is_some())
        {
            TimeoutFrom::Scenario
        } else {
            TimeoutFrom::PatternDefault
        },
    }
}

/// Aggregate and rate the records, then ask for the final brief: the
/// run's answer.
async fn finalize(
    ctx: &RunContext,
    limits: &Limits,
    tasks: Arc<[PlannedTask]>,
    records: Vec<TaskRecord>,
    dispatches: u64,
) -> OrchestratorResult {
    let (health, aggregate) = aggregate::aggregate(&ctx.scenario, &records);
    ctx.bus.publish(EventKind::Pattern(PatternEvent::Tasks(
        TaskEvent::Aggregated {
            health,
            aggregate: aggregate.clone(),
        },
    )));
    let stopped_in_finalize = |reason| {
        let mut result = OrchestratorResult::stopped(reason, Phase::Finalize);
        result.health = Some(health);
        result.dispatches = dispatches;
        result.aggregate = Some(aggregate.clone());
        result.history = records.clone();
        result
    };
    if time_is_up(ctx, limits) {
        return stopped_in_finalize(StopReason::MaxSeconds);
    }
    let request = ModelRequest::new(
        sim::final_brief(),
        &BRIEF_PROMPT,
        json!({"goal": ctx.goal, "aggregate": aggregate}),
    );
    let text = match ctx.gateway.model("final brief".into(), request).await {
        Ok(output) => output.into_text(),
        Err(error) => return stopped_in_finalize(call_stop(&error)),
    };
    let answer = py_strip(&text);
    if answer.is_empty() {
        return stopped_in_finalize(StopReason::LlmEmpty);
    }
    OrchestratorResult {
        status: RunStatus::Ok,
        stop_reason: StopReason::Success,
        phase: None,
        answer: Some(answer.to_string()),
        raw_plan: None,
        plan: Some(tasks),
        failed_critical: None,
        aggregate: Some(aggregate),
        history: records,
        partial: None,
        degraded: None,
        health: Some(health),
        dispatches,
    }
}

/// What the planner is told: the goal, the report's date and region, the
/// task limit and the worker catalog (001's `create_plan` payload).
fn plan_payload(scenario: &Scenario, goal: &str, max_tasks: u32) -> Value {
    let catalog: Vec<Value> = scenario
        .workers
        .iter()
        .map(|(name, spec)| {
            json!({
                "name": name,
                "description": spec.description.clone().unwrap_or_default(),
                "args": {"report_date": "YYYY-MM-DD", "region": "US|EU|..."},
            })
        })
        .collect();
    json!({
        "goal": goal,
        "report_date": scenario.fact("report_date"),
        "region": scenario.fact("region"),
        "max_tasks": max_tasks,
        "available_workers": catalog,
    })
}

/// 001 stops a model call that failed with `llm_timeout`, whatever the
/// transport error. A call the gateway failed fast (only with a
/// `resilience` section) stops with the gateway's reason.
fn call_stop(error: &CallError) -> StopReason {
    error.stop_reason()
}
