//! The graph pattern's part of the dashboard: the planned graph laid out
//! in layers (`layout`, `geometry`), drawn with boxes and arrows
//! (`canvas`, `plane`), and each node's and edge's live state folded from
//! the run's events (`state`, `live`).

// Not yet seated as the graph run's unit: until it is, only the tests
// draw it.
#![allow(dead_code)]

mod canvas;
mod geometry;
mod layout;
mod live;
pub(crate) mod log;
mod plan;
mod plane;
pub(crate) mod state;

#[cfg(test)]
mod tests;
