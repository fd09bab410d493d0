//! Two graph runs aligned: the paths side by side, activation by
//! activation, and each node's visits. Where the paths part is where a
//! fork's changed output sent the run another way.

use crate::bus::{Event, EventKind};
use crate::compare::sections::{Cell, Row, Section, Tone, one};
use crate::compare::{Aligned, Alignment, CompareRules, Difference, union};
use crate::patterns::events::{GraphEvent, PatternEvent};
use indexmap::IndexMap;
use serde::Serialize;
use std::sync::Arc;

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
struct Walk {
    path: Vec<String>,
    visits: IndexMap<String, u32>,
}

impl Walk {
    fn of(events: &[Arc<Event>]) -> Walk {
        let mut walk = Walk::default();
        for event in events {
            if let EventKind::Pattern(PatternEvent::Graph(GraphEvent::NodeStarted {
                node,
                visit,
                ..
            })) = &event.kind
            {
                walk.path.push(node.clone());
                walk.visits.insert(node.clone(), *visit);
            }
        }
        walk
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
struct GraphAligned {
    path_a: Vec<String>,
    path_b: Vec<String>,
    /// Each node that ran in either run: its visits in each.
    visits: Vec<(String, u32, u32)>,
}

impl Aligned for GraphAligned {
    fn differences(&self) -> Vec<Difference> {
        let mut out = Vec::new();
        let steps = self.path_a.len().max(self.path_b.len());
        for step in 0..steps {
            let (a, b) = (self.path_a.get(step), self.path_b.get(step));
            if a != b {
                out.push(Difference::new(format!("path.{}", step + 1), a, b));
                break;
            }
        }
        for (node, a, b) in &self.visits {
            if a != b {
                out.push(Difference::new(format!("visits.{node}"), a, b));
            }
        }
        out
    }

    fn sections(&self) -> Vec<Section> {
        let steps = self.path_a.len().max(self.path_b.len());
        let cell = |node: Option<&String>, same: bool| {
            vec![match node {
                None => Cell::absent(),
                Some(node) if same => Cell::plain(node.clone()),
                Some(node) => Cell::toned(node.clone(), Tone::Caution),
            }]
        };
        let path = (0..steps)
            .map(|i| {
                let (a, b) = (self.path_a.get(i), self.path_b.get(i));
                Row::new(format!("step {}", i + 1), cell(a, a == b), cell(b, a == b))
            })
            .collect();
        let visits = self
            .visits
            .iter()
            .map(|(node, a, b)| Row::new(node, one(a.to_string()), one(b.to_string())))
            .collect();
        vec![
            Section {
                title: "Path".into(),
                columns: vec!["node".into()],
                rows: path,
            },
            Section {
                title: "Visits".into(),
                columns: vec!["visits".into()],
                rows: visits,
            },
        ]
    }

    fn to_json(&self) -> serde_json::Value {
        serde_json::json!({ "graph": self })
    }
}

/// The rules by which two graph runs are compared.
pub(crate) struct Rules;

impl CompareRules for Rules {
    fn align(&self, a: &[Arc<Event>], b: &[Arc<Event>]) -> Alignment {
        let (a, b) = (Walk::of(a), Walk::of(b));
        let visits = union(a.visits.keys(), b.visits.keys())
            .into_iter()
            .map(|node| {
                let count = |w: &Walk| w.visits.get(node).copied().unwrap_or(0);
                (node.clone(), count(&a), count(&b))
            })
            .collect();
        Alignment::new(GraphAligned {
            path_a: a.path,
            path_b: b.path,
            visits,
        })
    }
}
