//! A selected row in a list that keeps its order (the workers' tasks, the
//! research notes, a team's transfers, the gateway's tools): what a pane
//! remembers between frames, moved by the keys and kept inside the list.

use super::keymap::Action;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct ListView {
    pub(crate) selected: usize,
}

impl ListView {
    /// Move the selection in a list of `rows` rows.
    pub(crate) fn navigate(&mut self, action: Action, rows: usize) {
        let last = rows.saturating_sub(1);
        self.selected = match action {
            Action::Up => self.selected.saturating_sub(1),
            Action::Down => (self.selected + 1).min(last),
            Action::PageUp => self.selected.saturating_sub(10),
            Action::PageDown => (self.selected + 10).min(last),
            Action::Top => 0,
            Action::Follow => last,
            _ => self.selected,
        };
    }

    /// The selected row of a list of `rows` rows (the last one when the
    /// list has shrunk under it).
    pub(crate) fn row(&self, rows: usize) -> usize {
        self.selected.min(rows.saturating_sub(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_selection_stays_inside_the_list() {
        let mut list = ListView::default();
        list.navigate(Action::Up, 4);
        assert_eq!(list.selected, 0);
        list.navigate(Action::PageDown, 4);
        assert_eq!(list.selected, 3);
        list.navigate(Action::Down, 4);
        assert_eq!(list.selected, 3);
        assert_eq!(list.row(2), 1, "a shorter list shows its last row");
        list.navigate(Action::Top, 4);
        assert_eq!(list.selected, 0);
    }
}
