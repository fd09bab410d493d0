//! The graph pattern's section of a scenario file (`"graph": {...}`), as
//! written: the entry, the step budget, the shared state's keys with their
//! merge rules, the nodes and the edges with their conditions. Types only;
//! [`super::shape`] compiles them and [`super::lint`] checks them.
//!
//! Conditions are data, never code: comparisons on the source node's
//! output (a JSON Pointer), on the shared state, on a node's visits, on the
//! source's status or on a person's answer, combined with `all`, `any` and
//! `not`. So a graph can be checked at load, saved, replayed and forked.

use indexmap::IndexMap;

/// The sections of a scenario file a graph owns.
pub(crate) const SECTIONS: &[&str] = &["graph"];

/// The sections a graph reads beside its own: its agent, tool and team
/// nodes name the scenario's agents, tools and member teams.
pub(crate) const READS: &[&str] = &["agents", "tools", "teams"];
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The default `max_steps`: activations of nodes a run may make.
pub(crate) const DEFAULT_MAX_STEPS: u32 = 100;
/// The default `max_parallel` of a map node.
pub(crate) const DEFAULT_MAX_PARALLEL: u32 = 4;

/// A workflow as a graph of nodes and edges.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct GraphSpec {
    /// The node the run starts at.
    pub(crate) entry: String,
    /// The most node activations a run makes (default 100); the next one
    /// stops the run with `max_steps`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) max_steps: Option<u32>,
    /// What a node whose conditional edges all fail, with no default, does:
    /// `stop` (the run stops with `no_route`, naming the node and the
    /// values it routed on; the default) or `skip` (its edges all send
    /// "skipped" on, so the joins below it resolve).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) on_unmatched: Option<Unmatched>,
    /// The shared state's keys and how a write merges into each.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub(crate) state: IndexMap<String, StateKey>,
    /// The nodes, in declaration order: ties on the clock break by it.
    pub(crate) nodes: Vec<NodeSpec>,
    /// The edges, in declaration order: a node's conditional edges are
    /// tried in it, the first match wins.
    pub(crate) edges: Vec<EdgeSpec>,
}

impl GraphSpec {
    pub(crate) fn max_steps(&self) -> u32 {
        self.max_steps.unwrap_or(DEFAULT_MAX_STEPS)
    }

    pub(crate) fn on_unmatched(&self) -> Unmatched {
        self.on_unmatched.unwrap_or_default()
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Unmatched {
    #[default]
    Stop,
    Skip,
}

/// One key of the shared state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct StateKey {
    pub(crate) merge: Merge,
}

/// How a write merges into a state key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Merge {
    /// The write is the key's new value.
    Replace,
    /// The key is a list: a list written is appended item by item, any
    /// other value as one item. Parallel writers to one key need it.
    Append,
}

/// A node as written. Its kind is the one kind key it has: `agent`,
/// `tool`, `team`, `map`, `join`, `human` or `end` (exactly one; the lint
/// names a node with none or two).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct NodeSpec {
    /// The node's name, unique in the graph.
    pub(crate) id: String,
    /// agent (and map): the agent of the scenario's `agents` that answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) agent: Option<String>,
    /// tool: the tool of the scenario's `tools` called, through the
    /// gateway, with the node's input as its arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) tool: Option<String>,
    /// team: the entry of the scenario's `teams` run as a nested team.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) team: Option<String>,
    /// map: the list to fan out over, `state.KEY` (the node's `agent`
    /// answers each item; the results keep the items' order).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) map: Option<String>,
    /// join: when it fires: `"all"`, `"any"` or `{"quorum": n}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) wait: Option<Wait>,
    /// join: the nodes it waits on, in the order its output lists them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) inputs: Vec<String>,
    /// human: the question asked at the node's gate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) human: Option<String>,
    /// human: the answers offered; the last is the default.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) options: Vec<String>,
    /// end: the run is done when it is reached.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) end: bool,
    /// agent and map: the fields the answer must have, each a type
    /// (`string`, `number`, `integer`, `bool`, `list`, `object`) or the
    /// list of the values it may take.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub(crate) output: IndexMap<String, FieldType>,
    /// State keys the node writes, each from a JSON Pointer into its
    /// output (`{"verdict": "/verdict"}`).
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub(crate) write: IndexMap<String, String>,
    /// map: the state key the results are written to, in item order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) collect: Option<String>,
    /// map: items answered at once (default 4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) max_parallel: Option<u32>,
    /// The most times the node runs in one run; the next activation stops
    /// the run with `max_visits`, naming the node and its cycle. Every
    /// cycle needs one node with a bound.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) max_visits: Option<u32>,
    /// agent: the state keys its call is shown (`[]`: none). Without it
    /// the call is shown the whole state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) reads: Option<Vec<String>>,
}

/// A join's rule, written out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub(crate) enum Wait {
    Named(WaitFor),
    Quorum { quorum: u32 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum WaitFor {
    /// Every input has arrived or was skipped, and at least one arrived.
    All,
    /// The first input that arrives.
    Any,
}

/// A field of a node's output: a type, or the values it may take.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub(crate) enum FieldType {
    Kind(FieldKind),
    OneOf(Vec<String>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum FieldKind {
    String,
    Number,
    Integer,
    Bool,
    List,
    Object,
}

/// An edge as written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct EdgeSpec {
    pub(crate) from: String,
    pub(crate) to: String,
    /// The edge is taken when this holds; without it (and without
    /// `default`) the edge is unconditional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) when: Option<Condition>,
    /// Taken when none of the node's conditional edges matched; at most
    /// one a node.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) default: bool,
}

/// A condition, as data.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub(crate) enum Condition {
    All {
        all: Vec<Condition>,
    },
    Any {
        any: Vec<Condition>,
    },
    Not {
        not: Box<Condition>,
    },
    /// A value of the source node's output, by JSON Pointer.
    Field {
        field: String,
        #[serde(flatten)]
        test: Test,
    },
    /// A value of the shared state, by JSON Pointer (`/verdict`).
    State {
        state: String,
        #[serde(flatten)]
        test: Test,
    },
    /// How many times a node has run.
    Visits {
        visits: String,
        #[serde(flatten)]
        test: Test,
    },
    /// The source node's status: `ok` or `failed`.
    Status {
        status: NodeStatus,
    },
    /// The option a person chose at the source (a human node).
    Answer {
        answer: String,
    },
}

/// One comparison: exactly one of its operators (the lint names a test
/// with none or two).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Test {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) eq: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) ne: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) lt: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) le: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) gt: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) ge: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none", rename = "in")]
    pub(crate) one_of: Option<Vec<Value>>,
}

/// A node's status as an edge condition reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum NodeStatus {
    Ok,
    Failed,
}
