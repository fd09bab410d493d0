//! The graph's load-time rules. Each finding names the node or edge (its
//! place in the file) and what was expected; the loader reports them all
//! and exits 2, so a graph that would stall, loop for ever, fire a node
//! once per arrival or lose a parallel write never starts.

use super::condition::{could_hold, fields, operators, tests};
use super::shape::{Kind, NodeId, Shape, declared_values};
use crate::scenario::error::Problem;
use crate::scenario::path::JsonPath;
use serde_json::Value;
use std::collections::VecDeque;

mod cycles;

/// Every finding on the compiled graph, the section written at `at`.
pub(crate) fn lint(shape: &Shape, at: &JsonPath) -> Vec<Problem> {
    let mut found = Vec::new();
    let lint = Lint {
        shape,
        at,
        found: &mut found,
    };
    lint.run();
    found
}

struct Lint<'a> {
    shape: &'a Shape,
    at: &'a JsonPath,
    found: &'a mut Vec<Problem>,
}

impl Lint<'_> {
    fn node_at(&self, node: NodeId) -> JsonPath {
        self.at.key("nodes").index(node)
    }

    fn edge_at(&self, edge: usize) -> JsonPath {
        self.at.key("edges").index(edge)
    }

    fn name(&self, node: NodeId) -> &str {
        &self.shape.nodes[node].id
    }

    fn say(&mut self, place: JsonPath, message: String) {
        self.found.push(Problem::at(place, message));
    }

    fn run(mut self) {
        let reached = self.reachable();
        for node in 0..self.shape.nodes.len() {
            if !reached[node] {
                let words = format!(
                    "node {:?} cannot be reached from the entry {:?}: no edges lead to it",
                    self.name(node),
                    self.name(self.shape.entry)
                );
                self.say(self.node_at(node), words);
            }
            self.own_rules(node);
            self.incoming(node, &reached);
            self.routing(node);
        }
        self.joins(&reached);
        self.edge_tests();
        self.cycles();
        self.writers();
    }

    /// Rules of one node alone.
    fn own_rules(&mut self, node: NodeId) {
        // The shape outlives the lint: a node is read without holding it,
        // and its place is built only for what is said (a graph of 10,000
        // nodes says nothing of most).
        let shape = self.shape;
        let n = &shape.nodes[node];
        let name = &n.id;
        if n.spec.max_visits == Some(0) {
            self.say(
                self.node_at(node).key("max_visits"),
                format!("node {name:?}: expected at least 1"),
            );
        }
        match &n.kind {
            Kind::End if !self.shape.out[node].is_empty() => {
                self.say(
                    self.node_at(node),
                    format!("node {name:?} is an end: expected no edges out of it"),
                );
            }
            Kind::End => {}
            _ if self.shape.out[node].is_empty() => self.say(
                self.node_at(node),
                format!("node {name:?} has no edge out of it: add one, or make it an end node"),
            ),
            _ => {}
        }
        match &n.kind {
            Kind::Human { options, .. } if options.is_empty() => self.say(
                self.node_at(node).key("options"),
                format!("node {name:?} asks a person: expected at least one option"),
            ),
            Kind::Map { over, .. } => match over.strip_prefix("state.") {
                Some(key) if self.shape.merge.contains_key(key) => {}
                _ => self.say(
                    self.node_at(node).key("map"),
                    format!("node {name:?}: expected `state.KEY` naming a key of graph.state, found {over:?}"),
                ),
            },
            Kind::Join { inputs, .. } if inputs.is_empty() => self.say(
                self.node_at(node).key("inputs"),
                format!("join {name:?}: expected the nodes it waits on"),
            ),
            _ => {}
        }
        for key in n.spec.write.keys().chain(n.spec.collect.iter()) {
            if !shape.merge.contains_key(key) {
                self.say(
                    self.node_at(node),
                    format!("node {name:?} writes the state key {key:?}, which graph.state does not declare"),
                );
            }
        }
        self.reads(node);
    }

    /// `reads` is an agent node's, and names keys of `graph.state`.
    fn reads(&mut self, node: NodeId) {
        let shape = self.shape;
        let n = &shape.nodes[node];
        let Some(keys) = &n.spec.reads else { return };
        let name = &n.id;
        let unknown = keys.iter().filter(|k| !shape.merge.contains_key(*k));
        let is_agent = matches!(n.kind, Kind::Agent { .. });
        if is_agent && unknown.clone().next().is_none() {
            return;
        }
        let place = self.node_at(node).key("reads");
        if !is_agent {
            let words = format!(
                "node {name:?}: `reads` is for agent nodes (a map reads its list, a tool, team or join no state)"
            );
            self.say(place, words);
            return;
        }
        for key in unknown {
            let words = format!(
                "node {name:?} reads the state key {key:?}, which graph.state does not declare"
            );
            self.say(place.clone(), words);
        }
    }

    /// A node that is not a join fires once per arrival: two incoming
    /// edges that can both be taken in one pass are an error.
    fn incoming(&mut self, node: NodeId, reached: &[bool]) {
        if matches!(self.shape.nodes[node].kind, Kind::Join { .. }) {
            return;
        }
        // An edge from a node the entry never reaches never arrives; that
        // node is named on its own.
        let incoming: Vec<usize> = self.shape.forward_in[node]
            .iter()
            .copied()
            .filter(|&e| reached[self.shape.edges[e].from])
            .collect();
        for (i, &a) in incoming.iter().enumerate() {
            for &b in &incoming[i + 1..] {
                if !self.shape.exclusive(a, b) {
                    let (from_a, from_b) = (self.shape.edges[a].from, self.shape.edges[b].from);
                    let words = format!(
                        "node {:?} is not a join, and its edges from {:?} and {:?} can both arrive in one pass: make it a join with a wait rule, or route to it from one router",
                        self.name(node),
                        self.name(from_a),
                        self.name(from_b)
                    );
                    self.say(self.node_at(node), words);
                    return;
                }
            }
        }
    }

    /// A router's edges: all conditional (one default at most), and every
    /// declared value of a field it routes on caught by an edge or the
    /// default.
    fn routing(&mut self, node: NodeId) {
        if !self.shape.routes(node) {
            return;
        }
        let out = self.shape.out[node].clone();
        let mut defaults = 0;
        for &e in &out {
            let edge = &self.shape.edges[e];
            if !edge.conditional() {
                let words = format!(
                    "the edge {}→{} has no condition, but the other edges of {:?} have: a router's edges are tried in order; mark the catch-all `\"default\": true`",
                    self.name(edge.from),
                    self.name(edge.to),
                    self.name(node)
                );
                self.say(self.edge_at(e), words);
            }
            if edge.default {
                defaults += 1;
                if defaults == 2 {
                    let words = format!(
                        "node {:?} has a second default edge: expected at most one",
                        self.name(node)
                    );
                    self.say(self.edge_at(e), words);
                }
            }
        }
        if defaults > 0 {
            return;
        }
        let mut routed = Vec::new();
        for &e in &out {
            if let Some(when) = &self.shape.edges[e].when {
                fields(when, &mut routed);
            }
        }
        for field in routed {
            let Some(values) = declared_values(&self.shape.nodes[node], &field) else {
                continue;
            };
            for value in values {
                let probe = Value::String(value.clone());
                let caught = out.iter().any(|&e| {
                    let when = self.shape.edges[e].when.as_ref();
                    when.is_some_and(|c| could_hold(c, &field, &probe) != Some(false))
                });
                if !caught {
                    let words = format!(
                        "node {:?} routes on {field}, and its value {value:?} is taken by no edge and caught by no default",
                        self.name(node)
                    );
                    self.say(self.node_at(node), words);
                }
            }
        }
    }

    /// A join's inputs: each one has an edge into the join and is reached
    /// from the entry; no other node has an edge into it.
    fn joins(&mut self, reached: &[bool]) {
        for node in 0..self.shape.nodes.len() {
            let Kind::Join { inputs, .. } = &self.shape.nodes[node].kind else {
                continue;
            };
            let name = self.name(node).to_string();
            for (i, &input) in inputs.iter().enumerate() {
                let has_edge = self
                    .shape
                    .edges
                    .iter()
                    .any(|e| e.from == input && e.to == node);
                if !has_edge || !reached[input] {
                    let why = if has_edge {
                        "is not reached from the entry"
                    } else {
                        "has no edge into the join"
                    };
                    let words = format!(
                        "join {name:?} waits on {:?}, which {why}: the join could never fire",
                        self.name(input)
                    );
                    self.say(self.node_at(node).key("inputs").index(i), words);
                }
            }
            for (e, edge) in self.shape.edges.iter().enumerate() {
                if edge.to == node && !inputs.contains(&edge.from) {
                    let words = format!(
                        "the edge {}→{name} comes from a node the join does not list in its inputs",
                        self.shape.nodes[edge.from].id
                    );
                    self.found
                        .push(Problem::at(self.at.key("edges").index(e), words));
                }
            }
        }
    }

    fn edge_tests(&mut self) {
        for (e, edge) in self.shape.edges.iter().enumerate() {
            let mut all = Vec::new();
            if let Some(when) = &edge.when {
                tests(when, &mut all);
            }
            if all.iter().any(|t| operators(t) != 1) {
                let words = "expected each test to have exactly one of eq, ne, lt, le, gt, ge, in"
                    .to_string();
                self.found.push(Problem::at(
                    self.at.key("edges").index(e).key("when"),
                    words,
                ));
            }
        }
    }

    /// Reached from the entry over any edge.
    fn reachable(&self) -> Vec<bool> {
        let mut seen = vec![false; self.shape.nodes.len()];
        let mut queue = VecDeque::from([self.shape.entry]);
        seen[self.shape.entry] = true;
        while let Some(node) = queue.pop_front() {
            for &e in &self.shape.out[node] {
                let to = self.shape.edges[e].to;
                if !seen[to] {
                    seen[to] = true;
                    queue.push_back(to);
                }
            }
        }
        seen
    }
}

