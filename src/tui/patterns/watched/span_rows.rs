//! The span tree's rows kept as spans arrive: each span takes its place
//! in depth-first order when it comes (among its siblings by start), a
//! placeholder is made for a parent named and not yet arrived, and filled
//! when the parent comes, its rows moving under the parent's. Adding a
//! span costs its depth and its siblings' count, never the run's size;
//! drawing reads only the rows shown. What `tree::rows` makes from
//! scratch, row for row (the tests hold them equal on every captured
//! trace and on random arrival orders).

use super::tree::TreeRow;
use crate::span::SpanId;
use crate::watch::forest::Forest;
use std::collections::HashMap;

/// One node's place: its children in the order drawn, how many rows its
/// subtree holds, the time it covers and the child that ended last.
#[derive(Clone, Debug)]
struct Place {
    /// The children by start, arrival breaking ties: `(start, arrival,
    /// id)`. Only spans that arrived are children (a placeholder is
    /// always at the top), so a child's key never changes.
    children: Vec<(u64, u64, SpanId)>,
    /// The rows of the subtree, its own included.
    size: usize,
    /// Where it starts and ends (ns): the span's own times, or for a
    /// placeholder the earliest start and latest end of its children.
    lo: u64,
    hi: u64,
    /// The child that ended last, the earliest to start among those that
    /// ended together: `(end, start, arrival, id)`.
    last: Option<(u64, u64, u64, SpanId)>,
}

impl Place {
    fn new() -> Place {
        Place {
            children: Vec::new(),
            size: 1,
            lo: u64::MAX,
            hi: 0,
            last: None,
        }
    }

    /// The time it covers, in ms.
    fn ms(&self) -> u64 {
        if self.lo == u64::MAX {
            0
        } else {
            self.hi.saturating_sub(self.lo) / 1_000_000
        }
    }
}

/// The rows of one trace's span tree.
#[derive(Clone, Debug, Default)]
pub(crate) struct SpanRows {
    places: HashMap<SpanId, Place>,
    /// The spans at the top that arrived, in arrival order; then the
    /// placeholders, by id (as `Forest::tops` orders them).
    tops: Vec<SpanId>,
    waiting: Vec<SpanId>,
    /// The first span that arrived without a parent.
    root: Option<SpanId>,
}

/// Where the walk of the rows stands at one level: the level's nodes (a
/// parent's children, or the tops) and the index among them.
struct Frame<'a> {
    level: Level<'a>,
    at: usize,
}

#[derive(Clone, Copy)]
enum Level<'a> {
    Tops,
    Under(&'a [(u64, u64, SpanId)]),
}

impl SpanRows {
    /// How many rows the tree has: every span and placeholder.
    pub(crate) fn len(&self) -> usize {
        self.places.len()
    }

    /// Take the span `id` that `forest` has just kept (its parent as the
    /// forest holds it: a cut circle has none).
    pub(crate) fn insert(&mut self, forest: &Forest, id: SpanId) {
        let Some(node) = forest.get(id) else { return };
        let Some(span) = &node.span else { return };
        let (start, end) = (span.start_ns, span.end_ns.max(span.start_ns));
        if span.parent.is_none() && self.root.is_none() {
            self.root = Some(id);
        }
        let filled = self.places.contains_key(&id);
        let place = self.places.entry(id).or_insert_with(Place::new);
        (place.lo, place.hi) = (start, end);
        let size = place.size;
        if filled && let Ok(i) = self.waiting.binary_search(&id) {
            self.waiting.remove(i);
        }
        let Some(parent) = node.parent else {
            self.tops.push(id);
            return;
        };
        let placeholder = forest.get(parent).is_some_and(|n| n.span.is_none());
        let waiting = &mut self.waiting;
        let above = self.places.entry(parent).or_insert_with(|| {
            // A placeholder for the parent named, at the top by its id.
            if let Err(i) = waiting.binary_search(&parent) {
                waiting.insert(i, parent);
            }
            Place::new()
        });
        let key = (start, node.arrival, id);
        let at = above.children.partition_point(|c| *c < key);
        above.children.insert(at, key);
        let ended = (end, start, node.arrival, id);
        let later = |l: &(u64, u64, u64, SpanId)| {
            ended.0 > l.0 || (ended.0 == l.0 && (ended.1, ended.2) < (l.1, l.2))
        };
        if above.last.as_ref().is_none_or(later) {
            above.last = Some(ended);
        }
        if placeholder {
            above.lo = above.lo.min(start);
            above.hi = above.hi.max(end);
        }
        self.grow(forest, parent, size);
    }

    /// Add `rows` to the subtree sizes from `from` up to its top.
    fn grow(&mut self, forest: &Forest, from: SpanId, rows: usize) {
        let mut at = Some(from);
        // A forest has no circles; the bound holds whatever it holds.
        for _ in 0..=self.places.len() {
            let Some(id) = at else { break };
            if let Some(place) = self.places.get_mut(&id) {
                place.size += rows;
            }
            at = forest.get(id).and_then(|n| n.parent);
        }
    }

    fn level_len(&self, level: Level) -> usize {
        match level {
            Level::Tops => self.tops.len() + self.waiting.len(),
            Level::Under(children) => children.len(),
        }
    }

