//! Pattern runners: each decides *what* a run does next, calls models and
//! tools only through the gateway, stops at the control gates, publishes its
//! steps on the bus and returns its reference's result document.

mod answer_words;
mod asking;
pub(crate) mod collaboration;
#[cfg(test)]
pub(crate) mod contract_checks;
pub(crate) mod coordinator;
pub(crate) mod declared;
pub mod events;
pub(crate) mod figures;
pub(crate) mod graph;
pub(crate) mod in_flight;
pub(crate) mod orchestrator;
mod registry;
pub(crate) mod research;
pub(crate) mod swarm;
pub(crate) mod team;

pub(crate) use asking::check_given;
pub(crate) use asking::questions;
pub use asking::{GivenAnswerError, question_of};

#[cfg(test)]
mod hostile_output;
#[cfg(test)]
mod one_parse_tests;
#[cfg(test)]
pub(crate) mod parses;
#[cfg(test)]
pub(crate) mod stops_tests;
#[cfg(test)]
pub(crate) mod test_endpoint;

use crate::bus::ResultDoc;
use crate::bus::{Bus, EventKind, RunStatus, RunSummary};
use crate::control::Gate;
use crate::gateway::{Gateway, Usage};
use crate::scenario::{PatternKind, Scenario};
use crate::stop::{StopFacts, StopReason};
use crate::telemetry::{Shapes, SpanNo, TraceSpans};
use collaboration::trace::RoundTableSpans;
use events::PatternEvent;
use graph::trace::GraphSpans;
use orchestrator::trace::OrchestrationSpans;
use research::trace::ResearchSpans;
use serde::Serialize;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use team::spans::TeamSpans;

/// Everything a runner may use.
pub(crate) struct RunContext {
    pub(crate) scenario: Arc<Scenario>,
    pub(crate) goal: String,
    pub(crate) bus: Bus,
    pub(crate) gate: Gate,
    pub(crate) gateway: Arc<Gateway>,
    /// The run's seed, after `--seed`.
    pub(crate) seed: u64,
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq)]
pub struct RunOutcome {
    pub status: RunStatus,
    pub stop_reason: StopReason,
    pub(crate) phase: Option<String>,
    /// The result document `run --headless` prints, shared with the
    /// run's finish event.
    pub result: Arc<crate::bus::ResultDoc>,
    /// The result in types, as the runner knew it: what viewers show.
    pub(crate) summary: RunSummary,
    /// What the model call the run stopped on said went wrong (a refused
    /// key, an endpoint down), in words without the key.
    pub error: Option<String>,
}

/// A pattern as the engine sees it: how its runs go, and the defaults and
/// rules that are its own.
pub(crate) struct Runner {
    /// One run, from its start to its outcome.
    pub(crate) run: fn(RunContext) -> RunFuture,
    /// The run's time budget when the scenario sets no `max_seconds`.
    pub(crate) default_max_seconds: f64,
    /// How two of the pattern's runs are compared.
    pub(crate) compare: &'static dyn crate::compare::CompareRules,
    /// The pattern's words for its own stop reasons (its `stops.rs`), and
    /// for a shared one it words its own way; `None` for the rest.
    pub(crate) explain_stop: fn(&StopReason, &StopFacts) -> Option<String>,
    /// How the pattern's runs ask a person a question at a gate; `None`
    /// when they never do.
    pub(crate) asking: Option<&'static asking::Asking>,
}

/// A run under way, boxed so that every pattern's runs are one type.
pub(crate) type RunFuture = Pin<Box<dyn Future<Output = RunOutcome> + Send>>;

/// The runner of `pattern`: the one place the engine looks at which
/// pattern a run is; adding a pattern is a folder and a line here.
pub(crate) fn runner(pattern: PatternKind) -> &'static Runner {
    match pattern {
        PatternKind::Collaboration => &collaboration::RUNNER,
        PatternKind::Orchestrator => &orchestrator::RUNNER,
        PatternKind::Swarm => &swarm::RUNNER,
        PatternKind::Coordinator => &coordinator::RUNNER,
        PatternKind::Research => &research::RUNNER,
        PatternKind::Graph => &graph::RUNNER,
    }
}

/// Each pattern's rules for comparing two of its runs.
pub fn compare_rules(pattern: PatternKind) -> &'static dyn crate::compare::CompareRules {
    runner(pattern).compare
}

