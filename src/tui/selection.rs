//! A list as the user moves through it (the workers' tasks, a team's
//! transfers and member calls, the research notes, the gateway's tools,
//! the picker's entries): the selected item, whether the list follows what
//! is active, the first row shown, its sort, its filter and the search it
//! highlights. The list's owner says which items it shows in what order
//! and which one is active (`Shown`); this keeps the selection inside that
//! and never looks at the items themselves.

use super::keymap::Action;
use super::search;

/// How a list's rows are ordered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Sort {
    /// The list's own order: plan order, sickest first, the folder's.
    #[default]
    Natural,
    State,
    Name,
    Attempts,
    Latency,
    Errors,
}

impl Sort {
    /// Every sort, in the order `o` cycles through them.
    pub(crate) const ALL: &[Sort] = &[
        Sort::Natural,
        Sort::State,
        Sort::Name,
        Sort::Attempts,
        Sort::Latency,
        Sort::Errors,
    ];

    pub(crate) fn word(self) -> &'static str {
        match self {
            Sort::Natural => "natural",
            Sort::State => "state",
            Sort::Name => "name",
            Sort::Attempts => "attempts",
            Sort::Latency => "latency",
            Sort::Errors => "errors",
        }
    }

    /// The sort after this one among those `offered`.
    fn next(self, offered: &[Sort]) -> Sort {
        let at = offered.iter().position(|s| *s == self);
        match at {
            Some(i) => offered[(i + 1) % offered.len()],
            None => offered.first().copied().unwrap_or_default(),
        }
    }
}

/// Which rows a list shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Show {
    #[default]
    All,
    /// What is running now (or, for the picker, what can be launched).
    Active,
    /// What failed or is failing.
    Failed,
}

impl Show {
    fn next(self) -> Show {
        match self {
            Show::All => Show::Active,
            Show::Active => Show::Failed,
            Show::Failed => Show::All,
        }
    }
}

/// A list as drawn: its items' indexes in the order shown (sorted and
/// filtered), and the item it follows while the user has not moved.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Shown {
    pub(crate) order: Vec<usize>,
    pub(crate) lead: Option<usize>,
}

impl Shown {
    /// Every one of `len` items in their own order, following `lead`.
    pub(crate) fn all(len: usize, lead: Option<usize>) -> Shown {
        Shown {
            order: (0..len).collect(),
            lead,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.order.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.order.is_empty()
    }
}

/// Where a search looks for its match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Find {
    /// From the selected row on, the selected one included: as the query
    /// is typed, the selection stays on a row that still matches.
    Here,
    Next,
    Previous,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct ListView {
    /// The item the user picked (an index among the list's items, so the
    /// same item stays selected as rows re-sort); `None` while the list
    /// follows its lead.
    picked: Option<usize>,
    /// The first row shown, as last scrolled by the user.
    top: usize,
    pub(crate) sort: Sort,
    pub(crate) show: Show,
    /// The text the list highlights, once searched for.
    pub(crate) search: Option<String>,
}

impl ListView {
    /// A list whose selection starts on `item` instead of following.
    pub(crate) fn at(item: usize) -> ListView {
        ListView {
            picked: Some(item),
            ..ListView::default()
        }
    }

    /// Whether the selection follows the list's lead.
    pub(crate) fn follows(&self) -> bool {
        self.picked.is_none()
    }

    /// The selected row (a position in `shown.order`): the picked item's;
    /// while following, the lead's; the first row when neither is shown.
    pub(crate) fn row(&self, shown: &Shown) -> Option<usize> {
        if shown.is_empty() {
            return None;
        }
        let item = self.picked.or(shown.lead);
        let row = item.and_then(|item| shown.order.iter().position(|o| *o == item));
        Some(row.unwrap_or(0))
    }

    /// The selected item (an index among the list's items).
    pub(crate) fn item(&self, shown: &Shown) -> Option<usize> {
        self.row(shown).map(|row| shown.order[row])
    }

    /// The first row of a window of `height` rows: while following, the
    /// lead with a row of what came before it; else where the user
    /// scrolled, moved just enough to show the selection. Never leaves
    /// rows empty at the bottom while there are rows above.
    pub(crate) fn first(&self, shown: &Shown, height: usize) -> usize {
        let height = height.max(1);
        let last_first = shown.len().saturating_sub(height);
        let Some(row) = self.row(shown) else {
            return 0;
        };
        let first = if self.follows() {
            row.saturating_sub(1)
        } else {
            self.top.min(row).max((row + 1).saturating_sub(height))
        };
        first.min(last_first)
    }

