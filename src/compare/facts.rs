//! What one run was and how it ended, folded from its events: its setup
//! (scenario, seed, goal, flags at launch and flags turned live), its
//! outcome (status, stop reason, the typed summary), and what it asked of
//! each tool. Every pattern is compared on these.

use super::values::Cell;
use super::{Difference, RulesOf};
use crate::bus::cassette::ForkedFrom;
use crate::bus::figures::{self, ANSWER, FAILED_TASKS, Figures, Shape, TASKS};
use crate::bus::{CallOutcome, Event, EventKind, RunStatus, RunSummary, TokenUsage};
use crate::scenario::{PatternKind, Scenario};
use indexmap::IndexMap;
use serde::Serialize;
use serde_json::Value;
use std::sync::Arc;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunFacts {
    /// What the run is called here: its recording, or its number.
    pub recording: String,
    pub(crate) scenario: String,
    pub(crate) pattern: PatternKind,
    pub(crate) seed: u64,
    /// Watched by `conclave watch`: another framework's run, with neither
    /// Conclave's pattern nor a seed.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) watched: bool,
    pub(crate) goal: String,
    /// A fork's parent: its recording, run and the gate it went live at.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) forked_from: Option<ForkedFrom>,
    /// Every flag as the run started.
    pub(crate) flags: IndexMap<String, bool>,
    /// Flags turned while the run went on, in order.
    pub(crate) flag_changes: Vec<FlagChange>,
    /// Events read.
    pub(crate) events: usize,
    /// Whether the run's finish is among them.
    pub(crate) finished: bool,
    pub(crate) status: Option<RunStatus>,
    /// The stop reason as the run's own result writes it (a graph's
    /// finished run `completed`, not `success`).
    pub(crate) stop_reason: Option<String>,
    /// The stop as the run's events carry it, worded by the pattern's
    /// rules into `stop_reason` once the run's pattern is known.
    #[serde(skip)]
    stop: Option<crate::stop::StopReason>,
    pub(crate) phase: Option<String>,
    /// The run's result in types (decision, health, answer, final agent,
    /// partial and degraded, counts), once it finished.
    pub(crate) summary: Option<RunSummary>,
    /// The run finished with work undone (safe mode skipped calls, or
    /// tasks failed), as the tab, the picker and a sweep call it partial.
    pub(crate) partial: bool,
    /// The run clock at its last event.
    pub(crate) duration_ms: u64,
    /// Tokens the model calls took, as the endpoint counted them.
    pub(crate) tokens: TokenUsage,
    /// Per tool (the model is one), in the order first called.
    pub(crate) tools: IndexMap<String, ToolCounts>,
    #[serde(skip)]
    scenario_file: Option<Arc<Scenario>>,
    /// What the run's pattern declares its runs report, by its rules.
    #[serde(skip)]
    figures: &'static Figures,
    /// What the run came to, in its pattern's words, once it finished
    /// with a summary that says.
    #[serde(skip)]
    pub(crate) came_to: Option<Cell>,
}

/// A flag turned during the run, at event `seq`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct FlagChange {
    pub(crate) seq: u64,
    pub(crate) name: String,
    pub(crate) on: bool,
}

/// What the gateway did for one tool.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub(crate) struct ToolCounts {
    /// Attempts that reached the tool.
    pub(crate) calls: u64,
    /// Attempts that failed (timeout, error, cancelled).
    pub(crate) failures: u64,
    /// Attempts the gateway refused without calling (open breaker, full
    /// bulkhead, spent budget).
    pub(crate) rejected: u64,
    /// Retries the gateway scheduled.
    pub(crate) retries: u64,
}

impl RunFacts {
    /// The facts of the run called `label`, folded from its `events`;
    /// its pattern's `rules` say what its summary holds.
    pub(super) fn of(label: &str, events: &[Arc<Event>], rules: RulesOf) -> RunFacts {
        let mut facts = RunFacts {
            recording: label.to_string(),
            scenario: String::new(),
            // Read from the run's start, which every side begins with.
            pattern: Default::default(),
            seed: 0,
            watched: false,
            goal: String::new(),
            forked_from: None,
            flags: IndexMap::new(),
            flag_changes: Vec::new(),
            events: events.len(),
            finished: false,
            status: None,
            stop_reason: None,
            stop: None,
            phase: None,
            summary: None,
            partial: false,
            duration_ms: 0,
            tokens: TokenUsage::default(),
            tools: IndexMap::new(),
            scenario_file: None,
            figures: &Figures::NONE,
            came_to: None,
        };
        for event in events {
            facts.apply(event);
        }
        let rules = rules(facts.pattern);
        facts.stop_reason = facts.stop.as_ref().map(|reason| rules.stop_word(reason));
        facts.figures = rules.figures();
        facts.came_to = facts.summary.as_ref().and_then(|s| rules.came_to(s));
        facts
    }

