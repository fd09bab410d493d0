//! The pure reader: one span in, what it says out, by the vocabulary
//! table ([`super::vocab::VOCABULARY`]) alone. No clock, no IO, no state:
//! the same span always reads the same. What a span means within its run
//! (whose agent a tool call was, the order of the agents) is `summary.rs`'s.

use super::span::{Span, Value};
use super::vocab::{Kind, Looks, Says, VOCABULARY};

/// What one span says, as the table reads it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reading {
    /// `None` when no row gives the span a kind: a generic span.
    pub kind: Option<Kind>,
    /// The source of the row that gave the kind.
    pub source: Option<&'static str>,
    pub agent: Option<String>,
    pub tool: Option<String>,
    pub model: Option<String>,
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    pub cost_usd: Option<f64>,
    pub conversation: Option<String>,
    pub error_type: Option<String>,
    pub handoff_from: Option<String>,
    pub handoff_to: Option<String>,
    pub graph_node: Option<String>,
    pub graph_parent: Option<String>,
    /// LangGraph's `langgraph_node` and `langgraph_step` from `metadata`.
    pub langgraph_node: Option<String>,
    pub langgraph_step: Option<u64>,
    /// Handoffs written as span events (Conclave's own), in event order.
    pub event_handoffs: Vec<(String, String)>,
    response_model: Option<String>,
    entity: Option<String>,
}

impl Reading {
    /// The kind, generic when no row gave one.
    pub fn kind(&self) -> Kind {
        self.kind.unwrap_or(Kind::Generic)
    }
}

/// Read `span` through the table.
pub fn read(span: &Span) -> Reading {
    let mut r = Reading::default();
    for row in VOCABULARY {
        match row.looks {
            Looks::Attr(key, want) => {
                let Some(value) = span.attr(key) else {
                    continue;
                };
                if want.is_some_and(|w| value.text() != w) {
                    continue;
                }
                apply(&mut r, row.says, row.source, value);
            }
            Looks::NamePrefix(prefix) => {
                if let Some(rest) = span.name.strip_prefix(prefix) {
                    let value = Value::Str(rest.trim().to_string());
                    apply(&mut r, row.says, row.source, &value);
                }
            }
            Looks::Event(_) | Looks::EventAttr(_) => {}
        }
    }
    r.model = r.response_model.take().or(r.model.take());
    if let Some(entity) = r.entity.take() {
        match r.kind {
            Some(Kind::Tool) if r.tool.is_none() => r.tool = Some(entity),
            Some(Kind::Agent | Kind::Workflow) if r.agent.is_none() => r.agent = Some(entity),
            _ => {}
        }
    }
    if r.kind == Some(Kind::Agent) && r.agent.is_none() {
        r.agent = Some(span.name.clone());
    }
    if r.kind == Some(Kind::Tool) && r.tool.is_none() {
        r.tool = Some(span.name.clone());
    }
    if r.kind == Some(Kind::Handoff) && r.handoff_to.is_none() {
        r.handoff_to = r.agent.clone();
    }
    r.event_handoffs = event_handoffs(span);
    r
}

fn apply(r: &mut Reading, says: Says, source: &'static str, value: &Value) {
    let text = || Some(value.text());
    match says {
        Says::Is(kind) => {
            if r.kind.is_none() {
                r.kind = Some(kind);
                r.source = Some(source);
            }
        }
        Says::AgentName => set(&mut r.agent, text()),
        Says::EntityName => set(&mut r.entity, text()),
        Says::ToolName => set(&mut r.tool, text()),
        Says::RequestModel => set(&mut r.model, text()),
        Says::ResponseModel => set(&mut r.response_model, text()),
        Says::InputTokens => set(&mut r.input_tokens, value.count()),
        Says::OutputTokens => set(&mut r.output_tokens, value.count()),
        Says::CostUsd => set(&mut r.cost_usd, value.dollars()),
        Says::Conversation => set(&mut r.conversation, text()),
        Says::ErrorType => set(&mut r.error_type, text()),
        Says::HandoffFrom => set(&mut r.handoff_from, text()),
        Says::HandoffTo => set(&mut r.handoff_to, text()),
        Says::GraphNode => set(&mut r.graph_node, text()),
        Says::GraphParent => set(&mut r.graph_parent, text()),
        Says::Metadata => {
            let Ok(serde_json::Value::Object(map)) =
                serde_json::from_str::<serde_json::Value>(&value.text())
            else {
                return;
            };
            if let Some(node) = map.get("langgraph_node").and_then(|v| v.as_str()) {
                set(&mut r.langgraph_node, Some(node.to_string()));
            }
            if let Some(step) = map
                .get("langgraph_step")
                .and_then(serde_json::Value::as_u64)
            {
                set(&mut r.langgraph_step, Some(step));
            }
        }
    }
}

fn set<T>(slot: &mut Option<T>, value: Option<T>) {
    if slot.is_none() {
        *slot = value;
    }
}

/// The span's events that the table names handoffs, with the agents
/// their attributes name.
fn event_handoffs(span: &Span) -> Vec<(String, String)> {
    let named = |name: &str| {
        VOCABULARY.iter().any(|row| {
            matches!(row.looks, Looks::Event(n) if n == name) && row.says == Says::Is(Kind::Handoff)
        })
    };
    let attr_of = |says: Says, attrs: &[(String, Value)]| {
        VOCABULARY.iter().find_map(|row| match row.looks {
            Looks::EventAttr(key) if row.says == says => {
                attrs.iter().find(|(k, _)| k == key).map(|(_, v)| v.text())
            }
            _ => None,
        })
    };
    span.events
        .iter()
        .filter(|e| named(&e.name))
        .filter_map(|e| {
            Some((
                attr_of(Says::HandoffFrom, &e.attrs)?,
                attr_of(Says::HandoffTo, &e.attrs)?,
            ))
        })
        .collect()
}
