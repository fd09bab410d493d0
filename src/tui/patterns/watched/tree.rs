//! A watched trace's spans as the rows of a tree, ready to draw: depth
//! first from the tops, children in the order they started, each with its
//! duration, whether it still runs (a parent named by its children that
//! has not arrived: spans arrive when they end, so a placeholder is a
//! parent still running) and whether it lies on the critical path. Pure:
//! the forest in, rows out; the pane draws them and mutates nothing.

use crate::span::SpanId;
#[cfg(test)]
use crate::watch::forest::Forest;

/// One row of the span tree; its span is the forest's (a row is kept
/// between readings, so it holds the id, not the span).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct TreeRow {
    pub(crate) id: SpanId,
    /// For each level above this row, whether that ancestor was the last
    /// of its siblings (the pane draws `│` where it was not); the row's
    /// own place is the last entry.
    pub(crate) lasts: Vec<bool>,
    /// How long the span took; for a placeholder, the time its children
    /// cover so far.
    pub(crate) ms: u64,
    pub(crate) running: bool,
    pub(crate) critical: bool,
}

#[cfg(test)]
/// Where a subtree starts and ends, in nanoseconds: the span's own times,
/// or for a placeholder the earliest start and latest end below it.
fn extent(forest: &Forest, id: SpanId) -> (u64, u64) {
    let mut lo = u64::MAX;
    let mut hi = 0;
    let mut stack = vec![id];
    let mut seen = 0usize;
    while let Some(at) = stack.pop() {
        seen += 1;
        if seen > forest.len() + 1 {
            break;
        }
        let Some(node) = forest.get(at) else { continue };
        if let Some(span) = &node.span {
            lo = lo.min(span.start_ns);
            hi = hi.max(span.end_ns.max(span.start_ns));
            continue;
        }
        stack.extend(node.children.iter().copied());
    }
    if lo == u64::MAX { (0, 0) } else { (lo, hi) }
}

#[cfg(test)]
/// A node's children in the order they started (arrival breaks ties).
fn children_by_start(forest: &Forest, id: SpanId) -> Vec<(SpanId, (u64, u64))> {
    let Some(node) = forest.get(id) else {
        return Vec::new();
    };
    let mut children: Vec<(SpanId, (u64, u64))> = node
        .children
        .iter()
        .map(|c| (*c, extent(forest, *c)))
        .collect();
    children.sort_by_key(|(_, (start, _))| *start);
    children
}

#[cfg(test)]
/// The critical path: from the top that ends last (the root, once it has
/// arrived), down through the child that ends last at every level; the
/// span that finished last is what held its parent up, as trace viewers
/// mark it.
pub(crate) fn critical_path(forest: &Forest) -> Vec<SpanId> {
    let root = forest.root().map(|r| r.span_id);
    let top = root.or_else(|| {
        forest
            .tops()
            .into_iter()
            .max_by_key(|t| extent(forest, *t).1)
    });
    let mut path = Vec::new();
    let mut at = top;
    while let Some(id) = at {
        if path.len() > forest.len() {
            break;
        }
        path.push(id);
        at = children_by_start(forest, id)
            .into_iter()
            .rev()
            .max_by_key(|(_, (_, end))| *end)
            .map(|(c, _)| c);
    }
    path
}

#[cfg(test)]
/// Every node of `forest` as a row, depth first.
pub(crate) fn rows(forest: &Forest) -> Vec<TreeRow> {
    let critical = critical_path(forest);
    let mut out = Vec::new();
    let tops = forest.tops();
    let mut stack: Vec<(SpanId, Vec<bool>)> = tops
        .iter()
        .enumerate()
        .rev()
        .map(|(i, id)| (*id, vec![i + 1 == tops.len()]))
        .collect();
    while let Some((id, lasts)) = stack.pop() {
        // A forest is acyclic (watch::forest cuts circles); this bounds
        // the walk whatever it holds.
        if out.len() > forest.len() * 2 + 1 {
            break;
        }
        let Some(node) = forest.get(id) else { continue };
        let (start, end) = extent(forest, id);
        out.push(TreeRow {
            id,
            lasts: lasts.clone(),
            ms: end.saturating_sub(start) / 1_000_000,
            running: node.is_running(),
            critical: critical.contains(&id),
        });
        let children = children_by_start(forest, id);
        let n = children.len();
        for (i, (child, _)) in children.into_iter().enumerate().rev() {
            let mut below = lasts.clone();
            below.push(i + 1 == n);
            stack.push((child, below));
        }
    }
    out
}