    /// Apply a key: move the selection by a row, a `page` of rows, to the
    /// first or the last row, or follow again; cycle the sort through
    /// `sorts` or the rows shown (a list with no `sorts` has neither);
    /// `Close` clears the search and the filter.
    pub(crate) fn navigate(&mut self, action: Action, shown: &Shown, page: usize, sorts: &[Sort]) {
        let page = page.max(1);
        let last = shown.len().saturating_sub(1);
        let row = self.row(shown).unwrap_or(0);
        let to = match action {
            Action::Up => row.saturating_sub(1),
            Action::Down => (row + 1).min(last),
            Action::PageUp => row.saturating_sub(page),
            Action::PageDown => (row + page).min(last),
            Action::Top => 0,
            Action::Bottom => last,
            Action::Follow => {
                self.picked = None;
                return;
            }
            Action::Sort if !sorts.is_empty() => {
                self.sort = self.sort.next(sorts);
                return;
            }
            Action::Show if !sorts.is_empty() => {
                self.show = self.show.next();
                return;
            }
            Action::Close => {
                self.search = None;
                self.show = Show::All;
                return;
            }
            _ => return,
        };
        if !shown.is_empty() {
            self.pick(shown, to, page);
        }
    }

    /// Select the row that matches `query` (case-insensitively, in the
    /// text `text` gives for an item) where `how` says to look, going round
    /// the end; the query stays to be highlighted. An empty query clears
    /// the search. Whether a row matched.
    pub(crate) fn find(
        &mut self,
        query: &str,
        how: Find,
        shown: &Shown,
        page: usize,
        text: impl Fn(usize) -> String,
    ) -> bool {
        if query.is_empty() {
            self.search = None;
            return false;
        }
        self.search = Some(query.to_string());
        let len = shown.len();
        let from = self.row(shown).unwrap_or(0);
        let rows: Vec<usize> = match how {
            Find::Here => (0..len).map(|i| (from + i) % len).collect(),
            Find::Next => (1..=len).map(|i| (from + i) % len).collect(),
            Find::Previous => (1..=len).map(|i| (from + len - i) % len).collect(),
        };
        let hit = rows
            .into_iter()
            .find(|row| search::contains(&text(shown.order[*row]), query));
        match hit {
            Some(row) => {
                self.pick(shown, row, page);
                true
            }
            None => false,
        }
    }

    /// Pick the item at `row`: the window stays where it was (where
    /// following had put it, the first time) unless the row is outside.
    fn pick(&mut self, shown: &Shown, row: usize, page: usize) {
        if self.follows() {
            self.top = self.first(shown, page);
        }
        self.picked = Some(shown.order[row]);
        self.top = self.top.min(row).max((row + 1).saturating_sub(page));
    }

    /// The picked item is now item `item` (rows came in before it): the
    /// window moves with it, so it stays where it was on screen.
    pub(crate) fn repoint(&mut self, item: usize) {
        if let Some(was) = self.picked.replace(item) {
            self.top = (self.top + item).saturating_sub(was);
        }
    }

