//! The graph pattern (`"pattern": "graph"`): a workflow declared in the
//! scenario as nodes and edges (agents, tools, nested teams, map fan-outs,
//! joins with written-out wait rules, questions to a person, ends), with
//! conditions as data. [`spec`] is the section as written, [`shape`] the
//! compiled graph, [`lint`] the load-time rules, [`condition`] the edge
//! tests and [`machine`] the run's rules with no clock and no calls.

// The runner that drives these parts is not built yet: until it is, only
// the tests use them.
#![allow(dead_code)]

pub(crate) mod condition;
pub(crate) mod describe;
pub(crate) mod events;
pub(crate) mod lint;
pub(crate) mod machine;
pub(crate) mod shape;
pub(crate) mod spec;

#[cfg(test)]
mod tests;
