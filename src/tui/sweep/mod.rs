//! The sweep in the dashboard: its state (the tally and the selection),
//! its view (bar charts per combination, the runs of a bar), and the feed
//! that runs the sweep's jobs off the dashboard's threads and hands their
//! results to the loop.

mod bars;
mod chart;
mod feed;
mod state;
pub(crate) mod view;

pub(crate) use feed::{Feed, SweepMessage, start};
pub use state::{Chart, Ended, SweepState};
