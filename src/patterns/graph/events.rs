//! The graph pattern's events and their vocabulary: the graph as planned,
//! each activation of a node, each out-edge as evaluated, what joins wait
//! on and what was written into the shared state. The bus carries them as
//! `PatternEvent` (`patterns::events`); the result document, the graph
//! pane and every other viewer read them. Data only: it decides nothing.
//!
//! Text taken from a model or a tool (inputs, outputs, state values) is
//! clipped to [`GRAPH_TEXT_CHARS`], so one event stays small however much
//! was written.

use crate::bus::event_kinds::event_kinds;
use crate::patterns::team::events::MemberTeam;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How many characters of a node's input, output or a state value its
/// events carry.
pub(crate) const GRAPH_TEXT_CHARS: usize = 2000;

/// `value` as compact JSON text (a string as itself), cut at
/// [`GRAPH_TEXT_CHARS`] with `…` where it was cut.
pub(crate) fn graph_json(value: &Value) -> String {
    let text = match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    match text.char_indices().nth(GRAPH_TEXT_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text,
    }
}

/// What a node does, as the pane draws it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GraphNodeKind {
    Agent,
    Tool,
    Team,
    Map,
    Join,
    Human,
    End,
}

impl GraphNodeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            GraphNodeKind::Agent => "agent",
            GraphNodeKind::Tool => "tool",
            GraphNodeKind::Team => "team",
            GraphNodeKind::Map => "map",
            GraphNodeKind::Join => "join",
            GraphNodeKind::Human => "human",
            GraphNodeKind::End => "end",
        }
    }
}

/// A node of the graph as planned.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlannedNode {
    pub id: String,
    pub kind: GraphNodeKind,
    /// The agent, tool or team's name, the map's list (`state.steps`) or
    /// the question; empty for an end.
    pub label: String,
    /// A join's rule in words: `all`, `any`, `quorum 2`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_visits: Option<u32>,
}

/// An edge of the graph as planned.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlannedEdge {
    pub from: String,
    pub to: String,
    /// The condition in words (`verdict=="revise" and visits(draft)<3`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<String>,
    pub default: bool,
    /// The edge closes a cycle.
    pub back: bool,
}

/// How an activation ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActivationStatus {
    Ok,
    Failed,
    /// The model's answer did not fit the node's `output`.
    InvalidOutput,
}

impl ActivationStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ActivationStatus::Ok => "ok",
            ActivationStatus::Failed => "failed",
            ActivationStatus::InvalidOutput => "invalid_output",
        }
    }
}

/// One test of an edge's condition, in words with the real values, and
/// whether it held.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EdgeCheck {
    pub said: String,
    pub held: bool,
}

event_kinds! {
/// The graph pattern's events.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum GraphEvent, read as GraphNamed = "GraphEvent" {
    /// The graph, published once and first, so that a viewer draws it
    /// without the scenario.
    GraphPlanned {
        nodes: Vec<PlannedNode>,
        edges: Vec<PlannedEdge>,
        max_steps: u32,
    },
    /// An activation begins, after the gate `step N`.
    NodeStarted {
        node: String,
        visit: u32,
        /// The run-wide activation number, from 1.
        step: u32,
        /// JSON text, clipped.
        input: String,
        /// A team node's team, as this activation runs it: its agents
        /// are named `PATH/AGENT` (the node's id, then `#VISIT` from the
        /// second visit on), so that no two visits mix.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        team: Option<MemberTeam>,
        /// An agent node with `reads`: the part of the state its call was
        /// shown, JSON text, clipped (`{}` for `"reads": []`). Absent for
        /// a node without `reads`, which is shown the whole state.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        read: Option<String>,
    },
    /// A human node's question, asked at its gate.
    HumanAsked {
        node: String,
        step: u32,
        question: String,
        options: Vec<String>,
    },
    /// A map node's items so far.
    MapProgress {
        node: String,
        done: u32,
        failed: u32,
        running: u32,
        of: u32,
    },
    /// An activation ended.
    NodeFinished {
        node: String,
        visit: u32,
        step: u32,
        status: ActivationStatus,
        /// JSON text, clipped.
        output: String,
        /// A person's answer at a human node.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        answer: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
        /// What this activation's model calls used.
        tokens: u64,
        cost_usd: f64,
    },
    /// One out-edge of a node that ended, in declaration order.
    EdgeEvaluated {
        from: String,
        to: String,
        checks: Vec<EdgeCheck>,
        taken: bool,
        /// The target's visits, when taken and bounded.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        visits: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_visits: Option<u32>,
    },
    /// A "skipped" reached the node.
    NodeSkipped {
        node: String,
    },
    /// An input or a "skipped" reached a join that has not fired: on the
    /// ending node's own edges or further down a skipped branch.
    JoinWaiting {
        node: String,
        /// The join's rule in words.
        rule: String,
        arrived: Vec<String>,
        waiting_on: Vec<String>,
    },
    /// A join's barrier was met; it re-arms.
    JoinFired {
        node: String,
        arrived: Vec<String>,
    },
    /// A write into the shared state.
    StateWritten {
        node: String,
        key: String,
        /// `replace` or `append`.
        merge: String,
        /// JSON text, clipped.
        value: String,
    },
}
}
