//! What the graph pane keeps between frames: the selected node (until one
//! is chosen, the node that started last, so the view follows the run)
//! and the zoom (until one is chosen, boxes for small graphs and lines for
//! large ones). Moves go along the graph: down to a successor, up to a
//! predecessor, sideways within a layer.

use super::geometry::Zoom;
use super::layout::Slot;
use super::state::GraphFold;
use super::team_pane::TeamPane;
use crate::tui::keymap::Action;

/// Graphs with more nodes than this open compact.
const LARGE_GRAPH: usize = 60;

#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct GraphView {
    pub(crate) node: Option<usize>,
    pub(crate) zoom: Option<Zoom>,
    /// The team pane opened on a team node, shown in place of the graph.
    pub(crate) team: Option<TeamPane>,
    /// Rows of the selected node's explanations scrolled past, in a small
    /// pane's list layout.
    pub(crate) words_scroll: usize,
}

impl GraphView {
    /// The selected node: the one chosen, else the last started, else the
    /// first planned.
    pub(crate) fn selected(&self, fold: &GraphFold) -> Option<usize> {
        let nodes = fold.nodes.len();
        self.node
            .filter(|n| *n < nodes)
            .or(fold.last_started)
            .or((nodes > 0).then_some(0))
    }

    pub(crate) fn zoom(&self, fold: &GraphFold) -> Zoom {
        self.zoom.unwrap_or(if fold.nodes.len() > LARGE_GRAPH {
            Zoom::Compact
        } else {
            Zoom::Boxes
        })
    }

    /// Apply a move; `page` is the pane's height in rows.
    pub(crate) fn navigate(&mut self, action: Action, fold: &GraphFold, page: usize) {
        if let Some(pane) = &mut self.team {
            match action {
                Action::Close => self.team = None,
                other => pane.navigate(other, fold, page),
            }
            return;
        }
        let Some(graph) = &fold.graph else {
            return;
        };
        let Some(at) = self.selected(fold) else {
            return;
        };
        let layout = &graph.layout;
        let (layer, place) = layout.place[at];
        let (layer, place) = (layer as usize, place as usize);
        let last = layout.layers.len().saturating_sub(1);
        let band = match self.zoom(fold) {
            Zoom::Boxes => 7,
            Zoom::Compact => 4,
        };
        if super::small::is_small(page) {
            // A small pane's page keys scroll the selected node's words.
            match action {
                Action::PageUp => {
                    self.words_scroll = self.words_scroll.saturating_sub(page.max(1));
                    return;
                }
                Action::PageDown => {
                    let rows = super::explain::lines(fold, at, 80).len();
                    self.words_scroll = (self.words_scroll + page.max(1)).min(rows);
                    return;
                }
                _ => {}
            }
        }
        let moved = match action {
            Action::Up => step(graph, at, -1),
            Action::Down => step(graph, at, 1),
            Action::Left => sideways(&layout.layers[layer], place, -1),
            Action::Right => sideways(&layout.layers[layer], place, 1),
            Action::PageUp => nearest(fold, layer.saturating_sub((page / band).max(1)), place, -1),
            Action::PageDown => nearest(fold, (layer + (page / band).max(1)).min(last), place, 1),
            Action::Top => nearest(fold, 0, 0, 1),
            Action::Bottom => nearest(fold, last, 0, -1),
            Action::Follow | Action::Close => {
                self.node = None;
                return;
            }
            Action::ZoomIn => {
                self.zoom = Some(Zoom::Boxes);
                return;
            }
            Action::ZoomOut => {
                self.zoom = Some(Zoom::Compact);
                return;
            }
            Action::Show => {
                self.zoom = Some(match self.zoom(fold) {
                    Zoom::Boxes => Zoom::Compact,
                    Zoom::Compact => Zoom::Boxes,
                });
                return;
            }
            _ => return,
        };
        if let Some(node) = moved {
            self.node = Some(node);
            self.words_scroll = 0;
        }
    }
}

/// From node `at` one layer down (`1`) or up (`-1`): the successor (or
/// predecessor) standing nearest, else the nearest node in the layers
/// that way.
fn step(graph: &super::state::Graph, at: usize, way: i64) -> Option<usize> {
    let plan = &graph.plan;
    let layout = &graph.layout;
    let (layer, place) = layout.place[at];
    let linked: Vec<usize> = if way > 0 {
        plan.out[at].iter().map(|e| plan.edges[*e].to).collect()
    } else {
        plan.edges
            .iter()
            .filter(|e| e.to == at)
            .map(|e| e.from)
            .collect()
    };
    let next = i64::from(layer) + way;
    let best = linked.into_iter().filter(|n| *n != at).min_by_key(|n| {
        let (l, p) = layout.place[*n];
        (
            (i64::from(l) - next).abs(),
            (i64::from(p) - i64::from(place)).abs(),
        )
    });
    if best.is_some() {
        return best;
    }
    let mut l = next;
    while l >= 0 && (l as usize) < layout.layers.len() {
        if let Some(n) = closest(&layout.layers[l as usize], place as usize) {
            return Some(n);
        }
        l += way;
    }
    None
}

/// The next node in the layer from `place` the `way` given.
fn sideways(layer: &[Slot], place: usize, way: i64) -> Option<usize> {
    let mut i = place as i64 + way;
    while i >= 0 && (i as usize) < layer.len() {
        if let Slot::Node(n) = layer[i as usize] {
            return Some(n);
        }
        i += way;
    }
    None
}

/// The node of `layer` nearest `place`, looking on in the layers the
/// `way` given when it holds none.
fn nearest(fold: &GraphFold, layer: usize, place: usize, way: i64) -> Option<usize> {
    let layers = &fold.graph.as_ref()?.layout.layers;
    let mut l = layer as i64;
    while l >= 0 && (l as usize) < layers.len() {
        if let Some(n) = closest(&layers[l as usize], place) {
            return Some(n);
        }
        l += way;
    }
    None
}

fn closest(layer: &[Slot], place: usize) -> Option<usize> {
    layer
        .iter()
        .enumerate()
        .filter_map(|(i, s)| match s {
            Slot::Node(n) => Some((i.abs_diff(place), *n)),
            Slot::Pass(_) => None,
        })
        .min()
        .map(|(_, n)| n)
}
