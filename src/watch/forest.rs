//! One trace's spans as a forest, built in whatever order they arrive.
//! A span whose parent has not arrived hangs under a placeholder for that
//! parent; when the parent comes it fills the placeholder, so its
//! children move under it without being touched. A placeholder is drawn
//! running: something is still going on above the spans that ended.
//! Hostile shapes never loop or grow without bound: a span that is its
//! own parent, or whose parent is below it (a circle), hangs at the top
//! instead; a span id sent twice keeps its first span; beyond the run's
//! span limit spans are counted as dropped.

use crate::span::{Span, SpanId};
use std::collections::HashMap;
use std::sync::Arc;

/// One place in the forest: a span that arrived, or a placeholder.
#[derive(Clone, Debug)]
pub(crate) struct Node {
    /// `None` for a placeholder: a parent named by a child, not yet
    /// arrived. Shared: the dashboard's events and its pane's forest hold
    /// the same span.
    pub(crate) span: Option<Arc<Span>>,
    /// The node above, as the forest holds it (a cut circle leaves none).
    pub(crate) parent: Option<SpanId>,
    /// The nodes below, in arrival order.
    pub(crate) children: Vec<SpanId>,
    /// 1, 2, 3 … in the order spans arrived (placeholders: 0).
    pub(crate) arrival: u64,
}

impl Node {
    #[cfg(test)]
    /// Whether the node is drawn running: a placeholder has not ended.
    pub(crate) fn is_running(&self) -> bool {
        self.span.is_none()
    }
}

/// What happened to one span handed to [`Forest::insert`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Inserted {
    /// Kept.
    Kept,
    /// Kept, but its parent link was cut: it named itself or a span below it.
    CutCircle,
    /// Not kept: its id was sent before.
    Duplicate,
    /// Not kept: the run holds its span limit.
    OverLimit,
}

/// One trace's spans.
#[derive(Clone, Debug)]
pub(crate) struct Forest {
    nodes: HashMap<SpanId, Node>,
    /// Span ids in arrival order (placeholders not included).
    order: Vec<SpanId>,
    limit: usize,
    /// Spans not kept (duplicates and over the limit).
    pub(crate) dropped: u64,
    /// Parent links cut to keep the forest a forest.
    pub(crate) cut: u64,
    /// A span with no parent arrived, kept or not (over the limit).
    rooted: bool,
}

impl Forest {
    /// An empty forest keeping at most `limit` spans.
    pub(crate) fn new(limit: usize) -> Forest {
        Forest {
            nodes: HashMap::new(),
            order: Vec::new(),
            limit,
            dropped: 0,
            cut: 0,
            rooted: false,
        }
    }

    /// Add one span as it arrives.
    pub(crate) fn insert(&mut self, span: impl Into<Arc<Span>>) -> Inserted {
        let span = span.into();
        let id = span.span_id;
        self.rooted |= span.parent.is_none();
        if self.nodes.get(&id).is_some_and(|n| n.span.is_some()) {
            self.dropped += 1;
            return Inserted::Duplicate;
        }
        // Placeholders count too: each stands for a span to come.
        if self.order.len() >= self.limit || self.nodes.len() >= self.limit.saturating_mul(2) {
            self.dropped += 1;
            return Inserted::OverLimit;
        }
        let mut outcome = Inserted::Kept;
        let parent = match span.parent {
            // Only a placeholder has spans below it already: a new id
            // cannot close a circle.
            Some(p) if p == id || (self.has_children(id) && self.is_below(p, id)) => {
                outcome = Inserted::CutCircle;
                self.cut += 1;
                None
            }
            other => other,
        };
        let arrival = self.order.len() as u64 + 1;
        self.order.push(id);
        let node = self.nodes.entry(id).or_insert_with(|| Node {
            span: None,
            parent: None,
            children: Vec::new(),
            arrival: 0,
        });
        node.span = Some(span);
        node.parent = parent;
        node.arrival = arrival;
        if let Some(p) = parent {
            let above = self.nodes.entry(p).or_insert_with(|| Node {
                span: None,
                parent: None,
                children: Vec::new(),
                arrival: 0,
            });
            above.children.push(id);
        }
        outcome
    }

    fn has_children(&self, id: SpanId) -> bool {
        self.nodes.get(&id).is_some_and(|n| !n.children.is_empty())
    }

