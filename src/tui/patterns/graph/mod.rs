//! The graph pattern's part of the dashboard: the planned graph laid out
//! in layers (`layout`, `geometry`), drawn with boxes and arrows
//! (`canvas`, `plane`), each node's and edge's live state folded from the
//! run's events (`events`, `state`, `live`), the selected node and zoom
//! (`selection`), the words under the graph (`explain`) and the pane
//! (`view`).

mod canvas;
mod details;
mod events;
mod explain;
pub(crate) mod geometry;
mod layout;
mod live;
pub(crate) mod log;
mod plan;
pub(crate) mod plane;
pub(crate) mod selection;
mod small;
pub(crate) mod state;
mod team_pane;
mod team_view;
mod view;

#[cfg(test)]
mod fold_tests;
#[cfg(test)]
mod tests;

use super::unit::{Seen, Shortfall, Unit};
use crate::bus::{RunStarted, RunStatus};
use crate::scenario::Scenario;
use crate::tui::keymap::{Action, Scope, UnitKeys};
use crate::tui::state::outcome::Outcome;
use crate::tui::text::fit;
use crate::tui::theme;
use crate::tui::widgets::plural;
use live::NodeState;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use selection::GraphView;
use serde_json::Value;
pub(crate) use state::GraphFold;

pub(crate) struct GraphUnit;

impl Unit for GraphUnit {
    type Fold = GraphFold;
    type Selection = GraphView;

    fn seat(&self, started: &RunStarted) -> GraphFold {
        GraphFold {
            scenario: Some(std::sync::Arc::clone(&started.scenario)),
            ..GraphFold::default()
        }
    }

    fn gate_word(&self) -> &'static str {
        "step"
    }

    fn keys(&self, _scenario: &Scenario) -> Option<Scope> {
        Some(Scope::Unit(UnitKeys::Graph))
    }

    fn navigate(&self, selection: &mut GraphView, action: Action, fold: &GraphFold, page: usize) {
        selection.navigate(action, fold, page);
    }

    fn wanted_height(&self, fold: &GraphFold) -> u16 {
        view::wanted_height(fold)
    }

    fn draw(&self, frame: &mut Frame, area: Rect, fold: &GraphFold, view: &GraphView, seen: Seen) {
        match &view.team {
            Some(pane) if fold.has_team_pane(pane.node) => {
                team_view::draw(frame, area, fold, pane, seen);
            }
            _ => view::draw(frame, area, fold, view, seen),
        }
    }

    fn details(&self, fold: &GraphFold, selection: &GraphView) -> Option<Value> {
        details::node(fold, selection.selected(fold)?)
    }

    /// A team node whose team has run opens its team's own pane.
    fn open(&self, fold: &GraphFold, selection: &mut GraphView) -> bool {
        let Some(n) = selection.selected(fold).filter(|n| fold.has_team_pane(*n)) else {
            return false;
        };
        selection.team = Some(team_pane::TeamPane::on(n));
        true
    }

    /// The selected agent node's last output, its first field offered to
    /// change in a fork (`review:/verdict="revise"`): the value the run
    /// routed on, as a fork from the node flips it.
    fn fork_output(&self, fold: &GraphFold, selection: &GraphView) -> Option<String> {
        let node = selection.selected(fold)?;
        let planned = &fold.graph.as_ref()?.plan.nodes[node];
        if planned.kind != "agent" {
            return None;
        }
        let finished = fold.nodes[node].activations.last()?.finished.as_ref()?;
        let output: Value = serde_json::from_str(&finished.output).ok()?;
        let (field, value) = output.as_object()?.iter().next()?;
        let field = field.replace('~', "~0").replace('/', "~1");
        Some(format!("{}:/{field}={value}", planned.id))
    }

    fn headline(&self, fold: &GraphFold, outcome: &Outcome) -> Line<'static> {
        let last = fold
            .path
            .last()
            .and_then(|n| Some(fold.graph.as_ref()?.plan.nodes[*n].id.clone()));
        let (words, colour) = match outcome.status {
            RunStatus::Ok => ("COMPLETED", theme::GO),
            RunStatus::Stopped => ("STOPPED", theme::BLOCK),
        };
        let at = last
            .map(|id| format!(" AT {}", fit(&id, 30)))
            .unwrap_or_default();
        Line::styled(format!("GRAPH {words}{at}"), theme::headline(colour))
    }

    /// The path taken and the nodes' states.
    fn tally(&self, fold: &GraphFold, _outcome: &Outcome) -> Vec<Line<'static>> {
        let Some(graph) = &fold.graph else {
            return Vec::new();
        };
        let mut path: Vec<&str> = fold
            .path
            .iter()
            .take(40)
            .map(|n| graph.plan.nodes[*n].id.as_str())
            .collect();
        if fold.path.len() > 40 {
            path.push("…");
        }
        let count = |state| fold.nodes.iter().filter(|n| n.state == state).count();
        vec![
            row("path        ", fit(&path.join(" → "), 200)),
            row(
                "nodes       ",
                format!(
                    "{} done, {} failed, {} skipped, {} never ran",
                    count(NodeState::Done),
                    count(NodeState::Failed),
                    count(NodeState::Skipped),
                    fold.nodes
                        .iter()
                        .filter(|n| n.visits == 0 && n.state != NodeState::Skipped)
                        .count(),
                ),
            ),
            row("steps       ", plural(u64::from(fold.steps), "activation")),
        ]
    }

    /// Failed nodes, counted.
    fn shortfall(&self, fold: &GraphFold) -> Option<Shortfall> {
        let failed = fold
            .nodes
            .iter()
            .filter(|n| n.state == NodeState::Failed)
            .count();
        (failed > 0).then(|| Shortfall {
            words: format!("{} failed", plural(failed as u64, "node")),
            lacking: true,
        })
    }

    fn later(&self) -> &'static str {
        "The path the run took and its stop appear here when the run ends."
    }
}

fn row(label: &'static str, text: String) -> Line<'static> {
    Line::from(vec![Span::styled(label, theme::dim()), Span::raw(text)])
}
