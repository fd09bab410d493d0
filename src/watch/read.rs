//! The pure reader: one span in, what it says out, by the vocabulary
//! table ([`super::vocab::VOCABULARY`]) alone. No clock, no IO, no state:
//! the same span always reads the same. What a span means within its run
//! (whose agent a tool call was, the order of the agents) is `summary.rs`'s.

use super::vocab::{CONTROL_FLOW, Kind, LANGGRAPH_START, Looks, Says, VOCABULARY};
use crate::span::{Span, Value};

/// Each span's reading by its id, as a run holds them: boxed, so that
/// the map growing moves ids and pointers, not readings.
pub(crate) type Readings = std::collections::HashMap<crate::span::SpanId, Box<Reading>>;

/// What one span says, as the table reads it.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Reading {
    /// `None` when no row gives the span a kind: a generic span.
    pub(crate) kind: Option<Kind>,
    /// The source of the row that gave the kind.
    pub(crate) source: Option<&'static str>,
    pub(crate) agent: Option<String>,
    /// The agent a model or tool call names for itself (read when no
    /// agent span above it has arrived).
    pub(crate) caller: Option<String>,
    pub(crate) tool: Option<String>,
    /// The model that answered, else the one asked for.
    pub(crate) model: Option<String>,
    /// The model asked for (a dated snapshot's price falls back to it).
    pub(crate) request_model: Option<String>,
    pub(crate) input_tokens: Option<u64>,
    pub(crate) output_tokens: Option<u64>,
    /// The part of `input_tokens` served from the prompt cache.
    pub(crate) cached_input_tokens: Option<u64>,
    pub(crate) cost_usd: Option<f64>,
    pub(crate) conversation: Option<String>,
    pub(crate) error_type: Option<String>,
    pub(crate) handoff_from: Option<String>,
    pub(crate) handoff_to: Option<String>,
    pub(crate) graph_node: Option<String>,
    pub(crate) graph_parent: Option<String>,
    /// LangGraph's `langgraph_node` and `langgraph_step` from `metadata`.
    pub(crate) langgraph_node: Option<String>,
    pub(crate) langgraph_step: Option<u64>,
    /// Handoffs written as span events (Conclave's own), in event order.
    pub(crate) event_handoffs: Vec<(String, String)>,
    /// The agent the span works for, whatever agent span it sits under.
    pub(crate) actor: Option<String>,
    /// The graph node's activation the span runs in (LangGraph's
    /// `supervisor:<uuid>`).
    pub(crate) activation: Option<String>,
    /// The run passes control by turns (each change of the agent that
    /// acts is a handoff).
    pub(crate) turns: bool,
    /// Model calls told inside the span's message (AutoGen's).
    pub(crate) message_usage: Vec<MessageUsage>,
    response_model: Option<String>,
    entity: Option<String>,
}

/// One model call a message tells of: its message's id (the same
/// message reaches every recipient), the agent that sent it, its tokens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct MessageUsage {
    pub(crate) id: String,
    pub(crate) agent: Option<String>,
    pub(crate) input_tokens: u64,
    pub(crate) output_tokens: u64,
}

impl Reading {
    /// The kind, generic when no row gave one.
    pub(crate) fn kind(&self) -> Kind {
        self.kind.unwrap_or(Kind::Generic)
    }
}

