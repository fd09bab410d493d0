//! A graph's human nodes: each asks its question at its gate, the generic
//! question of the round table's escalation, with the node's options; the
//! last option answers when nobody can (a headless run without
//! `--answer`), and a person may take as long as they need.

use crate::bus::{EventKind, Question};
use crate::patterns::events::PatternEvent;
use crate::patterns::graph::events::GraphEvent;
use crate::scenario::Scenario;

/// Who asks, in words.
const ASKER: &str = "the graph";

/// The question of human node `node` at its `step`-th activation.
pub(crate) fn question(node: &str, step: u32, prompt: &str, options: &[String]) -> Question {
    let mut asked = Question::new(
        node,
        ASKER,
        format!("{node}: {prompt}"),
        options.iter().map(|o| (o.as_str(), o.as_str())),
    )
    .at(format!("at node {node}, step {step}"));
    asked.default = options.last().cloned();
    asked
}

/// The questions a run of `scenario` may ask: one per human node.
fn questions(scenario: &Scenario) -> Vec<Question> {
    let Some(graph) = &scenario.graph else {
        return Vec::new();
    };
    graph
        .nodes
        .iter()
        .filter_map(|n| {
            let prompt = n.human.as_ref()?;
            Some(question(&n.id, 0, prompt, &n.options))
        })
        .collect()
}

/// The question a `human_asked` event raised.
fn question_of(kind: &EventKind) -> Option<Question> {
    let EventKind::Pattern(PatternEvent::Graph(GraphEvent::HumanAsked {
        node,
        step,
        question: prompt,
        options,
    })) = kind
    else {
        return None;
    };
    Some(question(node, *step, prompt, options))
}

/// How a graph asks a person: at each human node.
pub(crate) const ASKING: crate::patterns::asking::Asking = crate::patterns::asking::Asking {
    who: "a graph with a human node",
    when: "a graph scenario with a node that has \"human\"",
    questions,
    question_of,
};
