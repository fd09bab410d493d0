//! A pattern's share of the run state, whichever the pattern: its unit's
//! fold as one variant of the fold the reducer holds, and its pane's
//! selection as one variant of the selection the view state holds. Both
//! enums name every pattern's type, so a new pattern's fold or selection
//! is a variant here the compiler asks for. Pure: nothing here draws or
//! reads a clock.

use super::chain::{members_view::MembersView, state::Chain};
use super::graph::selection::GraphView;
use super::graph::state::GraphFold;
use super::research::state::Research;
use super::round_table::{selection::TableView, state::RoundTable};
use super::watched::{held::WatchedView, state::WatchedRun};
use super::workers::state::Workers;
use crate::bus::EventKind;
use crate::tui::selection::ListView;
use crate::tui::state::outcome::Outcome;
use std::fmt::Debug;

pub(crate) use super::folding::Fold;

/// A fold the run's fold can hold: each pattern's, named below.
pub trait Seat: Fold {
    /// This fold as the run's.
    fn seated(self) -> PatternFold;
    /// The run's fold, when it is this one.
    fn of(fold: &PatternFold) -> Option<&Self>;
}

/// The fold of a run's pattern; unseated until the run's start seats it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PatternFold(pub(crate) Seated);

/// Each pattern's fold, by the pattern.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) enum Seated {
    #[default]
    Unseated,
    RoundTable(Box<RoundTable>),
    Workers(Box<Workers>),
    Chain(Box<Chain>),
    Research(Box<Research>),
    Graph(Box<GraphFold>),
    Watched(Box<WatchedRun>),
}

impl PatternFold {
    pub(crate) fn new<F: Seat>(fold: F) -> Self {
        fold.seated()
    }

    pub(crate) fn apply(&mut self, kind: &EventKind, t_ms: u64) {
        match &mut self.0 {
            Seated::Unseated => {}
            Seated::RoundTable(fold) => fold.apply(kind, t_ms),
            Seated::Workers(fold) => fold.apply(kind, t_ms),
            Seated::Chain(fold) => fold.apply(kind, t_ms),
            Seated::Research(fold) => fold.apply(kind, t_ms),
            Seated::Graph(fold) => fold.apply(kind, t_ms),
            Seated::Watched(fold) => fold.apply(kind, t_ms),
        }
    }

    pub(crate) fn close(&mut self, outcome: &Outcome) {
        match &mut self.0 {
            Seated::Unseated => {}
            Seated::RoundTable(fold) => fold.close(outcome),
            Seated::Workers(fold) => fold.close(outcome),
            Seated::Chain(fold) => fold.close(outcome),
            Seated::Research(fold) => fold.close(outcome),
            Seated::Graph(fold) => fold.close(outcome),
            Seated::Watched(fold) => fold.close(outcome),
        }
    }

    /// The fold as its unit's type; `None` before the run's start or for
    /// another pattern's.
    pub fn get<F: Seat>(&self) -> Option<&F> {
        F::of(self)
    }
}

/// What a pattern's pane remembers between frames (a selected row or
/// cell), of its unit's type; the unit's default until first moved.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PatternSelection(Kept);

#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) enum Kept {
    #[default]
    Unmoved,
    Table(TableView),
    List(ListView),
    Members(MembersView),
    Graph(GraphView),
    Watched(WatchedView),
}

/// What a selection must be: one of `PatternSelection`'s.
pub(crate) trait Selection: Clone + Debug + Default + PartialEq + Send + Sync {
    fn kept(self) -> Kept;
    fn of(selection: &PatternSelection) -> Option<&Self>;
}

impl PatternSelection {
    /// The selection as its unit's type, if it has been moved.
    pub(crate) fn get<S: Selection>(&self) -> Option<&S> {
        S::of(self)
    }

    /// Keep `selection` as the pane's selection.
    pub(crate) fn set<S: Selection>(&mut self, selection: S) {
        *self = PatternSelection(selection.kept());
    }
}

/// `Selection` for each variant of `PatternSelection`.
macro_rules! selection {
    ($type:ty, $variant:ident) => {
        impl Selection for $type {
            fn kept(self) -> Kept {
                Kept::$variant(self)
            }

            fn of(selection: &PatternSelection) -> Option<&Self> {
                match &selection.0 {
                    Kept::$variant(selection) => Some(selection),
                    _ => None,
                }
            }
        }
    };
}

selection!(TableView, Table);
selection!(ListView, List);
selection!(MembersView, Members);
selection!(GraphView, Graph);
selection!(WatchedView, Watched);

/// `Seat` for each variant of `PatternFold`.
macro_rules! seat {
    ($type:ty, $variant:ident) => {
        impl Seat for $type {
            fn seated(self) -> PatternFold {
                PatternFold(Seated::$variant(Box::new(self)))
            }

            fn of(fold: &PatternFold) -> Option<&Self> {
                match &fold.0 {
                    Seated::$variant(fold) => Some(fold),
                    _ => None,
                }
            }
        }
    };
}

seat!(RoundTable, RoundTable);
seat!(Workers, Workers);
seat!(Chain, Chain);
seat!(Research, Research);
seat!(GraphFold, Graph);
seat!(WatchedRun, Watched);