    /// What the list's title says of its sort, filter and follow mode:
    /// `show` names the rows shown for `Active` and `Failed`.
    pub(crate) fn title_words(&self, show: [&str; 2]) -> String {
        let mut words = String::new();
        if self.sort != Sort::Natural {
            words.push_str(&format!(" · sort {}", self.sort.word()));
        }
        match self.show {
            Show::All => {}
            Show::Active => words.push_str(&format!(" · {} only", show[0])),
            Show::Failed => words.push_str(&format!(" · {} only", show[1])),
        }
        if !self.follows() {
            words.push_str(" · G follows");
        }
        words
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ten items shown in their order, following item `lead`.
    fn ten(lead: Option<usize>) -> Shown {
        Shown::all(10, lead)
    }

    #[test]
    fn the_selection_stays_inside_the_list() {
        let shown = Shown::all(4, None);
        let mut list = ListView::default();
        list.navigate(Action::Up, &shown, 10, &[]);
        assert_eq!(list.row(&shown), Some(0));
        list.navigate(Action::PageDown, &shown, 10, &[]);
        assert_eq!(list.row(&shown), Some(3));
        list.navigate(Action::Down, &shown, 10, &[]);
        assert_eq!(list.row(&shown), Some(3));
        let shorter = Shown::all(2, None);
        assert_eq!(
            list.row(&shorter),
            Some(0),
            "an item no longer shown gives the first row"
        );
        list.navigate(Action::Top, &shown, 10, &[]);
        assert_eq!(list.row(&shown), Some(0));
        list.navigate(Action::Bottom, &shown, 10, &[]);
        assert_eq!(list.row(&shown), Some(3));
        assert_eq!(ListView::default().row(&Shown::default()), None);
    }

    #[test]
    fn a_list_follows_its_lead_until_moved_and_g_follows_again() {
        let mut list = ListView::default();
        assert!(list.follows());
        assert_eq!(list.item(&ten(Some(6))), Some(6));
        assert_eq!(list.first(&ten(Some(6)), 4), 5, "a row of context above");
        assert_eq!(list.item(&ten(Some(8))), Some(8), "the lead moves on");
        assert_eq!(list.first(&ten(Some(9)), 4), 6, "no empty rows below");
        assert_eq!(list.item(&ten(None)), Some(0));

        // The user moves: the selection stays on that item as the lead moves.
        list.navigate(Action::Up, &ten(Some(6)), 4, &[]);
        assert!(!list.follows());
        assert_eq!(list.item(&ten(Some(6))), Some(5));
        assert_eq!(list.item(&ten(Some(9))), Some(5));
        assert_eq!(
            list.first(&ten(Some(9)), 4),
            5,
            "the window stays where following had put it"
        );

        list.navigate(Action::Follow, &ten(Some(9)), 4, &[]);
        assert!(list.follows());
        assert_eq!(list.item(&ten(Some(9))), Some(9));
    }

    #[test]
    fn the_selection_keeps_its_item_when_rows_re_sort() {
        let plan = Shown::all(5, None);
        let mut list = ListView::default();
        list.navigate(Action::Down, &plan, 3, &[]);
        list.navigate(Action::Down, &plan, 3, &[]);
        assert_eq!(list.item(&plan), Some(2));
        let sorted = Shown {
            order: vec![4, 2, 0, 3, 1],
            lead: None,
        };
        assert_eq!(list.item(&sorted), Some(2));
        assert_eq!(list.row(&sorted), Some(1));
        list.navigate(Action::Down, &sorted, 3, &[]);
        assert_eq!(list.item(&sorted), Some(0), "moves in the order shown");
    }

    #[test]
    fn pages_move_by_the_rows_shown_and_the_window_scrolls_only_as_needed() {
        let shown = Shown::all(40, None);
        let mut list = ListView::default();
        list.navigate(Action::PageDown, &shown, 8, &[]);
        assert_eq!(list.row(&shown), Some(8));
        assert_eq!(list.first(&shown, 8), 1, "the selection at the bottom");
        list.navigate(Action::Up, &shown, 8, &[]);
        assert_eq!(list.first(&shown, 8), 1, "moving inside does not scroll");
        list.navigate(Action::PageUp, &shown, 8, &[]);
        assert_eq!(list.row(&shown), Some(0));
        assert_eq!(list.first(&shown, 8), 0);
        list.navigate(Action::Bottom, &shown, 8, &[]);
        assert_eq!(list.first(&shown, 8), 32);
    }

    #[test]
    fn o_and_v_cycle_the_sort_and_the_rows_and_esc_clears_the_filter() {
        let shown = ten(Some(3));
        let mut list = ListView::default();
        list.navigate(Action::Sort, &shown, 4, &[]);
        assert_eq!(list.sort, Sort::Natural, "a list without sorts has none");
        let offered = [Sort::Natural, Sort::State, Sort::Name];
        list.navigate(Action::Sort, &shown, 4, &offered);
        assert_eq!(list.sort, Sort::State);
        list.navigate(Action::Sort, &shown, 4, &offered);
        list.navigate(Action::Sort, &shown, 4, &offered);
        assert_eq!(list.sort, Sort::Natural, "round again");
        list.navigate(Action::Show, &shown, 4, &offered);
        assert_eq!(list.show, Show::Active);
        assert!(list.follows(), "sorting and filtering keep following");
        assert_eq!(list.title_words(["running", "failed"]), " · running only");
        list.navigate(Action::Show, &shown, 4, &offered);
        assert_eq!(list.show, Show::Failed);
        list.search = Some("x".into());
        list.navigate(Action::Close, &shown, 4, &offered);
        assert_eq!((list.show, list.search.as_deref()), (Show::All, None));
    }

    #[test]
    fn search_moves_to_the_next_match_round_the_end() {
        let names = ["alpha", "beta", "gamma", "Delta", "alphabet"];
        let shown = Shown::all(names.len(), None);
        let text = |i: usize| names[i].to_string();
        let mut list = ListView::default();
        assert!(list.find("ALPHA", Find::Here, &shown, 3, text));
        assert_eq!(list.item(&shown), Some(0), "the selected row first");
        assert!(list.find("alpha", Find::Next, &shown, 3, text));
        assert_eq!(list.item(&shown), Some(4));
        assert!(list.find("alpha", Find::Next, &shown, 3, text));
        assert_eq!(list.item(&shown), Some(0), "round the end");
        assert!(list.find("alpha", Find::Previous, &shown, 3, text));
        assert_eq!(list.item(&shown), Some(4));
        assert!(list.find("delt", Find::Here, &shown, 3, text));
        assert_eq!(list.item(&shown), Some(3));
        assert!(!list.find("zeta", Find::Next, &shown, 3, text));
        assert_eq!(list.item(&shown), Some(3), "no match stays put");
        assert_eq!(list.search.as_deref(), Some("zeta"));
        assert!(!list.find("", Find::Here, &shown, 3, text));
        assert_eq!(list.search, None, "an empty query clears the search");
    }
}
