//! The graph drawn into the pane: the forward edges' turns in the gaps
//! between layers, the passing edges through the layers, the back edges up
//! their lanes, then each node's box (or line, compact) in its state's
//! colour with its glyph and visits. The view is centred on the selected
//! node, so scrolling follows the selection; only what the view meets is
//! walked.

use super::canvas::{Canvas, DOWN, UP};
use super::geometry::{GAP, Geometry, Zoom};
use super::layout::Slot;
use super::live::{EdgeEval, NodeLive};
use super::state::GraphFold;
use crate::tui::text::fit;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use unicode_width::UnicodeWidthChar;

/// The view's corner on the plane: the selected node's centre in the
/// middle of `area` where the plane allows.
pub(crate) fn origin(geometry: &Geometry, selected: Option<usize>, area: Rect) -> (u32, u32) {
    let (width, height) = geometry.size();
    let Some(node) = selected else {
        return (0, 0);
    };
    let (x, y, w, h) = geometry.node_box(node);
    let centre = |at: u32, size: u32, view: u16, whole: u32| {
        (at + size / 2)
            .saturating_sub(u32::from(view) / 2)
            .min(whole.saturating_sub(u32::from(view)))
    };
    (
        centre(x, w, area.width, width),
        centre(y, h, area.height, height),
    )
}

/// Draw the graph into `area` of `buffer` at `zoom`, `selected` marked.
pub(crate) fn draw(
    buffer: &mut Buffer,
    area: Rect,
    fold: &GraphFold,
    selected: Option<usize>,
    zoom: Zoom,
) {
    let Some(graph) = &fold.graph else {
        return;
    };
    let geometry = Geometry::new(&graph.layout, zoom);
    // A graph narrower than the pane stands in its middle.
    let width = geometry.size().0;
    let mut area = area;
    if let Ok(width) = u16::try_from(width)
        && width < area.width
    {
        area.x += (area.width - width) / 2;
        area.width = width;
    }
    let (left, top) = origin(&geometry, selected, area);
    let (right, bottom) = (left + u32::from(area.width), top + u32::from(area.height));
    let mut canvas = Canvas::new(left, top, area.width, area.height);
    let layers = geometry.layers_in(top, bottom);
    for l in layers.clone() {
        forward(&mut canvas, &geometry, fold, l);
        let band = (
            geometry.layer_top(l),
            geometry.layer_top(l) + geometry.node_height() - 1,
        );
        for i in geometry.slots_in(l, left, right) {
            if let Slot::Pass(e) = graph.layout.layers[l][i] {
                let x = geometry.slot_centre(l, i);
                canvas.mark(
                    x,
                    band.0,
                    UP | DOWN,
                    edge_style(fold.edges[e].as_ref(), false),
                );
                canvas.along(x, band.0, band.1, edge_style(fold.edges[e].as_ref(), false));
                canvas.mark(
                    x,
                    band.1,
                    UP | DOWN,
                    edge_style(fold.edges[e].as_ref(), false),
                );
            }
        }
    }
    for (k, &e) in graph.layout.back.iter().enumerate() {
        back(&mut canvas, &geometry, fold, e, k);
    }
    canvas.paint(buffer, area);
    let view = View { left, top, area };
    for l in layers {
        for i in geometry.slots_in(l, left, right) {
            if let Slot::Node(n) = graph.layout.layers[l][i] {
                let label = &graph.plan.nodes[n];
                let boxed = geometry.node_box(n);
                let live = &fold.nodes[n];
                let chosen = selected == Some(n);
                match zoom {
                    Zoom::Boxes => boxed_node(buffer, &view, boxed, label, live, chosen),
                    Zoom::Compact => line_node(buffer, &view, boxed, label, live, chosen),
                }
            }
        }
    }
}

/// An edge's colour: green where last taken, dim where last not, magenta
/// for a loop's return not yet taken.
fn edge_style(eval: Option<&EdgeEval>, back: bool) -> Style {
    match eval {
        Some(eval) if eval.taken => Style::default().fg(Color::Green),
        Some(_) => Style::default().fg(Color::DarkGray),
        None if back => Style::default().fg(Color::Magenta),
        None => Style::default().fg(Color::Gray),
    }
}

/// The segments from layer `l` down to the next: down from the source
/// into the gap, across to the target's column, down to an arrowhead.
fn forward(canvas: &mut Canvas, geometry: &Geometry, fold: &GraphFold, l: usize) {
    let layout = geometry.layout;
    let Some(segments) = layout.down.get(l) else {
        return;
    };
    let turn = geometry.layer_top(l) + geometry.node_height();
    for segment in segments {
        let style = edge_style(fold.edges[segment.edge].as_ref(), false);
        let from = geometry.slot_centre(l, segment.from as usize);
        let to = geometry.slot_centre(l + 1, segment.to as usize);
        canvas.mark(from, turn, UP, style);
        canvas.across(turn, from, to, style);
        canvas.mark(to, turn, DOWN, style);
        canvas.mark(to, turn + 1, UP | DOWN, style);
        match layout.layers[l + 1][segment.to as usize] {
            Slot::Node(_) => canvas.glyph(to, turn + 2, '▼', style),
            Slot::Pass(_) => canvas.mark(to, turn + 2, UP | DOWN, style),
        }
    }
}

