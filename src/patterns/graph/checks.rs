//! A graph scenario's checks at load: the section read as a graph
//! (`shape`), every lint finding, the agents, tools and teams its nodes
//! name, and the sim's scripts named by node. Each problem names its
//! place in the file (`graph.nodes[3]`, `graph.edges[2]`).

use super::lint::lint;
use super::shape::{Kind, compile};
use crate::scenario::error::Problem;
use crate::scenario::path::JsonPath;
use crate::scenario::types::{ProviderKind, Scenario};

pub(crate) fn check(scenario: &Scenario, problems: &mut Vec<Problem>) {
    let root = JsonPath::root();
    let Some(graph) = &scenario.graph else {
        problems.push(Problem::at(
            root,
            "missing field \"graph\": a graph scenario declares its nodes and edges",
        ));
        return;
    };
    let at = root.key("graph");
    let shape = match compile(graph, &at) {
        Ok(shape) => shape,
        Err(found) => {
            problems.extend(found);
            return;
        }
    };
    problems.extend(lint(&shape, &at));
    for (i, node) in shape.nodes.iter().enumerate() {
        let place = at.key("nodes").index(i);
        let named = |key: &str, name: &str, declared: bool, section: &str| {
            (!declared).then(|| {
                Problem::at(
                    place.key(key),
                    format!(
                        "node {:?}: expected a name declared in {section}, found {name:?}",
                        node.id
                    ),
                )
            })
        };
        let problem = match &node.kind {
            Kind::Agent { agent } | Kind::Map { agent, .. } => named(
                "agent",
                agent,
                scenario.agents.contains_key(agent),
                "agents",
            ),
            Kind::Tool { tool } => named("tool", tool, scenario.tools.contains_key(tool), "tools"),
            Kind::Team { .. } => Some(Problem::at(
                place.key("team"),
                format!(
                    "node {:?}: team nodes are not yet run by the graph pattern; make it an agent node",
                    node.id
                ),
            )),
            Kind::Join { .. } | Kind::Human { .. } | Kind::End => None,
        };
        problems.extend(problem);
    }
    if scenario.provider.kind == ProviderKind::Sim
        && let Some(turns) = &scenario.provider.turns
    {
        for name in turns.keys() {
            let found = match shape.node(name).map(|n| &shape.nodes[n].kind) {
                Some(Kind::Agent { .. } | Kind::Map { .. }) => continue,
                Some(kind) => format!("{name:?}, a {} node", kind.word()),
                None => format!("{name:?}"),
            };
            problems.push(Problem::at_key(
                root.key("provider").key("turns").key(name),
                format!("expected the id of an agent or map node of the graph, found {found}"),
            ));
        }
    }
}