    fn apply(&mut self, event: &Event) {
        self.duration_ms = self.duration_ms.max(event.t_ms);
        match &event.kind {
            EventKind::RunStarted(started) => {
                self.scenario = started.scenario.name.clone();
                self.pattern = started.pattern;
                self.seed = started.seed;
                self.watched = started.is_watched();
                self.goal = started.goal.clone();
                self.forked_from = started.forked_from.clone();
                self.flags = started
                    .flags
                    .iter()
                    .map(|f| (f.name.clone(), f.on))
                    .collect();
                self.scenario_file = Some(Arc::clone(&started.scenario));
            }
            EventKind::FlagChanged { name, on, .. } => self.flag_changes.push(FlagChange {
                seq: event.seq,
                name: name.clone(),
                on: *on,
            }),
            EventKind::CallStarted { tool, .. } => self.tool(tool).calls += 1,
            EventKind::CallFinished {
                tool,
                outcome,
                usage,
                ..
            } => {
                if *outcome != CallOutcome::Ok {
                    self.tool(tool).failures += 1;
                }
                if let Some(usage) = usage {
                    // Held at the largest count, as the run's usage is.
                    self.tokens.input = self.tokens.input.saturating_add(usage.input);
                    self.tokens.output = self.tokens.output.saturating_add(usage.output);
                    self.tokens.cached = self.tokens.cached.saturating_add(usage.cached);
                    self.tokens.reasoning = self.tokens.reasoning.saturating_add(usage.reasoning);
                    self.tokens.estimated |= usage.estimated;
                    if let Some(cost) = usage.cost_usd {
                        let sum = self.tokens.cost_usd.unwrap_or(0.0) + cost;
                        self.tokens.cost_usd = Some(crate::pricing::round_dollars(sum));
                    }
                }
            }
            EventKind::CallRejected { tool, .. } => self.tool(tool).rejected += 1,
            EventKind::RetryScheduled { tool, .. } => self.tool(tool).retries += 1,
            EventKind::RunFinished {
                status,
                stop_reason,
                phase,
                summary,
                ..
            } => {
                self.finished = true;
                self.status = Some(*status);
                self.stop = Some(stop_reason.clone());
                self.phase = phase.clone();
                self.summary = Some(summary.as_ref().clone());
                self.partial = *status == RunStatus::Ok && summary.falls_short();
            }
            _ => {}
        }
    }

    fn tool(&mut self, name: &str) -> &mut ToolCounts {
        self.tools.entry(name.to_string()).or_default()
    }

    /// Whether both runs were launched from the same scenario content.
    pub(super) fn same_scenario_file(&self, other: &RunFacts) -> bool {
        self.scenario_file == other.scenario_file
    }
}

