//! A pattern's part of a comparison: its steps of the two runs aligned, by
//! rules that live in the pattern's own folder (`compare` in each folder of
//! `src/patterns/`). The comparison knows them only through these traits,
//! so it stands below the patterns and never names one.

use super::Difference;
use super::sections::Section;
use super::values::Cell;
use crate::bus::figures::Figures;
use crate::bus::{Event, EventKind, RunSummary};
use crate::scenario::PatternKind;
use serde::{Serialize, Serializer};
use serde_json::{Map, Value};
use std::fmt;
use std::sync::Arc;

/// One pattern's steps of two runs, aligned: whatever steps the pattern
/// takes (rounds, tasks, turns, workflow steps), by its own rules.
pub(crate) trait Aligned: fmt::Debug + Send + Sync {
    /// What differs, step by step.
    fn differences(&self) -> Vec<Difference>;
    /// The steps side by side, as the sections a comparison shows.
    fn sections(&self) -> Vec<Section>;
    /// The alignment as the comparison's document holds it, under the
    /// name of what is aligned: `{"rounds": …}`, `{"tasks": …}`.
    fn to_json(&self) -> Value;
}

/// A pattern's rules for comparing two runs of one scenario.
pub trait CompareRules: Sync {
    /// The runs' steps aligned.
    fn align(&self, a: &[Arc<Event>], b: &[Arc<Event>]) -> Alignment;

    /// Leave out of an event's comparison what follows from the runs'
    /// setup, which the comparison's facts already hold (a round's
    /// roster). Nothing by default.
    fn leave_out(&self, _kind: &EventKind, _fields: &mut Map<String, Value>) {}

    /// The figures the pattern's runs report (its `figures.rs`): the
    /// values, lists and counts two runs' summaries are compared by.
    fn figures(&self) -> &'static Figures;

    /// What a finished run came to in the pattern's own words, toned (a
    /// decision, a health, the agent that answered); `None` when its
    /// summary says nothing of the kind, and the run reads as answered or
    /// not.
    fn came_to(&self, summary: &RunSummary) -> Option<Cell>;

    /// A finished run's stop in the words of the run's own result
    /// document: the stop reason as written, unless the pattern words it
    /// otherwise (a finished graph run is `completed`).
    fn stop_word(&self, reason: &crate::stop::StopReason) -> String {
        reason.to_string()
    }
}

/// Each pattern's rules, as the patterns register them (`compare_rules`
/// in the patterns' floor).
pub type RulesOf = fn(PatternKind) -> &'static dyn CompareRules;

/// The runs' pattern steps, aligned by the pattern's rules.
#[derive(Clone, Debug)]
pub struct Alignment(Arc<dyn Aligned>);

impl Alignment {
    pub(crate) fn new(aligned: impl Aligned + 'static) -> Alignment {
        Alignment(Arc::new(aligned))
    }

    pub fn differences(&self) -> Vec<Difference> {
        self.0.differences()
    }

    pub(crate) fn sections(&self) -> Vec<Section> {
        self.0.sections()
    }
}

impl PartialEq for Alignment {
    fn eq(&self, other: &Alignment) -> bool {
        self.0.to_json() == other.0.to_json()
    }
}

impl Serialize for Alignment {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.to_json().serialize(serializer)
    }
}