/// A run of `pattern`'s stop in words an operator reads: the pattern's
/// own sentence when the reason is one of its own (or one it words its own
/// way), the shared one otherwise. How the dashboard and the headless
/// output explain a stop without knowing any pattern's reasons.
pub(crate) fn explain(pattern: PatternKind, reason: &StopReason, facts: &StopFacts) -> String {
    (runner(pattern).explain_stop)(reason, facts).unwrap_or_else(|| reason.explain(facts))
}

/// A run of `pattern`'s stop reason as its result document writes it: a
/// graph's run that reached its end says `completed`; every other reason
/// (and every other pattern's) is its name. What `compare` shows, so that
/// a run reads the same there as in its own result.
pub(crate) fn stop_word(pattern: PatternKind, reason: &StopReason) -> String {
    match (pattern, reason) {
        (PatternKind::Graph, StopReason::Success) => "completed".to_string(),
        _ => reason.to_string(),
    }
}

pub(crate) async fn run(ctx: RunContext) -> RunOutcome {
    (runner(ctx.scenario.pattern).run)(ctx).await
}

/// What each pattern's events make of a run's trace, for the exporter.
pub fn trace_shapes() -> crate::telemetry::TraceShapes {
    crate::telemetry::TraceShapes::new(PatternSpans::for_run)
}

// Every pattern's part of a run's trace, as the exporter asks for it: each
// group of events goes to its pattern's spans, and a call belongs to the
// innermost pattern span that holds it. The swarm and the coordinator
// share the team's.

/// One run's pattern spans.
#[derive(Debug, Default)]
struct PatternSpans {
    round_table: RoundTableSpans,
    orchestration: OrchestrationSpans,
    team: TeamSpans,
    research: ResearchSpans,
    graph: GraphSpans,
}

impl PatternSpans {
    fn for_run() -> Box<dyn Shapes> {
        Box::<PatternSpans>::default()
    }
}

impl Shapes for PatternSpans {
    fn apply(&mut self, trace: &mut TraceSpans<'_>, kind: &EventKind, t: u64) {
        let EventKind::Pattern(event) = kind else {
            return;
        };
        match event {
            PatternEvent::Round(event) => self.round_table.apply(trace, event, t),
            PatternEvent::Tasks(event) => self.orchestration.apply(trace, event, t),
            PatternEvent::Team(event) => self.team.apply(trace, event, t),
            PatternEvent::Research(event) => self.research.apply(trace, event, t),
            PatternEvent::Graph(event) => self.graph.apply(trace, event, t, &mut self.team),
        }
    }

    /// A model call belongs to its agent's contribution, the turn that
    /// made it, the planner or the research step, in that order.
    fn model_parent(
        &mut self,
        trace: &mut TraceSpans<'_>,
        agent: Option<&str>,
        label: &str,
        t: u64,
    ) -> Option<SpanNo> {
        self.round_table
            .model_parent(agent)
            .or_else(|| self.team.call_parent(label))
            .or_else(|| self.orchestration.model_parent(trace, label, t))
            .or_else(|| self.research.step())
            .or_else(|| self.graph.call_parent(label))
    }

    /// A tool call belongs to its task's wave, the turn that asked for it
    /// or the research step, in that order.
    fn tool_parent(&self, task: &str) -> Option<SpanNo> {
        self.orchestration
            .tool_parent(task)
            .or_else(|| self.team.call_parent(task))
            .or_else(|| self.research.step())
            .or_else(|| self.graph.call_parent(task))
    }

    fn forget(&mut self, no: SpanNo) {
        self.round_table.forget(no);
        self.orchestration.forget(no);
        self.team.forget(no);
        self.research.forget(no);
        self.graph.forget(no);
    }
}

/// The result document of `result`, the run's `usage` last: every
/// pattern's result carries what its model calls used, beside the
/// reference's own fields. Called when the pattern is done, so the usage
/// counts every call it made.
pub(crate) fn document<T: Serialize>(result: &T, gateway: &Gateway) -> Arc<ResultDoc> {
    #[derive(Serialize)]
    struct WithUsage<'a, T> {
        #[serde(flatten)]
        result: &'a T,
        usage: Usage,
    }
    let usage = gateway.usage();
    Arc::new(ResultDoc::of(&WithUsage { result, usage }))
}

/// Free `value` on a thread of its own. A 100,000-task run's records take
/// tens of milliseconds to free, which the run's end need not wait for.
/// Where no thread can be had, the value is freed here. Not tokio's
/// blocking pool: a runtime waits for its blocking tasks when it is
/// dropped, so `run --headless` would wait for the freeing at its exit.
pub(crate) fn drop_aside<T: Send + 'static>(value: T) {
    let _ = std::thread::Builder::new()
        .name("conclave-free".into())
        .spawn(move || drop(value));
}
