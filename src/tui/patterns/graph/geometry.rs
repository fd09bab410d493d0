//! Where the layout's slots stand on the pane's plane at a zoom: sizes,
//! each layer centred on the widest, the rows of the gaps between layers
//! and the lanes right of the graph where back edges return up. Every
//! place is computed from counts the layout keeps, in constant time, so a
//! frame finds what it shows without walking the graph.

use super::layout::{Layout, Slot};

/// How much of each node the pane draws.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Zoom {
    /// A box per node with its state and visits.
    #[default]
    Boxes,
    /// A line per node: its state's glyph, its id and visits.
    Compact,
}

impl Zoom {
    pub(crate) fn word(self) -> &'static str {
        match self {
            Zoom::Boxes => "boxes",
            Zoom::Compact => "compact",
        }
    }
}

/// Rows between two layers: the forward edges' turns, the back edges'
/// returns, the arrowheads.
pub(crate) const GAP: u32 = 3;
/// Columns between two slots of a layer.
const SPACE: u32 = 2;
/// Columns a passing edge takes.
const PASS: u32 = 1;

/// The layout on the plane at one zoom.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Geometry<'a> {
    pub(crate) layout: &'a Layout,
    pub(crate) zoom: Zoom,
    /// Width of the widest layer.
    pub(crate) graph_width: u32,
    /// Rows above the first layer: a gap when a back edge returns to it.
    top: u32,
}

impl<'a> Geometry<'a> {
    pub(crate) fn new(layout: &'a Layout, zoom: Zoom) -> Self {
        let mut geometry = Geometry {
            layout,
            zoom,
            graph_width: 0,
            top: if layout.top_gap { GAP } else { 0 },
        };
        geometry.graph_width = (0..layout.layers.len())
            .map(|l| geometry.layer_width(l))
            .max()
            .unwrap_or(0);
        geometry
    }

    pub(crate) fn node_width(&self) -> u32 {
        match self.zoom {
            Zoom::Boxes => 20,
            Zoom::Compact => 14,
        }
    }

    pub(crate) fn node_height(&self) -> u32 {
        match self.zoom {
            Zoom::Boxes => 4,
            Zoom::Compact => 1,
        }
    }

    fn layer_width(&self, l: usize) -> u32 {
        let (nodes, passes) = self.layout.counts(l);
        let slots = (nodes + passes) as u32;
        nodes as u32 * self.node_width() + passes as u32 * PASS + slots.saturating_sub(1) * SPACE
    }

    /// The plane's size: the layers and the back edges' lanes (with a
    /// gap under the last layer for the returns that leave it).
    pub(crate) fn size(&self) -> (u32, u32) {
        let lanes = self.layout.back.len() as u32;
        let width = self.graph_width + if lanes > 0 { 1 + 2 * lanes } else { 0 };
        let layers = self.layout.layers.len() as u32;
        let under = if lanes > 0 { 0 } else { GAP };
        let height = (self.top + layers * (self.node_height() + GAP)).saturating_sub(under);
        (width, height)
    }

    /// The top row of layer `l`.
    pub(crate) fn layer_top(&self, l: usize) -> u32 {
        self.top + l as u32 * (self.node_height() + GAP)
    }

    /// The left column of the slot at `index` in layer `l`.
    pub(crate) fn slot_left(&self, l: usize, index: usize) -> u32 {
        let nodes = self.layout.nodes_before[l][index];
        let passes = index as u32 - nodes;
        let indent = (self.graph_width - self.layer_width(l)) / 2;
        indent + nodes * self.node_width() + passes * PASS + index as u32 * SPACE
    }

    /// The column where edges leave and enter the slot.
    pub(crate) fn slot_centre(&self, l: usize, index: usize) -> u32 {
        let left = self.slot_left(l, index);
        match self.layout.layers[l][index] {
            Slot::Node(_) => left + self.node_width() / 2,
            Slot::Pass(_) => left,
        }
    }

    /// The column of the `k`th back edge's lane.
    pub(crate) fn lane(&self, k: usize) -> u32 {
        self.graph_width + 1 + 2 * k as u32
    }

    /// The node's box: left, top, width, height.
    pub(crate) fn node_box(&self, node: usize) -> (u32, u32, u32, u32) {
        let (l, i) = self.layout.place[node];
        (
            self.slot_left(l as usize, i as usize),
            self.layer_top(l as usize),
            self.node_width(),
            self.node_height(),
        )
    }

    /// The layers whose rows or whose gap below meet rows `top..bottom`.
    pub(crate) fn layers_in(&self, top: u32, bottom: u32) -> std::ops::Range<usize> {
        let band = self.node_height() + GAP;
        let first = top.saturating_sub(self.top) / band;
        let last = bottom.saturating_sub(self.top) / band + 1;
        let layers = self.layout.layers.len();
        (first as usize).min(layers)..(last as usize).min(layers)
    }

    /// The slots of layer `l` that meet columns `left..right`, by place.
    pub(crate) fn slots_in(&self, l: usize, left: u32, right: u32) -> std::ops::Range<usize> {
        let slots = self.layout.layers[l].len();
        let first = partition(slots, |i| self.slot_left(l, i) + self.node_width() <= left);
        let last = partition(slots, |i| self.slot_left(l, i) < right);
        first..last.max(first)
    }
}

/// The first index in `0..len` where `before` stops holding (it holds
/// for a prefix).
fn partition(len: usize, before: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, len);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if before(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}
