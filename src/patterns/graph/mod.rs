//! The graph pattern (`"pattern": "graph"`): a workflow declared in the
//! scenario as nodes and edges (agents, tools, map fan-outs, joins with
//! written-out wait rules, questions to a person, ends), with conditions
//! as data. [`spec`] is the section as written, [`shape`] the compiled
//! graph, [`lint`] the load-time rules, [`condition`] the edge tests,
//! [`machine`] the run's rules with no clock and no calls, and [`run`] the
//! runner that drives them on the run's clock through the gateway. Team
//! nodes are refused at load for now ([`checks`]).

pub(crate) mod checks;
pub(crate) mod compare;
pub(crate) mod condition;
pub(crate) mod describe;
pub(crate) mod events;
pub(crate) mod figures;
pub(crate) mod human;
pub(crate) mod lint;
pub(crate) mod machine;
pub(crate) mod result;
pub(crate) mod run;
pub(crate) mod shape;
pub(crate) mod sim;
pub(crate) mod spec;
pub(crate) mod stops;
pub(crate) mod trace;

use super::Runner;
use crate::scenario::DEFAULT_MAX_SECONDS;

/// The graph pattern: its runs walk the graph.
pub(crate) const RUNNER: Runner = Runner {
    run: |ctx| Box::pin(run::run(ctx)),
    default_max_seconds: DEFAULT_MAX_SECONDS,
    compare: &compare::Rules,
    explain_stop: stops::explain,
    asking: Some(&human::ASKING),
};

#[cfg(test)]
mod tests;

/// What `conclave validate` advises on a loaded graph scenario, if
/// anything ([`lint::advice`]).
pub(crate) fn advice(scenario: &crate::scenario::Scenario) -> Option<String> {
    let graph = scenario.graph.as_ref()?;
    let at = crate::scenario::JsonPath::root().key("graph");
    let shape = shape::compile(graph, &at).ok()?;
    lint::advice(&shape, &at)
}
