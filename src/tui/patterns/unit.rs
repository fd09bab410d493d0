//! What a pattern's part of the dashboard is made of: its fold over the
//! run's events, the selection its pane keeps, the keys it adds, how it
//! draws and how tall it would be, what `Enter` shows and its lines in the
//! result pane. A pattern writes `Unit` with its own types; the dashboard
//! holds any pattern's through `PatternUnit`. Drawing reads and never
//! changes.

pub(crate) use super::doing::calls_in_words;
use super::fold::{PatternFold, PatternSelection, Seat, Selection};
pub(crate) use super::seen::Seen;
use crate::bus::RunStarted;
use crate::scenario::Scenario;
use crate::tui::keymap::{Action, Scope};
use crate::tui::selection::Find;
use crate::tui::state::calls::CallInFlight;
use crate::tui::state::outcome::Outcome;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use serde_json::Value;

/// One pattern's part of the dashboard, in its own types.
pub(crate) trait Unit: Sync + 'static {
    type Fold: Seat;
    type Selection: Selection;

    /// The fold at the run's start, seated from its scenario and flags.
    fn seat(&self, started: &RunStarted) -> Self::Fold;

    /// What passes one of the pattern's gates: a round, a wave, a turn.
    fn gate_word(&self) -> &'static str;

    /// What the question dialog shows above the options of the question
    /// the run asks a person, `width` wide; `None`: the question's prompt.
    fn question_lines(&self, _fold: &Self::Fold, _width: usize) -> Option<Vec<Line<'static>>> {
        None
    }

    /// The rows of the key table the pattern's pane adds to its own, for
    /// a run of `scenario`.
    fn keys(&self, _scenario: &Scenario) -> Option<Scope> {
        None
    }

    /// Apply a key to the selection; `page` is the pane's height inside
    /// its border, which a page of its list is drawn from.
    fn navigate(
        &self,
        selection: &mut Self::Selection,
        action: Action,
        fold: &Self::Fold,
        page: usize,
    );

    /// Move the selection to an item that matches `query` where `how`
    /// says, keeping the query to highlight; an empty query clears it.
    /// Whether an item matched.
    fn find(
        &self,
        _selection: &mut Self::Selection,
        _query: &str,
        _how: Find,
        _fold: &Self::Fold,
        _page: usize,
    ) -> bool {
        false
    }

    /// The search the selection highlights, if any.
    fn query(&self, _selection: &Self::Selection) -> Option<String> {
        None
    }

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

    /// `Enter` opens a pane of the selected item's own in the pattern's
    /// pane (a graph's team node opens its team's); whether it did. When
    /// not, `Enter` shows the item's JSON.
    fn open(&self, _fold: &Self::Fold, _selection: &mut Self::Selection) -> bool {
        false
    }

    /// A recorded output a fork from the selected item may serve changed,
    /// as the fork dialog's output field starts with it
    /// (`review:/verdict="approve"`); `None`: the dialog has no such field.
    fn fork_output(&self, _fold: &Self::Fold, _selection: &Self::Selection) -> Option<String> {
        None
    }

    /// The result pane's first line, once the run has ended: the decision,
    /// the health, who answered.
    fn headline(&self, fold: &Self::Fold, outcome: &Outcome) -> Line<'static>;

    /// The result pane's tally under the stop reason.
    fn tally(&self, fold: &Self::Fold, outcome: &Outcome) -> Vec<Line<'static>>;

    /// The result pane's lines after the answer.
    fn after_answer(&self, _fold: &Self::Fold) -> Vec<Line<'static>> {
        Vec::new()
    }

    /// What the run left undone, counted: failed tasks, refused
    /// transfers, failed member calls.
    fn shortfall(&self, _fold: &Self::Fold) -> Option<Shortfall> {
        None
    }

    /// Whether the run may still pass a gate where a pause can take hold;
    /// `false` once its last gate is behind it (the last round started).
    fn gate_ahead(&self, _fold: &Self::Fold) -> bool {
        true
    }

    /// What the run is doing, while it runs; `calling` are the gateway
    /// calls in flight.
    fn doing(&self, _fold: &Self::Fold, calling: &[CallInFlight]) -> String {
        match calls_in_words(calling) {
            Some(calls) => format!("Running: {calls}."),
            None => "Running.".to_string(),
        }
    }

    /// What the result pane will show when the run ends.
    fn later(&self) -> &'static str {
        "The decision and the brief appear here when the run ends."
    }
}

/// What a run left undone, in words (`15 tasks failed`), and whether its
/// result lacks their part (a refused transfer is routed elsewhere; a
/// failed task's figures are missing).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shortfall {
    pub(crate) words: String,
    pub(crate) lacking: bool,
}

/// `Unit` for any pattern: the fold and selection it is handed are its
/// own, or its defaults while they are not yet (before the run's start,
/// before the first move).
pub trait PatternUnit: Sync {
    fn seat(&self, started: &RunStarted) -> PatternFold;
    fn gate_word(&self) -> &'static str;
    fn question_lines(&self, fold: &PatternFold, width: usize) -> Option<Vec<Line<'static>>>;
    fn keys(&self, scenario: &Scenario) -> Option<Scope>;
    fn navigate(
        &self,
        selection: &mut PatternSelection,
        action: Action,
        fold: &PatternFold,
        page: usize,
    );
    fn find(
        &self,
        selection: &mut PatternSelection,
        query: &str,
        how: Find,
        fold: &PatternFold,
        page: usize,
    ) -> bool;
    fn query(&self, selection: &PatternSelection) -> Option<String>;
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
    fn open(&self, fold: &PatternFold, selection: &mut PatternSelection) -> bool;
    fn fork_output(&self, fold: &PatternFold, selection: &PatternSelection) -> Option<String>;
    fn headline(&self, fold: &PatternFold, outcome: &Outcome) -> Line<'static>;
    fn tally(&self, fold: &PatternFold, outcome: &Outcome) -> Vec<Line<'static>>;
    fn after_answer(&self, fold: &PatternFold) -> Vec<Line<'static>>;
    fn shortfall(&self, fold: &PatternFold) -> Option<Shortfall>;
    fn gate_ahead(&self, fold: &PatternFold) -> bool;
    fn doing(&self, fold: &PatternFold, calling: &[CallInFlight]) -> String;
    fn later(&self) -> &'static str;
}