    /// Whether `node` lies at or below `top`, walking up from `node`
    /// (at most as many steps as there are nodes).
    fn is_below(&self, node: SpanId, top: SpanId) -> bool {
        let mut at = Some(node);
        for _ in 0..=self.nodes.len() {
            match at {
                Some(id) if id == top => return true,
                Some(id) => at = self.nodes.get(&id).and_then(|n| n.parent),
                None => return false,
            }
        }
        true
    }

    /// The node of `id`.
    pub(crate) fn get(&self, id: SpanId) -> Option<&Node> {
        self.nodes.get(&id)
    }

    /// The spans in the order they arrived.
    pub(crate) fn arrived(&self) -> impl Iterator<Item = &Span> {
        self.order
            .iter()
            .filter_map(|id| self.nodes.get(id).and_then(|n| n.span.as_deref()))
    }

    /// How many spans arrived and were kept.
    pub(crate) fn len(&self) -> usize {
        self.order.len()
    }

    /// The nodes at the top, spans and placeholders, ordered by arrival
    /// (placeholders last).
    pub(crate) fn tops(&self) -> Vec<SpanId> {
        let mut tops: Vec<(u64, SpanId)> = self
            .nodes
            .iter()
            .filter(|(_, n)| n.parent.is_none())
            .map(|(id, n)| (if n.arrival == 0 { u64::MAX } else { n.arrival }, *id))
            .collect();
        tops.sort_unstable();
        tops.into_iter().map(|(_, id)| id).collect()
    }

    /// The run's root span, once it has arrived: the span sent without a
    /// parent (the first such, when more than one was).
    /// Whether the trace's root has arrived, even one dropped over the
    /// span limit: what settling waits for, answered without a walk.
    pub(crate) fn rooted(&self) -> bool {
        self.rooted
    }

    pub(crate) fn root(&self) -> Option<&Span> {
        self.arrived().find(|s| s.parent.is_none())
    }

    /// Placeholders: parents named but not arrived.
    #[cfg(test)]
    pub(crate) fn placeholders(&self) -> usize {
        self.nodes.values().filter(|n| n.span.is_none()).count()
    }

    /// The ids from `id` up to its top, `id` first.
    pub(crate) fn ancestry(&self, id: SpanId) -> Vec<SpanId> {
        let mut out = Vec::new();
        let mut at = Some(id);
        while let Some(now) = at {
            if out.len() > self.nodes.len() {
                break;
            }
            out.push(now);
            at = self.nodes.get(&now).and_then(|n| n.parent);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn span(id: u64, parent: Option<u64>) -> Span {
        Span {
            trace_id: 1,
            span_id: id,
            parent,
            remote_parent: None,
            name: format!("s{id}"),
            start_ns: id * 1_000_000,
            end_ns: id * 2_000_000,
            error: None,
            attrs: Vec::new(),
            events: Vec::new(),
            service: None,
            scope: String::new(),
            language: None,
        }
    }

    #[test]
    fn a_child_hangs_under_a_placeholder_until_its_parent_comes() {
        let mut forest = Forest::new(100);
        forest.insert(span(2, Some(1)));
        assert!(forest.get(1).unwrap().is_running());
        assert_eq!(forest.tops(), vec![1]);
        assert_eq!(forest.placeholders(), 1);
        assert!(forest.root().is_none());
        forest.insert(span(1, None));
        assert!(!forest.get(1).unwrap().is_running());
        assert_eq!(forest.get(1).unwrap().children, vec![2]);
        assert_eq!(forest.root().unwrap().span_id, 1);
        assert_eq!(forest.placeholders(), 0);
    }

    #[test]
    fn self_parents_and_circles_are_cut_and_duplicates_dropped() {
        let mut forest = Forest::new(100);
        assert_eq!(forest.insert(span(5, Some(5))), Inserted::CutCircle);
        forest.insert(span(2, Some(3)));
        assert_eq!(forest.insert(span(3, Some(2))), Inserted::CutCircle);
        assert_eq!(forest.insert(span(3, None)), Inserted::Duplicate);
        assert_eq!((forest.cut, forest.dropped), (2, 1));
        assert_eq!(forest.ancestry(2), vec![2, 3]);
        assert_eq!(forest.tops(), vec![5, 3]);
    }

    #[test]
    fn a_hundred_thousand_spans_in_a_chain_stop_at_the_limit() {
        let mut forest = Forest::new(1000);
        for id in (1..=100_000u64).rev() {
            forest.insert(span(id, (id > 1).then(|| id - 1)));
        }
        assert_eq!(forest.len(), 1000);
        assert_eq!(forest.dropped, 99_000);
    }
}
