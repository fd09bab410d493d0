//! The panes of a run's screen. Each draws the slice of the run it is
//! given into its area and changes nothing; the pattern pane is drawn by
//! the run's pattern's unit.

pub(crate) mod attention;
pub mod event_log;
pub mod footer;
pub mod header;
pub mod pattern;
pub mod resilience;
pub mod result;
pub mod run_list;
pub(crate) mod timeline;