/// Read `span` through the table.
pub(crate) fn read(span: &Span) -> Reading {
    let mut r = Reading::default();
    // Each JSON attribute is parsed once, for every row that looks into it.
    let mut parsed: Vec<(&str, Option<serde_json::Value>)> = Vec::new();
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
            Looks::JsonField { attr, field, upto } => {
                let at = match parsed.iter().position(|(key, _)| *key == attr) {
                    Some(at) => at,
                    None => {
                        let object = span
                            .attr(attr)
                            .and_then(|v| serde_json::from_str(&v.text()).ok());
                        parsed.push((attr, object));
                        parsed.len() - 1
                    }
                };
                let Some(found) = parsed[at].1.as_ref().and_then(|o| o.get(field)) else {
                    continue;
                };
                let text = match found {
                    serde_json::Value::String(text) => text.clone(),
                    serde_json::Value::Null => continue,
                    other => other.to_string(),
                };
                let text = match upto {
                    Some(upto) => text.split(upto).next().unwrap_or_default().to_string(),
                    None => text,
                };
                if !text.is_empty() {
                    apply(&mut r, row.says, row.source, &Value::Str(text));
                }
            }
            Looks::Event(_) | Looks::EventAttr(_) => {}
        }
    }
    r.request_model = r.model.clone();
    r.model = r.response_model.take().or(r.model.take());
    if let Some(entity) = r.entity.take() {
        match r.kind {
            Some(Kind::Tool) if r.tool.is_none() => r.tool = Some(entity),
            Some(Kind::Agent | Kind::Workflow) if r.agent.is_none() => r.agent = Some(entity),
            _ => {}
        }
    }
    // LangGraph's entry (`__start__`) runs no node of the app's own.
    if r.actor.as_deref() == Some(LANGGRAPH_START) {
        r.actor = None;
    }
    if r.activation
        .as_deref()
        .is_some_and(|a| a.split(':').next() == Some(LANGGRAPH_START))
    {
        r.activation = None;
    }
    if r.kind == Some(Kind::Agent)
        && let Some(actor) = &r.actor
    {
        r.agent = Some(actor.clone());
    }
    if r.kind == Some(Kind::Agent) && r.agent.is_none() {
        r.agent = Some(span.name.clone());
    }
    if r.kind == Some(Kind::Tool) && r.tool.is_none() {
        r.tool = Some(span.name.clone());
    }
    // A handoff that names no target (Traceloop's, whose agent name is
    // the agent it leaves) goes to the next agent: the summary's to say.
    r.event_handoffs = event_handoffs(span);
    r
}

/// Whether `span` may name a graph node: it has an attribute a row that
/// says `GraphNode`, `GraphParent` or `Activation` looks at (a JSON
/// field looked for by its name, not parsed). Cheap, so a view can tell
/// a span that may change the run's graph from one that cannot without
/// reading it; it may say yes to a span that names none, never no to one
/// that names one.
pub(crate) fn may_name_graph_node(span: &Span) -> bool {
    VOCABULARY.iter().any(|row| {
        matches!(
            row.says,
            Says::GraphNode | Says::GraphParent | Says::Activation
        ) && match row.looks {
            Looks::Attr(key, _) => span.attr(key).is_some(),
            Looks::JsonField { attr, field, .. } => {
                matches!(span.attr(attr), Some(Value::Str(text)) if text.contains(field))
            }
            _ => false,
        }
    })
}

/// Whether any row of the table reads something off `span`: an
/// attribute, name or event a row looks at (a JSON field looked for by
/// its name, not parsed). A span none does is not understood: the run
/// counts it, on the screen and in its line, rather than seeming empty.
pub(crate) fn understood(span: &Span) -> bool {
    VOCABULARY.iter().any(|row| match row.looks {
        Looks::Attr(key, want) => span
            .attr(key)
            .is_some_and(|v| want.is_none_or(|w| v.text() == w)),
        Looks::NamePrefix(prefix) => span.name.starts_with(prefix),
        Looks::JsonField { attr, field, .. } => {
            matches!(span.attr(attr), Some(Value::Str(text)) if text.contains(field))
        }
        Looks::Event(name) => span.events.iter().any(|e| e.name == name),
        Looks::EventAttr(_) => false,
    })
}