/// A shortest forward path from `head` to `tail` (both included).
pub(crate) fn cycle_path(shape: &Shape, head: NodeId, tail: NodeId) -> Vec<NodeId> {
    let mut before: Vec<Option<NodeId>> = vec![None; shape.nodes.len()];
    let mut queue = VecDeque::from([head]);
    let mut seen = vec![false; shape.nodes.len()];
    seen[head] = true;
    while let Some(node) = queue.pop_front() {
        if node == tail {
            break;
        }
        for &e in &shape.out[node] {
            let edge = &shape.edges[e];
            if !edge.back && !seen[edge.to] {
                seen[edge.to] = true;
                before[edge.to] = Some(node);
                queue.push_back(edge.to);
            }
        }
    }
    let mut path = vec![tail];
    let mut at = tail;
    while let Some(previous) = before[at] {
        path.push(previous);
        at = previous;
    }
    path.reverse();
    path
}

/// The advice `conclave validate` prints without refusing the graph: once
/// a state key can grow (`append`, or a map's `collect`), the agent nodes
/// with no `reads` are each sent the whole state, however large it grows.
pub(crate) fn advice(shape: &Shape, at: &JsonPath) -> Option<String> {
    use super::spec::Merge;
    let growing: Vec<&str> = shape
        .merge
        .iter()
        .filter(|(key, merge)| {
            **merge == Merge::Append
                || shape
                    .nodes
                    .iter()
                    .any(|n| n.spec.collect.as_deref() == Some(key.as_str()))
        })
        .map(|(key, _)| key.as_str())
        .collect();
    let unread: Vec<String> = shape
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| matches!(n.kind, Kind::Agent { .. }) && n.spec.reads.is_none())
        .map(|(i, n)| format!("{} ({:?})", at.key("nodes").index(i), n.id))
        .collect();
    if growing.is_empty() || unread.is_empty() {
        return None;
    }
    Some(format!(
        "warning: the state keys {} can grow, and the agent nodes {} declare no `reads`: each is sent the whole state; declare the keys each reads (`\"reads\": []` for none)",
        growing.join(", "),
        unread.join(", ")
    ))
}
