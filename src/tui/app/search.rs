//! Searching: `/` opens a search of the focused list (or of the details,
//! or the picker's filter); each key typed finds the first match from the
//! selection on; Tab and ↓ go to the next match, S-Tab and ↑ to the one
//! before; Enter keeps the search highlighted (Enter on a search reopened
//! and left as it was goes to the next match); Esc clears it.

use super::App;
use crate::tui::keymap::{Action, PaneId};
use crate::tui::search;
use crate::tui::selection::Find;
use crate::tui::view_state::Overlay;

impl App {
    /// `/` in a pane: search it, starting from its last search.
    pub(super) fn open_search(&mut self) {
        let query = match self.focus {
            PaneId::Runs => self.runs_search.clone(),
            _ => self.run().and_then(|slot| {
                let ui = &slot.ui;
                match self.focus {
                    PaneId::Resilience => ui.gateway_tools.search.clone(),
                    _ => slot.unit.query(&ui.pattern),
                }
            }),
        };
        self.overlay = Some(Overlay::Search {
            query: query.unwrap_or_default(),
            edited: false,
        });
    }

    /// A key changed the search being typed: find as it is typed.
    pub(super) fn typed(&mut self) {
        let screen = self.screen;
        match &mut self.overlay {
            Some(Overlay::Search { query, edited }) => {
                *edited = true;
                let query = query.clone();
                self.find(&query, Find::Here);
            }
            Some(Overlay::Details(details)) => {
                details.edited = true;
                details.find(Find::Here, screen);
            }
            // The picker's filter narrows the list as it is drawn.
            _ => {}
        }
    }

    /// A key of a search being typed.
    pub(super) fn search_key(&mut self, action: Action) {
        let screen = self.screen;
        let picker_room = self.above_footer(screen);
        let how = match action {
            Action::Down => Find::Next,
            Action::Up => Find::Previous,
            _ => Find::Here,
        };
        match (&mut self.overlay, action) {
            (Some(Overlay::Search { query, edited }), Action::Confirm) => {
                let (query, edited) = (query.clone(), *edited);
                self.overlay = None;
                if !edited {
                    self.find(&query, Find::Next);
                }
            }
            (Some(Overlay::Search { .. }), Action::Close) => {
                self.overlay = None;
                self.find("", Find::Here);
            }
            (Some(Overlay::Search { query, edited }), Action::Down | Action::Up) => {
                *edited = true;
                let query = query.clone();
                self.find(&query, how);
            }
            (Some(Overlay::Details(details)), Action::Confirm) => {
                details.typing = false;
                if !details.edited {
                    details.find(Find::Next, screen);
                }
            }
            (Some(Overlay::Details(details)), Action::Close) => details.clear_search(),
            (Some(Overlay::Details(details)), Action::Down | Action::Up) => {
                details.edited = true;
                details.find(how, screen);
            }
            (Some(Overlay::Picker(picker)), Action::Confirm) => picker.typing = false,
            (Some(Overlay::Picker(picker)), Action::Close) => {
                picker.typing = false;
                picker.filter.clear();
            }
            (Some(Overlay::Picker(picker)), Action::Down | Action::Up) => {
                picker.navigate(action, &self.catalog, picker_room);
            }
            _ => {}
        }
    }

    /// Search the focused pane for `query` (an empty one clears the
    /// search); a notice says when nothing matches.
    fn find(&mut self, query: &str, how: Find) {
        let focus = self.focus;
        let page = self.page(focus);
        let found = match focus {
            PaneId::Runs => self.find_run(query, how),
            _ => match self.runs.selected_mut() {
                Some(slot) => {
                    let (state, unit) = (&slot.state, slot.unit);
                    slot.ui.find(focus, query, how, state, unit, page)
                }
                None => false,
            },
        };
        if !found && !query.is_empty() {
            self.notice = Some(format!(
                "no match for \"{}\"",
                crate::tui::text::fit(query, 30)
            ));
        }
    }

    /// Select the run whose scenario or number matches `query`.
    fn find_run(&mut self, query: &str, how: Find) -> bool {
        if query.is_empty() {
            self.runs_search = None;
            return false;
        }
        self.runs_search = Some(query.to_string());
        let len = self.runs.len();
        let from = self.runs.selected;
        let order: Vec<usize> = match how {
            Find::Here => (0..len).map(|i| (from + i) % len).collect(),
            Find::Next => (1..=len).map(|i| (from + i) % len).collect(),
            Find::Previous => (1..=len).map(|i| (from + len - i) % len).collect(),
        };
        let names: Vec<String> = self
            .runs
            .iter()
            .map(|slot| format!("{} {}", slot.state.run, slot.scenario.name))
            .collect();
        match order
            .into_iter()
            .find(|i| search::contains(&names[*i], query))
        {
            Some(i) => {
                self.runs.selected = i;
                true
            }
            None => false,
        }
    }
}