/// Every difference between two runs' facts, setup first.
pub(super) fn differences(a: &RunFacts, b: &RunFacts) -> Vec<Difference> {
    let mut out = Differences::default();
    out.field("scenario", &a.scenario, &b.scenario);
    out.field("pattern", &a.pattern, &b.pattern);
    out.field("seed", &a.seed, &b.seed);
    out.field("goal", &a.goal, &b.goal);
    for name in union(a.flags.keys(), b.flags.keys()) {
        out.field(
            &format!("flags.{name}"),
            &a.flags.get(name),
            &b.flags.get(name),
        );
    }
    out.field("flag_changes", &a.flag_changes, &b.flag_changes);
    out.field("finished", &a.finished, &b.finished);
    out.field("status", &a.status, &b.status);
    out.field("stop_reason", &a.stop_reason, &b.stop_reason);
    out.field("phase", &a.phase, &b.phase);
    let sa = a.summary.clone().unwrap_or_default();
    let sb = b.summary.clone().unwrap_or_default();
    summary_differences(&mut out, declared(a, b), (&sa, &sb));
    out.field("partial", &a.partial, &b.partial);
    out.field("degraded", &sa.degraded, &sb.degraded);
    summary_lists(&mut out, declared(a, b), (&sa, &sb));
    for name in compared_counts(a, b) {
        out.field(
            &format!("counts.{name}"),
            &sa.counts.get(name),
            &sb.counts.get(name),
        );
    }
    out.field("answer", &sa.answer(), &sb.answer());
    out.field("tokens.input", &a.tokens.input, &b.tokens.input);
    out.field("tokens.output", &a.tokens.output, &b.tokens.output);
    out.field("tokens.cached", &a.tokens.cached, &b.tokens.cached);
    out.field("tokens.reasoning", &a.tokens.reasoning, &b.tokens.reasoning);
    out.field("tokens.cost_usd", &a.tokens.cost_usd, &b.tokens.cost_usd);
    for tool in union(a.tools.keys(), b.tools.keys()) {
        let ta = a.tools.get(tool).copied().unwrap_or_default();
        let tb = b.tools.get(tool).copied().unwrap_or_default();
        for (name, x, y) in [
            ("calls", ta.calls, tb.calls),
            ("failures", ta.failures, tb.failures),
            ("rejected", ta.rejected, tb.rejected),
            ("retries", ta.retries, tb.retries),
        ] {
            out.field(&format!("tools.{tool}.{name}"), &x, &y);
        }
    }
    out.field(DURATION, &a.duration_ms, &b.duration_ms);
    out.0
}

/// The runs' values of one value each (a decision, a health, an agent),
/// as their patterns declare them: a run without one has null.
fn summary_differences(
    out: &mut Differences,
    declared: Vec<&'static Figures>,
    (a, b): (&RunSummary, &RunSummary),
) {
    let values = figures::each_in(declared, |f| f.summary, |v| v.name);
    for value in values {
        if value.shape == Shape::Value && value.name != ANSWER.name {
            out.field(value.name, &a.value(value.name), &b.value(value.name));
        }
    }
}

/// The runs' lists (the notes cited), as their patterns declare them: a
/// run without one has an empty list.
fn summary_lists(
    out: &mut Differences,
    declared: Vec<&'static Figures>,
    (a, b): (&RunSummary, &RunSummary),
) {
    let values = figures::each_in(declared, |f| f.summary, |v| v.name);
    let list = |s: &RunSummary, name: &str| s.value(name).cloned().unwrap_or(Value::Array(vec![]));
    for value in values {
        if value.shape == Shape::List {
            out.field(value.name, &list(a, value.name), &list(b, value.name));
        }
    }
}

/// The counts the runs' patterns keep, compared one by one: those of
/// tasks show in the result's shortfall instead.
pub(crate) fn compared_counts(a: &RunFacts, b: &RunFacts) -> Vec<&'static str> {
    figures::each_in(declared(a, b), |f| f.counts, |c| c.name)
        .into_iter()
        .map(|c| c.name)
        .filter(|name| ![TASKS, FAILED_TASKS].contains(name))
        .collect()
}

/// The figures of the two runs' patterns, each pattern once, in the order
/// of the pattern kinds (the format's), whichever run is which.
fn declared(a: &RunFacts, b: &RunFacts) -> Vec<&'static Figures> {
    let mut both = vec![(a.pattern, a.figures), (b.pattern, b.figures)];
    both.sort_by_key(|(kind, _)| kind.place());
    both.dedup_by_key(|(kind, _)| *kind);
    both.into_iter().map(|(_, figures)| figures).collect()
}

/// The difference in how long the runs took, which alone leaves them
/// identical.
pub(crate) const DURATION: &str = "duration_ms";

/// Differences gathered field by field.
#[derive(Default)]
struct Differences(Vec<Difference>);

impl Differences {
    fn field<T: Serialize + PartialEq>(&mut self, what: &str, a: &T, b: &T) {
        if a != b {
            self.0.push(Difference::new(what, a, b));
        }
    }
}

/// The keys of two maps, `a`'s in order then `b`'s others in order.
pub(crate) fn union<'k>(
    a: impl Iterator<Item = &'k String>,
    b: impl Iterator<Item = &'k String>,
) -> Vec<&'k String> {
    let mut keys: Vec<&String> = a.collect();
    for key in b {
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    keys
}