/// Call `f` with the fold as `F`, or with `F`'s empty fold.
fn with<F: Seat, R>(fold: &PatternFold, f: impl FnOnce(&F) -> R) -> R {
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

    fn question_lines(&self, fold: &PatternFold, width: usize) -> Option<Vec<Line<'static>>> {
        with(fold, |f| Unit::question_lines(self, f, width))
    }

    fn keys(&self, scenario: &Scenario) -> Option<Scope> {
        Unit::keys(self, scenario)
    }

    fn navigate(
        &self,
        selection: &mut PatternSelection,
        action: Action,
        fold: &PatternFold,
        page: usize,
    ) {
        let mut moved: U::Selection = selection.get().cloned().unwrap_or_default();
        with(fold, |fold| {
            Unit::navigate(self, &mut moved, action, fold, page)
        });
        selection.set(moved);
    }

    fn find(
        &self,
        selection: &mut PatternSelection,
        query: &str,
        how: Find,
        fold: &PatternFold,
        page: usize,
    ) -> bool {
        let mut moved: U::Selection = selection.get().cloned().unwrap_or_default();
        let found = with(fold, |fold| {
            Unit::find(self, &mut moved, query, how, fold, page)
        });
        selection.set(moved);
        found
    }

    fn query(&self, selection: &PatternSelection) -> Option<String> {
        selected(selection, |selection| Unit::query(self, selection))
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

    fn open(&self, fold: &PatternFold, selection: &mut PatternSelection) -> bool {
        let mut moved: U::Selection = selection.get().cloned().unwrap_or_default();
        let opened = with(fold, |fold| Unit::open(self, fold, &mut moved));
        if opened {
            selection.set(moved);
        }
        opened
    }

    fn fork_output(&self, fold: &PatternFold, selection: &PatternSelection) -> Option<String> {
        with(fold, |fold| {
            selected(selection, |selection| {
                Unit::fork_output(self, fold, selection)
            })
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

    fn shortfall(&self, fold: &PatternFold) -> Option<Shortfall> {
        with(fold, |fold| Unit::shortfall(self, fold))
    }

    fn gate_ahead(&self, fold: &PatternFold) -> bool {
        with(fold, |fold| Unit::gate_ahead(self, fold))
    }

    fn doing(&self, fold: &PatternFold, calling: &[CallInFlight]) -> String {
        with(fold, |fold| Unit::doing(self, fold, calling))
    }

    fn later(&self) -> &'static str {
        Unit::later(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(call: u64, tool: &str, attempt: u32, label: &str) -> CallInFlight {
        CallInFlight {
            call,
            tool: tool.into(),
            attempt,
            label: label.into(),
            ..CallInFlight::default()
        }
    }

    #[test]
    fn calls_in_flight_say_what_is_called_and_its_attempt() {
        assert_eq!(calls_in_words(&[]), None);
        assert_eq!(
            calls_in_words(&[call(1, "model", 1, "round 2 · risk_analyst")]).unwrap(),
            "asking the model for round 2 · risk_analyst (attempt 1)"
        );
        assert_eq!(
            calls_in_words(&[call(
                2,
                "enrichment_worker",
                2,
                "us-enrich · enrichment_worker"
            )])
            .unwrap(),
            "calling enrichment_worker for us-enrich (attempt 2)"
        );
        let three = [
            call(1, "orders_worker", 1, "us-orders · orders_worker"),
            call(2, "refund_api", 1, "refund_api"),
            call(3, "model", 1, "plan"),
        ];
        assert_eq!(
            calls_in_words(&three).unwrap(),
            "calling orders_worker for us-orders (attempt 1); \
             calling refund_api (attempt 1); and 1 other call"
        );
    }

    #[test]
    fn a_teams_spend_is_its_agents_by_path_together() {
        use crate::tui::state::spend::Spend;
        let spend = |input, cost_usd| Spend {
            input,
            cost_usd,
            priced: 1,
            ..Spend::default()
        };
        let spent = [
            ("launch", spend(5_000, 0.5)),
            ("launch/research", spend(7_000, 0.7)),
            ("launch/support/billing", spend(200, 0.02)),
            ("launch/support/triage", spend(100, 0.01)),
            ("launch/support_desk/x", spend(9_000, 0.9)),
        ]
        .into_iter()
        .map(|(agent, spend)| (agent.to_string(), spend))
        .collect();
        let seen = Seen {
            now_ms: 0,
            live: true,
            outcome: None,
            focused: false,
            calling: &[],
            spent: &spent,
        };
        assert_eq!(
            seen.spent_under("launch/support").unwrap(),
            "300 tok · $0.03"
        );
        assert_eq!(seen.spent_under("launch/legal"), None);
    }
}
