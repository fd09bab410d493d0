//! A pattern's share of the run state, whichever the pattern: its unit's
//! fold behind one type the reducer holds, and its pane's selection behind
//! one type the view state holds. Pure: nothing here draws or reads a
//! clock.

use crate::bus::EventKind;
use crate::tui::state::outcome::Outcome;
use std::any::Any;
use std::fmt::Debug;

/// A pattern's fold over its own events: `fold = events.fold(apply)`, the
/// same for a live run and its replay.
pub trait Fold: Any + Clone + Debug + Default + PartialEq + Send + Sync {
    /// Fold one event at run time `t_ms`; another pattern's are ignored.
    fn apply(&mut self, kind: &EventKind, t_ms: u64);
    /// The run ended: what was in flight will not finish.
    fn close(&mut self, outcome: &Outcome);
}

/// The fold of a run's pattern; empty until the run's start seats it.
#[derive(Default)]
pub struct PatternFold(Option<Box<dyn AnyFold>>);

impl PatternFold {
    pub(crate) fn new<F: Fold>(fold: F) -> Self {
        PatternFold(Some(Box::new(fold)))
    }

    pub(crate) fn apply(&mut self, kind: &EventKind, t_ms: u64) {
        if let Some(fold) = &mut self.0 {
            fold.apply(kind, t_ms);
        }
    }

    pub(crate) fn close(&mut self, outcome: &Outcome) {
        if let Some(fold) = &mut self.0 {
            fold.close(outcome);
        }
    }

    /// The fold as its unit's type; `None` before the run's start or for
    /// another pattern's.
    pub fn get<F: Fold>(&self) -> Option<&F> {
        self.0.as_ref()?.as_any().downcast_ref()
    }
}

impl Clone for PatternFold {
    fn clone(&self) -> Self {
        PatternFold(self.0.as_ref().map(|fold| fold.clone_box()))
    }
}

impl PartialEq for PatternFold {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (None, None) => true,
            (Some(a), Some(b)) => a.equals(b.as_ref()),
            _ => false,
        }
    }
}

impl Debug for PatternFold {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Some(fold) => fold.fmt(f),
            None => f.write_str("PatternFold(unseated)"),
        }
    }
}

/// `Fold` behind a pointer.
trait AnyFold: Debug + Send + Sync {
    fn apply(&mut self, kind: &EventKind, t_ms: u64);
    fn close(&mut self, outcome: &Outcome);
    fn clone_box(&self) -> Box<dyn AnyFold>;
    fn equals(&self, other: &dyn AnyFold) -> bool;
    fn as_any(&self) -> &dyn Any;
}

impl<F: Fold> AnyFold for F {
    fn apply(&mut self, kind: &EventKind, t_ms: u64) {
        Fold::apply(self, kind, t_ms);
    }

    fn close(&mut self, outcome: &Outcome) {
        Fold::close(self, outcome);
    }

    fn clone_box(&self) -> Box<dyn AnyFold> {
        Box::new(self.clone())
    }

    fn equals(&self, other: &dyn AnyFold) -> bool {
        other.as_any().downcast_ref::<F>() == Some(self)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// What a pattern's pane remembers between frames (a selected row or
/// cell), of its unit's type; the unit's default until first moved.
#[derive(Default)]
pub struct PatternSelection(Option<Box<dyn AnySelection>>);

/// What a selection must be.
pub(crate) trait Selection: Any + Clone + Debug + Default + PartialEq + Send + Sync {}

impl<S: Any + Clone + Debug + Default + PartialEq + Send + Sync> Selection for S {}

impl PatternSelection {
    /// The selection as its unit's type, if it has been moved.
    pub(crate) fn get<S: Selection>(&self) -> Option<&S> {
        self.0.as_ref()?.as_any().downcast_ref()
    }

    /// Keep `selection` as the pane's selection.
    pub(crate) fn set<S: Selection>(&mut self, selection: S) {
        self.0 = Some(Box::new(selection));
    }
}

impl Clone for PatternSelection {
    fn clone(&self) -> Self {
        PatternSelection(self.0.as_ref().map(|s| s.clone_box()))
    }
}

impl PartialEq for PatternSelection {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (None, None) => true,
            (Some(a), Some(b)) => a.equals(b.as_ref()),
            _ => false,
        }
    }
}

impl Debug for PatternSelection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Some(selection) => selection.fmt(f),
            None => f.write_str("PatternSelection(default)"),
        }
    }
}

/// `Selection` behind a pointer.
trait AnySelection: Debug + Send + Sync {
    fn clone_box(&self) -> Box<dyn AnySelection>;
    fn equals(&self, other: &dyn AnySelection) -> bool;
    fn as_any(&self) -> &dyn Any;
}

impl<S: Selection> AnySelection for S {
    fn clone_box(&self) -> Box<dyn AnySelection> {
        Box::new(self.clone())
    }

    fn equals(&self, other: &dyn AnySelection) -> bool {
        other.as_any().downcast_ref::<S>() == Some(self)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