    fn node_at(&self, level: Level, at: usize) -> Option<SpanId> {
        match level {
            Level::Tops => self
                .tops
                .get(at)
                .or_else(|| self.waiting.get(at - self.tops.len()))
                .copied(),
            Level::Under(children) => children.get(at).map(|c| c.2),
        }
    }

    fn size(&self, id: SpanId) -> usize {
        self.places.get(&id).map_or(0, |p| p.size)
    }

    /// The walk down to row `index`: a frame a level, the row's own last.
    fn path_to(&self, mut index: usize) -> Vec<Frame<'_>> {
        let mut path = Vec::new();
        let mut level = Level::Tops;
        loop {
            let mut at = 0;
            let n = self.level_len(level);
            while at < n {
                let size = self.node_at(level, at).map_or(0, |id| self.size(id));
                if index < size {
                    break;
                }
                index -= size;
                at += 1;
            }
            if at == n || path.len() > self.places.len() {
                return Vec::new();
            }
            path.push(Frame { level, at });
            if index == 0 {
                return path;
            }
            index -= 1;
            let Some(place) = self.node_at(level, at).and_then(|id| self.places.get(&id)) else {
                return Vec::new();
            };
            level = Level::Under(&place.children);
        }
    }

    /// The critical path: from the root, or before it comes the top that
    /// ends last (the last of those that end together), down through the
    /// child that ended last at every level.
    fn critical(&self) -> Vec<SpanId> {
        let top = self.root.or_else(|| {
            let tops = self.tops.iter().chain(&self.waiting);
            tops.max_by_key(|id| self.places.get(id).map_or(0, |p| p.hi))
                .copied()
        });
        let mut path = Vec::new();
        let mut at = top;
        while let Some(id) = at {
            if path.len() > self.places.len() {
                break;
            }
            path.push(id);
            at = self.places.get(&id).and_then(|p| p.last).map(|l| l.3);
        }
        path
    }

    /// `count` rows from row `first` on, as `tree::rows` makes them.
    pub(crate) fn window(&self, forest: &Forest, first: usize, count: usize) -> Vec<TreeRow> {
        let critical = self.critical();
        let mut path = self.path_to(first);
        let mut out = Vec::new();
        while out.len() < count {
            let Some(frame) = path.last() else { break };
            let Some(id) = self.node_at(frame.level, frame.at) else {
                break;
            };
            let lasts = path
                .iter()
                .map(|f| f.at + 1 == self.level_len(f.level))
                .collect();
            let place = self.places.get(&id);
            out.push(TreeRow {
                id,
                lasts,
                ms: place.map_or(0, Place::ms),
                running: forest.get(id).is_none_or(|n| n.span.is_none()),
                critical: critical.contains(&id),
            });
            match place {
                Some(place) if !place.children.is_empty() && path.len() <= self.places.len() => {
                    path.push(Frame {
                        level: Level::Under(&place.children),
                        at: 0,
                    });
                }
                _ => {
                    // On to the next sibling, or the next of an ancestor.
                    while let Some(frame) = path.last_mut() {
                        frame.at += 1;
                        if frame.at < self.level_len(frame.level) {
                            break;
                        }
                        path.pop();
                    }
                }
            }
        }
        out
    }

    /// Every row's span in order, in one walk (what a search reads
    /// through: a look-up a row would walk down from the top each time).
    pub(crate) fn ids(&self) -> Vec<SpanId> {
        let mut out = Vec::with_capacity(self.len());
        let mut stack: Vec<SpanId> = self
            .tops
            .iter()
            .chain(&self.waiting)
            .rev()
            .copied()
            .collect();
        while let Some(id) = stack.pop() {
            if out.len() >= self.len() {
                break;
            }
            out.push(id);
            if let Some(place) = self.places.get(&id) {
                stack.extend(place.children.iter().rev().map(|c| c.2));
            }
        }
        out
    }

    /// The row of span (or placeholder) `id`, as `forest` holds it now:
    /// the walk up from it, counting the rows before it at each level.
    pub(crate) fn row_of(&self, forest: &Forest, id: SpanId) -> Option<usize> {
        self.places.get(&id)?;
        let mut index = 0;
        let mut at = id;
        for _ in 0..=self.places.len() {
            let before = |siblings: &mut dyn Iterator<Item = SpanId>| -> Option<usize> {
                let mut rows = 0;
                for sibling in siblings {
                    if sibling == at {
                        return Some(rows);
                    }
                    rows += self.size(sibling);
                }
                None
            };
            match forest.get(at).and_then(|n| n.parent) {
                Some(parent) => {
                    let children = &self.places.get(&parent)?.children;
                    index += 1 + before(&mut children.iter().map(|c| c.2))?;
                    at = parent;
                }
                None => {
                    let mut tops = self.tops.iter().chain(&self.waiting).copied();
                    return Some(index + before(&mut tops)?);
                }
            }
        }
        None
    }

    /// The span on row `index`.
    pub(crate) fn id_at(&self, index: usize) -> Option<SpanId> {
        let path = self.path_to(index);
        let frame = path.last()?;
        self.node_at(frame.level, frame.at)
    }
}
