//! The graph's result document, as `run --headless` prints it (there is
//! no reference for this pattern; docs/graph.md documents it):
//!
//! - `pattern`: `graph`; `status`: `ok` or `stopped`;
//! - `stop_reason`: `completed`, or the stop's wire string
//!   (`stalled:merge<publish_b`, `max_visits:draft:draft>review>draft`, a
//!   shared one such as `max_seconds`); `stop`: the same in words;
//! - `path`: the node ids in the order they were activated;
//! - `visits`: each node's activations, in declaration order;
//! - `outputs`: each node's last output, in declaration order (a node that
//!   never ran is not there);
//! - `state`: the shared state at the end;
//! - `details`, when the stop has any: `waiting` (each waiting join and
//!   the inputs it waits on), `no_route` (the node and the values it
//!   routed on), `cycle` (the node past its `max_visits` and its cycle),
//!   `failed` (the node and its error);
//! - `usage`, as every pattern's result carries it.

use crate::bus::RunStatus;
use indexmap::IndexMap;
use serde::Serialize;
use serde_json::Value;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct GraphResult {
    pub(crate) pattern: &'static str,
    pub(crate) status: RunStatus,
    pub(crate) stop_reason: String,
    pub(crate) stop: String,
    pub(crate) path: Vec<String>,
    pub(crate) visits: IndexMap<String, u32>,
    pub(crate) outputs: IndexMap<String, Value>,
    pub(crate) state: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) details: Option<Value>,
}
