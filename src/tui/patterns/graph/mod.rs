//! The graph pattern's part of the dashboard. A stub until its pane is
//! built: a fold of the activations in order (the path) with each node's
//! last status, drawn as one line per activation, and the event log's
//! colours of its events.

use super::unit::{Seen, Unit};
use crate::bus::{EventKind, RunStarted, RunStatus};
use crate::patterns::events::{ActivationStatus, GraphEvent, PatternEvent};
use crate::tui::keymap::Action;
use crate::tui::selection::{ListView, Shown};
use crate::tui::state::outcome::Outcome;
use crate::tui::theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;
use serde_json::{Value, json};

pub(crate) mod log {
    //! How the event log colours the graph pattern's events.

    use crate::patterns::events::{ActivationStatus, GraphEvent};
    use crate::tui::theme;
    use ratatui::style::Style;

    /// The colour of the event's line in the event log.
    pub(crate) fn style(event: &GraphEvent) -> Style {
        match event {
            GraphEvent::NodeFinished { status, .. } if *status != ActivationStatus::Ok => {
                theme::error()
            }
            GraphEvent::NodeStarted { .. } | GraphEvent::HumanAsked { .. } => theme::bold(),
            GraphEvent::NodeFinished { .. } | GraphEvent::JoinFired { .. } => {
                Style::default().fg(theme::GO)
            }
            _ => theme::dim(),
        }
    }
}

/// One activation as the stub pane lists it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Activation {
    pub(crate) node: String,
    pub(crate) step: u32,
    pub(crate) visit: u32,
    /// `None` while it runs.
    pub(crate) status: Option<ActivationStatus>,
}

/// The run's activations in the order they started.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct GraphFold {
    pub(crate) path: Vec<Activation>,
}

impl super::folding::Fold for GraphFold {
    fn apply(&mut self, kind: &EventKind, _t_ms: u64) {
        let EventKind::Pattern(PatternEvent::Graph(event)) = kind else {
            return;
        };
        match event {
            GraphEvent::NodeStarted {
                node, visit, step, ..
            } => self.path.push(Activation {
                node: node.clone(),
                step: *step,
                visit: *visit,
                status: None,
            }),
            GraphEvent::NodeFinished { step, status, .. } => {
                if let Some(a) = self.path.iter_mut().rev().find(|a| a.step == *step) {
                    a.status = Some(*status);
                }
            }
            _ => {}
        }
    }

    fn close(&mut self, _outcome: &Outcome) {}
}

pub(crate) struct GraphUnit;

fn shown(fold: &GraphFold) -> Shown {
    let len = fold.path.len();
    Shown::all(len, len.checked_sub(1))
}

fn words(a: &Activation) -> String {
    let status = a.status.map_or("running", ActivationStatus::as_str);
    format!("step {}  {} #{}  {status}", a.step, a.node, a.visit)
}

impl Unit for GraphUnit {
    type Fold = GraphFold;
    type Selection = ListView;

    fn seat(&self, _started: &RunStarted) -> GraphFold {
        GraphFold::default()
    }

    fn gate_word(&self) -> &'static str {
        "step"
    }

    fn navigate(&self, selection: &mut ListView, action: Action, fold: &GraphFold, page: usize) {
        selection.navigate(action, &shown(fold), page, &[]);
    }

    fn wanted_height(&self, fold: &GraphFold) -> u16 {
        u16::try_from(fold.path.len().clamp(3, 20) + 2).unwrap_or(22)
    }

    fn draw(
        &self,
        frame: &mut Frame,
        area: Rect,
        fold: &GraphFold,
        _selection: &ListView,
        _seen: Seen,
    ) {
        let skip = fold.path.len().saturating_sub(usize::from(area.height));
        let lines: Vec<Line> = fold.path[skip..]
            .iter()
            .map(|a| Line::raw(crate::sanitize::clean(&words(a)).into_owned()))
            .collect();
        frame.render_widget(Paragraph::new(lines), area);
    }

    fn details(&self, fold: &GraphFold, selection: &ListView) -> Option<Value> {
        let a = fold.path.get(selection.item(&shown(fold))?)?;
        Some(json!({"node": a.node, "step": a.step, "visit": a.visit,
            "status": a.status.map(ActivationStatus::as_str)}))
    }

    fn headline(&self, _fold: &GraphFold, outcome: &Outcome) -> Line<'static> {
        if outcome.status == RunStatus::Ok {
            Line::styled("GRAPH COMPLETED", theme::headline(theme::GO))
        } else {
            Line::styled("GRAPH STOPPED", theme::headline(theme::BLOCK))
        }
    }

    fn tally(&self, fold: &GraphFold, _outcome: &Outcome) -> Vec<Line<'static>> {
        let path: Vec<&str> = fold.path.iter().map(|a| a.node.as_str()).collect();
        vec![Line::raw(
            crate::sanitize::clean(&format!("path        {}", path.join(" → "))).into_owned(),
        )]
    }

    fn later(&self) -> &'static str {
        "The path the run took and its stop appear here when the run ends."
    }
}