/// The `k`th back edge: down out of its source, right to its lane, up the
/// lane, left along the gap above its target, down into it.
fn back(canvas: &mut Canvas, geometry: &Geometry, fold: &GraphFold, e: usize, k: usize) {
    let Some(graph) = &fold.graph else {
        return;
    };
    let edge = &graph.plan.edges[e];
    let style = edge_style(fold.edges[e].as_ref(), true);
    let (sx, sy, sw, sh) = geometry.node_box(edge.from);
    let (tx, ty, tw, _) = geometry.node_box(edge.to);
    let (out, into) = (sx + sw / 2 + 2, tx + tw / 2 + 2);
    let (leave, arrive) = (sy + sh + 1, ty - GAP + 1);
    let lane = geometry.lane(k);
    canvas.mark(out, sy + sh, UP | DOWN, style);
    canvas.mark(out, leave, UP, style);
    canvas.across(leave, out, lane, style);
    canvas.mark(lane, leave, UP, style);
    canvas.along(lane, arrive, leave, style);
    canvas.mark(lane, arrive, DOWN, style);
    canvas.across(arrive, into, lane, style);
    canvas.mark(into, arrive, DOWN, style);
    canvas.glyph(into, arrive + 1, '▼', style);
}

/// Where the view stands: the plane's column and row at `area`'s corner.
struct View {
    left: u32,
    top: u32,
    area: Rect,
}

impl View {
    /// Write `text` from the plane's (`x`, `y`), clipped to the view.
    fn put(&self, buffer: &mut Buffer, x: u32, y: u32, text: &str, style: Style) {
        let Some(row) = y.checked_sub(self.top) else {
            return;
        };
        if row >= u32::from(self.area.height) {
            return;
        }
        let mut x = x;
        for c in text.chars() {
            let width = c.width().unwrap_or(0) as u32;
            if width == 0 {
                continue;
            }
            if let Some(column) = x.checked_sub(self.left)
                && column + width <= u32::from(self.area.width)
            {
                let at = (self.area.x + column as u16, self.area.y + row as u16);
                buffer[at].set_char(c).set_style(style);
                if width == 2 {
                    buffer[(at.0 + 1, at.1)].set_symbol("");
                }
            }
            x += width;
        }
    }
}

/// Visits in words: `×2`, or `×2/3` against the node's bound.
fn visits(live: &NodeLive, max: Option<u32>) -> String {
    match (live.visits, max) {
        (0, _) => String::new(),
        (n, Some(max)) => format!("×{n}/{max}"),
        (n, None) => format!("×{n}"),
    }
}

/// What a box's second line says: the state, a map's items or a join's
/// arrivals, the visits.
pub(crate) fn status(live: &NodeLive, max: Option<u32>) -> String {
    let mut words = live.state.word().to_string();
    if let Some(map) = live.map {
        words = format!("{words} {}/{}", map.done + map.failed, map.of);
    } else if let Some(join) = live.join.as_ref().filter(|j| !j.fired) {
        let all = join.arrived.len() + join.waiting_on.len();
        words = format!("{words} {}/{all}", join.arrived.len());
    }
    format!("{words} {}", visits(live, max))
}

fn boxed_node(
    buffer: &mut Buffer,
    view: &View,
    (x, y, w, _): (u32, u32, u32, u32),
    label: &super::plan::PlanNode,
    live: &NodeLive,
    chosen: bool,
) {
    let mut style = live.state.style();
    if chosen {
        style = style.add_modifier(Modifier::BOLD);
    }
    let inner = w as usize - 2;
    let [tl, tr, bl, br, h, v] = if chosen {
        ['╔', '╗', '╚', '╝', '═', '║']
    } else {
        ['┌', '┐', '└', '┘', '─', '│']
    };
    let what = if label.label.is_empty() {
        fit(&label.kind, inner)
    } else {
        fit(&format!("{}·{}", label.kind, label.label), inner)
    };
    let rule = |text: &str| -> String {
        let used = text.chars().count();
        text.chars()
            .chain(std::iter::repeat_n(h, inner.saturating_sub(used)))
            .collect()
    };
    view.put(buffer, x, y, &format!("{tl}{}{tr}", rule(&what)), style);
    let id = fit(&format!("{} {}", live.state.glyph(), label.id), inner);
    let line = fit(&status(live, label.max_visits), inner);
    for (dy, text) in [(1, id), (2, line)] {
        view.put(buffer, x, y + dy, &format!("{v}{text:<inner$}{v}"), style);
    }
    view.put(buffer, x, y + 3, &format!("{bl}{}{br}", rule("")), style);
}

fn line_node(
    buffer: &mut Buffer,
    view: &View,
    (x, y, w, _): (u32, u32, u32, u32),
    label: &super::plan::PlanNode,
    live: &NodeLive,
    chosen: bool,
) {
    let mut style = live.state.style();
    if chosen {
        style = style.add_modifier(Modifier::REVERSED | Modifier::BOLD);
    }
    let width = w as usize;
    let text = fit(
        &format!(
            "{} {} {}",
            live.state.glyph(),
            label.id,
            visits(live, label.max_visits)
        ),
        width,
    );
    view.put(buffer, x, y, &format!("{text:<width$}"), style);
}
