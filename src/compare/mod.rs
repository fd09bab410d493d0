//! Two runs side by side: what each was and how it ended, their rounds,
//! tasks, chains or research steps aligned, every difference listed, and
//! the first event where they stopped doing the same thing. It reads
//! events only, so the headless front and the dashboard share it; it never
//! draws and never knows the dashboard.

mod alignment;
mod divergence;
mod facts;
pub(crate) mod markdown;
pub(crate) mod sections;
pub(crate) mod values;

pub(crate) use values::short;

pub(crate) use alignment::Aligned;
pub use alignment::{Alignment, CompareRules, RulesOf};
pub use divergence::Control;
pub(crate) use divergence::{Divergence, DivergentEvent};
pub(crate) use facts::{RunFacts, ToolCounts, union};

use crate::bus::{Event, EventKind, RunId};
use serde::Serialize;
use serde_json::Value;
use std::sync::Arc;

/// One of the two runs compared: a name to show it by (its recording, or
/// `run 3` in the dashboard) and its events, its start first.
#[derive(Clone, Copy, Debug)]
pub struct Side<'a> {
    pub(crate) label: &'a str,
    pub(crate) events: &'a [Arc<Event>],
}

/// Why two runs cannot be compared.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CompareError {
    #[error("{label}: no events yet")]
    NoEvents { label: String },
    #[error("{label}: the events do not start with the run's start (seq {seq})")]
    NoStart { label: String, seq: u64 },
}

/// Which of the two runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Which {
    A,
    B,
}

/// One thing that differs between the runs: what (a dotted path such as
/// `flags.legal_analyst` or `rounds.1.legal_analyst`) and its value in
/// each, `null` where a run has none.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Difference {
    pub what: String,
    pub(crate) a: Value,
    pub(crate) b: Value,
}

impl Difference {
    pub(crate) fn new(what: impl Into<String>, a: impl Serialize, b: impl Serialize) -> Self {
        Difference {
            what: what.into(),
            a: serde_json::to_value(a).unwrap_or(Value::Null),
            b: serde_json::to_value(b).unwrap_or(Value::Null),
        }
    }
}

/// Two runs compared. `conclave compare --headless` prints it as JSON.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Comparison {
    pub a: RunFacts,
    pub b: RunFacts,
    /// Same scenario and pattern: their steps are aligned and their events
    /// compared one by one. Otherwise only their summaries are.
    pub(crate) aligned: bool,
    /// Nothing differs but the runs' times.
    pub(crate) identical: bool,
    /// What the reader should know first (different scenarios, an edited
    /// scenario file, a run still going).
    pub(crate) notes: Vec<String>,
    /// Every difference: the runs' setup and outcome first, then their
    /// steps.
    pub differences: Vec<Difference>,
    /// The first event where the runs did something different; `null`
    /// when they did the same things in the same order.
    pub first_divergence: Option<Divergence>,
    /// How each run was paused, stepped and had its flags changed, when
    /// they were not alike: not divergences, listed apart.
    pub control: Control,
    /// The pattern's steps side by side (aligned runs only).
    pub alignment: Option<Alignment>,
}

impl<'a> Side<'a> {
    /// `events` of the run called `label`, refused unless they start with
    /// the run's start.
    pub fn new(label: &'a str, events: &'a [Arc<Event>]) -> Result<Side<'a>, CompareError> {
        match events.first().map(|e| (&e.kind, e.seq)) {
            None => Err(CompareError::NoEvents {
                label: label.to_string(),
            }),
            Some((EventKind::RunStarted(_), _)) => Ok(Side { label, events }),
            Some((_, seq)) => Err(CompareError::NoStart {
                label: label.to_string(),
                seq,
            }),
        }
    }
}

/// Compare run `a` with run `b`, their steps by their pattern's `rules`.
pub fn compare(a: Side, b: Side, rules: RulesOf) -> Comparison {
    let facts_a = RunFacts::of(a.label, a.events, rules);
    let facts_b = RunFacts::of(b.label, b.events, rules);
    let same_pattern = facts_a.pattern == facts_b.pattern;
    let aligned = same_pattern && facts_a.scenario == facts_b.scenario;
    let mut notes = Vec::new();
    if !same_pattern {
        notes.push(format!(
            "different patterns ({} and {}): compared at the summary level only",
            facts_a.pattern, facts_b.pattern
        ));
    } else if !aligned {
        notes.push(format!(
            "different scenarios ({} and {}): compared at the summary level only",
            facts_a.scenario, facts_b.scenario
        ));
    } else if !facts_a.same_scenario_file(&facts_b) {
        notes.push("the scenario changed between the two runs (same name, other content)".into());
    }
    for (which, facts) in [(Which::A, &facts_a), (Which::B, &facts_b)] {
        if !facts.finished {
            notes.push(format!(
                "{} has no finish: compared as far as it went",
                side_name(which)
            ));
        }
    }
    let mut differences = facts::differences(&facts_a, &facts_b);
    let rules = rules(facts_a.pattern);
    let alignment = aligned.then(|| rules.align(a.events, b.events));
    if let Some(alignment) = &alignment {
        differences.extend(alignment.differences());
    }
    let first_divergence = if aligned {
        divergence::first(a.events, b.events, rules)
    } else {
        None
    };
    let control = divergence::control(a.events, b.events);
    if !control.is_empty() && first_divergence.is_none() && differences.is_empty() {
        notes.push(
            "the runs differ only in how they were paused, stepped or had flags changed: listed under control"
                .into(),
        );
    }
    Comparison {
        // Wall time is no divergence: runs that differ in their times
        // alone are identical (the difference is still listed).
        identical: differences.iter().all(|d| d.what == facts::DURATION)
            && first_divergence.is_none(),
        a: facts_a,
        b: facts_b,
        aligned,
        notes,
        differences,
        first_divergence,
        control,
        alignment,
    }
}

/// "A" or "B", for sentences.
pub(crate) fn side_name(which: Which) -> &'static str {
    match which {
        Which::A => "A",
        Which::B => "B",
    }
}

/// A dashboard run's name in a comparison: its number and scenario.
pub(crate) fn run_label(run: RunId, scenario: &str) -> String {
    format!("run {run} ({scenario})")
}
