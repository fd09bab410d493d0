//! Two graph runs aligned, as the rows a comparison shows: the routers'
//! choices first (where two paths part), then every node with its visits
//! in each run, then the path step by step.

use super::{GraphAligned, NodeFacts, Paired, Reached, StepFacts};
use crate::compare::sections::{Cell, Row, Section, Tone};

fn tone(reached: Reached) -> Tone {
    match reached {
        Reached::Done => Tone::Good,
        Reached::Failed | Reached::InvalidOutput => Tone::Bad,
        Reached::Running => Tone::Caution,
        Reached::Unreached | Reached::Skipped => Tone::Plain,
    }
}

fn row<T>(row: &Paired<T>, label: String, cells: impl Fn(&Option<T>) -> Vec<Cell>) -> Row {
    Row {
        label,
        only_in: row.only_in,
        a: cells(&row.a),
        b: cells(&row.b),
    }
}

pub(super) fn route_table(aligned: &GraphAligned) -> Section {
    let cells = |to: &Option<Vec<String>>| match to {
        Some(to) => vec![Cell::plain(format!("→ {}", to.join(", → ")))],
        None => vec![Cell::absent()],
    };
    Section {
        title: "Routes (each router's choices in order)".into(),
        columns: vec!["took".into()],
        rows: aligned
            .routes
            .iter()
            .map(|r| row(r, r.key.clone(), cells))
            .collect(),
    }
}

pub(super) fn node_table(aligned: &GraphAligned) -> Section {
    let cells = |facts: &Option<NodeFacts>| match facts {
        Some(facts) => vec![
            Cell::toned(facts.reached.as_str(), tone(facts.reached)),
            Cell::plain(facts.visits.to_string()),
        ],
        None => vec![Cell::absent(), Cell::absent()],
    };
    Section {
        title: "Nodes (both paths over the graph)".into(),
        columns: vec!["state".into(), "visits".into()],
        rows: aligned
            .nodes
            .iter()
            .map(|r| row(r, r.key.clone(), cells))
            .collect(),
    }
}

pub(super) fn path_table(aligned: &GraphAligned) -> Section {
    let cells = |facts: &Option<StepFacts>| match facts {
        Some(facts) => vec![
            Cell::plain(format!("{} #{}", facts.node, facts.visit)),
            Cell::toned(facts.reached.as_str(), tone(facts.reached)),
        ],
        None => vec![Cell::absent(), Cell::absent()],
    };
    Section {
        title: "Path (activations in order)".into(),
        columns: vec!["node".into(), "ended".into()],
        rows: aligned
            .path
            .iter()
            .map(|r| row(r, format!("step {}", r.key), cells))
            .collect(),
    }
}
