//! What a pattern's part of the dashboard is made of: its fold over the
//! run's events, the selection its pane keeps, the keys it adds, how it
//! draws and how tall it would be, what `Enter` shows and its lines in the
//! result pane. A pattern writes `Unit` with its own types; the dashboard
//! holds any pattern's through `PatternUnit`. Drawing reads and never
//! changes.

use super::fold::{Fold, PatternFold, PatternSelection, Selection};
use crate::bus::RunStarted;
use crate::tui::keymap::{Action, Scope};
use crate::tui::state::outcome::Outcome;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use serde_json::Value;

/// What a pattern's pane sees of the run besides its own fold and
/// selection.
#[derive(Clone, Copy, Debug)]
pub struct Seen<'a> {
    /// The run clock now.
    pub(crate) now_ms: u64,
    /// The run has not ended.
    pub(crate) live: bool,
    pub(crate) outcome: Option<&'a Outcome>,
    pub(crate) focused: bool,
}

/// One pattern's part of the dashboard, in its own types.
pub(crate) trait Unit: Sync + 'static {
    type Fold: Fold;
    type Selection: Selection;

    /// The fold at the run's start, seated from its scenario and flags.
    fn seat(&self, started: &RunStarted) -> Self::Fold;

    /// What passes one of the pattern's gates: a round, a wave, a turn.
    fn gate_word(&self) -> &'static str;

    /// The rows of the key table the pattern's pane adds to its own.
    fn keys(&self) -> Option<Scope> {
        None
    }

    fn navigate(&self, selection: &mut Self::Selection, action: Action, fold: &Self::Fold);

    /// How tall the pane would like to be.
    fn wanted_height(&self, fold: &Self::Fold) -> u16;

    fn draw(
        &self,
        frame: &mut Frame,
        area: Rect,
        fold: &Self::Fold,
        selection: &Self::Selection,
        seen: Seen,
    );

    /// The selected item as JSON, for `Enter`.
    fn details(&self, fold: &Self::Fold, selection: &Self::Selection) -> Option<Value>;

    /// The result pane's first line, once the run has ended: the decision,
    /// the health, who answered.
    fn headline(&self, fold: &Self::Fold, outcome: &Outcome) -> Line<'static>;

    /// The result pane's tally under the stop reason.
    fn tally(&self, fold: &Self::Fold, outcome: &Outcome) -> Vec<Line<'static>>;

    /// The result pane's lines after the answer.
    fn after_answer(&self, _fold: &Self::Fold) -> Vec<Line<'static>> {
        Vec::new()
    }

    /// What the run is doing, while it runs; `calling` is the model call
    /// in flight.
    fn doing(&self, _fold: &Self::Fold, calling: Option<&str>) -> String {
        match calling {
            Some(label) => format!(
                "Running: asking the model ({}).",
                crate::tui::text::fit(label, 60)
            ),
            None => "Running.".to_string(),
        }
    }

    /// What the result pane will show when the run ends.
    fn later(&self) -> &'static str {
        "The decision and the brief appear here when the run ends."
    }
}

/// `Unit` for any pattern: the fold and selection it is handed are its
/// own, or its defaults while they are not yet (before the run's start,
/// before the first move).
pub trait PatternUnit: Sync {
    fn seat(&self, started: &RunStarted) -> PatternFold;
    fn gate_word(&self) -> &'static str;
    fn keys(&self) -> Option<Scope>;
    fn navigate(&self, selection: &mut PatternSelection, action: Action, fold: &PatternFold);
    fn wanted_height(&self, fold: &PatternFold) -> u16;
    fn draw(
        &self,
        frame: &mut Frame,
        area: Rect,
        fold: &PatternFold,
        selection: &PatternSelection,
        seen: Seen,
    );
    fn details(&self, fold: &PatternFold, selection: &PatternSelection) -> Option<Value>;
    fn headline(&self, fold: &PatternFold, outcome: &Outcome) -> Line<'static>;
    fn tally(&self, fold: &PatternFold, outcome: &Outcome) -> Vec<Line<'static>>;
    fn after_answer(&self, fold: &PatternFold) -> Vec<Line<'static>>;
    fn doing(&self, fold: &PatternFold, calling: Option<&str>) -> String;
    fn later(&self) -> &'static str;
}

/// Call `f` with the fold as `F`, or with `F`'s empty fold.
fn with<F: Fold, R>(fold: &PatternFold, f: impl FnOnce(&F) -> R) -> R {
    match fold.get::<F>() {
        Some(fold) => f(fold),
        None => f(&F::default()),
    }
}

/// Call `f` with the selection as `S`, or with `S`'s default.
fn selected<S: Selection, R>(selection: &PatternSelection, f: impl FnOnce(&S) -> R) -> R {
    match selection.get::<S>() {
        Some(selection) => f(selection),
        None => f(&S::default()),
    }
}

impl<U: Unit> PatternUnit for U {
    fn seat(&self, started: &RunStarted) -> PatternFold {
        PatternFold::new(Unit::seat(self, started))
    }

    fn gate_word(&self) -> &'static str {
        Unit::gate_word(self)
    }

    fn keys(&self) -> Option<Scope> {
        Unit::keys(self)
    }

    fn navigate(&self, selection: &mut PatternSelection, action: Action, fold: &PatternFold) {
        let mut moved: U::Selection = selection.get().cloned().unwrap_or_default();
        with(fold, |fold| Unit::navigate(self, &mut moved, action, fold));
        selection.set(moved);
    }

    fn wanted_height(&self, fold: &PatternFold) -> u16 {
        with(fold, |fold| Unit::wanted_height(self, fold))
    }

    fn draw(
        &self,
        frame: &mut Frame,
        area: Rect,
        fold: &PatternFold,
        selection: &PatternSelection,
        seen: Seen,
    ) {
        with(fold, |fold| {
            selected(selection, |selection| {
                Unit::draw(self, frame, area, fold, selection, seen)
            })
        })
    }

    fn details(&self, fold: &PatternFold, selection: &PatternSelection) -> Option<Value> {
        with(fold, |fold| {
            selected(selection, |selection| Unit::details(self, fold, selection))
        })
    }

    fn headline(&self, fold: &PatternFold, outcome: &Outcome) -> Line<'static> {
        with(fold, |fold| Unit::headline(self, fold, outcome))
    }

    fn tally(&self, fold: &PatternFold, outcome: &Outcome) -> Vec<Line<'static>> {
        with(fold, |fold| Unit::tally(self, fold, outcome))
    }

    fn after_answer(&self, fold: &PatternFold) -> Vec<Line<'static>> {
        with(fold, |fold| Unit::after_answer(self, fold))
    }

    fn doing(&self, fold: &PatternFold, calling: Option<&str>) -> String {
        with(fold, |fold| Unit::doing(self, fold, calling))
    }

    fn later(&self) -> &'static str {
        Unit::later(self)
    }
}
