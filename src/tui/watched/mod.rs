//! The span tree of a watched run: its rows, depth first (`tree`), and
//! how the pattern pane draws them (`tree_pane`).

pub(crate) mod tree;
pub(crate) mod tree_pane;