/// Whether `span`'s error is a control-flow exception of its framework
/// ([`CONTROL_FLOW`]: LangGraph's handoffs and interrupts), not a
/// failure: by its exception event's `exception.type`, else by the first
/// line of the exception's message or the status message (LangGraph.js
/// writes the stack, the exception's name first).
pub(crate) fn control_flow(span: &Span) -> bool {
    let Some(status) = &span.error else {
        return false;
    };
    let named = |text: &str| {
        let head = text.trim_start().lines().next().unwrap_or_default();
        let word = head
            .split(|c: char| c == ':' || c == '(' || c.is_whitespace())
            .next()
            .unwrap_or_default();
        let last = word.rsplit(['.', ':']).next().unwrap_or_default();
        CONTROL_FLOW.contains(&last)
    };
    let exception = span.events.iter().find(|e| e.name == "exception");
    let attr = |key: &str| {
        exception.and_then(|e| {
            e.attrs
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.text())
        })
    };
    match attr("exception.type") {
        Some(kind) => named(&kind),
        None => named(&attr("exception.message").unwrap_or_else(|| status.clone())),
    }
}

/// Clear the error of each of `spans` that ended in a control-flow
/// exception ([`control_flow`]): no failure; its exception event stays.
pub(crate) fn settle_control_flow(spans: &mut [Span]) {
    for span in spans {
        if control_flow(span) {
            span.error = None;
        }
    }
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
        Says::CallerAgent => set(&mut r.caller, text()),
        Says::EntityName => set(&mut r.entity, text()),
        Says::ToolName => set(&mut r.tool, text()),
        Says::RequestModel => set(&mut r.model, text()),
        Says::ResponseModel => set(&mut r.response_model, text()),
        Says::InputTokens => set(&mut r.input_tokens, value.count()),
        Says::OutputTokens => set(&mut r.output_tokens, value.count()),
        Says::CachedInputTokens => set(&mut r.cached_input_tokens, value.count()),
        Says::CostUsd => set(&mut r.cost_usd, value.dollars()),
        Says::Conversation => set(&mut r.conversation, text()),
        Says::ErrorType => set(&mut r.error_type, text()),
        Says::HandoffFrom => set(&mut r.handoff_from, text()),
        Says::HandoffTo => set(&mut r.handoff_to, text()),
        Says::GraphNode => set(&mut r.graph_node, text()),
        Says::GraphParent => set(&mut r.graph_parent, text()),
        Says::NodeName => set(&mut r.langgraph_node, text()),
        Says::Step => set(&mut r.langgraph_step, value.count()),
        Says::Actor => set(&mut r.actor, text()),
        Says::Activation => set(&mut r.activation, text()),
        Says::Turns => r.turns = true,
        Says::MessageUsage => {
            if r.message_usage.is_empty() {
                r.message_usage = usages_in(&value.text());
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

/// Every message in `text` (JSON, perhaps cut short at the value limit)
/// with a `models_usage` object, and the `id` and `source` written before
/// it in the same object (AutoGen writes them first, before any content,
/// so a cut message still reads). A usage with no id is not counted: it
/// could not be told from its copies.
fn usages_in(text: &str) -> Vec<MessageUsage> {
    const KEY: &str = "\"models_usage\"";
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find(KEY).map(|i| from + i) {
        from = at + KEY.len();
        let Some(serde_json::Value::Object(usage)) = value_after(&text[from..]) else {
            continue;
        };
        // The object's own keys before `models_usage` (no nested one between).
        let head = &text[text[..at].rfind(['{', '}']).map_or(0, |b| b + 1)..at];
        let field = |name: &str| match value_after(&head[head.find(name)? + name.len()..]) {
            Some(serde_json::Value::String(text)) => Some(text),
            _ => None,
        };
        let Some(id) = field("\"id\"") else {
            continue;
        };
        let tokens = |key: &str| usage.get(key).and_then(serde_json::Value::as_u64);
        out.push(MessageUsage {
            id,
            agent: field("\"source\""),
            input_tokens: tokens("prompt_tokens").unwrap_or(0),
            output_tokens: tokens("completion_tokens").unwrap_or(0),
        });
    }
    out
}

/// The JSON value after a key: `: value`, whatever follows it.
fn value_after(text: &str) -> Option<serde_json::Value> {
    let rest = text.trim_start().strip_prefix(':')?;
    serde_json::Deserializer::from_str(rest)
        .into_iter::<serde_json::Value>()
        .next()?
        .ok()
}
