//! The words of the vocabulary table (`vocab.rs`): what a span is
//! ([`Kind`]), what a row says of it ([`Says`]), where the row looks
//! ([`Looks`]), and the short constructors the table's rows are written with.

/// What a span is, for the panes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Kind {
    /// An agent's run (a turn in the chain pane).
    Agent,
    /// A model call: model, tokens, cost.
    Model,
    /// A tool call (a worker row).
    Tool,
    /// Control passed from one agent to another.
    Handoff,
    /// A guardrail's check.
    Guardrail,
    /// The whole workflow (the run's own span).
    Workflow,
    /// A step of a chain or graph (a LangGraph node, a task).
    Chain,
    /// An agent being made, not run.
    Setup,
    /// None of the above: shown as the span it is (and any kind this
    /// version does not know, read back from a recording).
    #[serde(other)]
    Generic,
}

impl Kind {
    /// The kind as recordings and events write it (`model`, `tool` …).
    pub(crate) fn word(self) -> &'static str {
        match self {
            Kind::Agent => "agent",
            Kind::Model => "model",
            Kind::Tool => "tool",
            Kind::Handoff => "handoff",
            Kind::Guardrail => "guardrail",
            Kind::Workflow => "workflow",
            Kind::Chain => "chain",
            Kind::Setup => "setup",
            Kind::Generic => "generic",
        }
    }
}

/// What a row reads off a span.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Says {
    /// The span is of this kind.
    Is(Kind),
    /// The agent's name.
    AgentName,
    /// The agent a model or tool call says it is made for, by its own
    /// attributes: read while the call's agent span has not arrived
    /// (PydanticAI's `gen_ai.agent.name` on its `chat` spans, CrewAI's
    /// `tool.agent_role`); the nearest agent span above it wins once it
    /// has.
    CallerAgent,
    /// The agent's or the tool's name, whichever the span's kind is.
    EntityName,
    /// The tool's name.
    ToolName,
    /// The model asked for.
    RequestModel,
    /// The model that answered (preferred over the one asked for).
    ResponseModel,
    /// Input (prompt) tokens of one model call.
    InputTokens,
    /// Output (completion) tokens of one model call.
    OutputTokens,
    /// The part of the input tokens served from the prompt cache.
    CachedInputTokens,
    /// What the call cost, in US dollars.
    CostUsd,
    /// The conversation (session) the trace belongs to.
    Conversation,
    /// Why the span failed.
    ErrorType,
    /// The agent a handoff leaves.
    HandoffFrom,
    /// The agent a handoff goes to.
    HandoffTo,
    /// The graph node the span runs.
    GraphNode,
    /// The graph node before it.
    GraphParent,
    /// The graph node the span runs in, by name (LangGraph's `langgraph_node`).
    NodeName,
    /// The graph's step the span runs in (LangGraph's `langgraph_step`).
    Step,
    /// The agent the span works for, whatever agent span it sits under:
    /// an agent span with one is that agent's (LangGraph's inner `agent`
    /// node of a worker is the worker).
    Actor,
    /// One activation of a graph node, told from the node's other
    /// activations (LangGraph's `supervisor:<uuid>`): the graph pane's visit.
    Activation,
    /// The framework passes control by turns and writes no handoff: each
    /// change of the agent that acts (by the start of its agent, model and
    /// tool spans) is a handoff, unless a handoff span already said so.
    Turns,
    /// Model calls told inside a message's JSON, each with the message's
    /// id, source and usage (AutoGen's `models_usage`): a message sent to
    /// several recipients is counted once per run.
    MessageUsage,
}

/// Where a row looks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Looks {
    /// An attribute, with any value or with this one.
    Attr(&'static str, Option<&'static str>),
    /// The span's name starts with this; the rest of the name is the value.
    NamePrefix(&'static str),
    /// A span event of this name; its attributes are read by the rows
    /// that look at `EventAttr`.
    Event(&'static str),
    /// An attribute of an event a `Event` row found.
    EventAttr(&'static str),
    /// A field of an attribute that holds a JSON object; the value is the
    /// field's text up to the first `upto` character, when one is given.
    JsonField {
        attr: &'static str,
        field: &'static str,
        upto: Option<char>,
    },
}

/// One row of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Row {
    /// Who writes it.
    pub(crate) source: &'static str,
    pub(crate) looks: Looks,
    pub(crate) says: Says,
}

pub(super) const fn attr(source: &'static str, key: &'static str, says: Says) -> Row {
    Row {
        source,
        looks: Looks::Attr(key, None),
        says,
    }
}

pub(super) const fn attr_is(
    source: &'static str,
    key: &'static str,
    value: &'static str,
    kind: Kind,
) -> Row {
    attr_says(source, key, value, Says::Is(kind))
}

pub(super) const fn name(source: &'static str, prefix: &'static str, says: Says) -> Row {
    Row {
        source,
        looks: Looks::NamePrefix(prefix),
        says,
    }
}

pub(super) const fn json(
    source: &'static str,
    (attr, field): (&'static str, &'static str),
    upto: Option<char>,
    says: Says,
) -> Row {
    Row {
        source,
        looks: Looks::JsonField { attr, field, upto },
        says,
    }
}

pub(super) const fn attr_says(
    source: &'static str,
    key: &'static str,
    value: &'static str,
    says: Says,
) -> Row {
    Row {
        source,
        looks: Looks::Attr(key, Some(value)),
        says,
    }
}
