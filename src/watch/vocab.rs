//! The vocabularies `conclave watch` reads, as one table of data: each
//! row names the framework or convention it comes from, the attribute
//! (or span name, or span event) it looks at, the value it needs, if
//! any, and what it says of the span. The reader (`read.rs`) walks the
//! table in order: the first row that gives a span its [`Kind`] decides
//! the kind, and the first row that gives each other field decides that
//! field, so a convention listed earlier wins over a later fallback. A
//! span no row gives a kind stays a generic span. docs/watch.md prints
//! this table.

pub(crate) use super::vocab_words::{Kind, Looks, Row, Says};
use super::vocab_words::{attr, attr_is, attr_says, json, name};

const GENAI: &str = "OpenTelemetry GenAI semantic conventions";
const OI: &str = "OpenInference";
const AGENTS: &str = "OpenAI Agents SDK (OpenTelemetry contrib instrumentation)";
const AGENTS_OI: &str = "OpenAI Agents SDK (OpenInference instrumentation)";
const TRACELOOP: &str = "Traceloop / OpenLLMetry";
const PYDANTIC: &str = "PydanticAI";
const LANGGRAPH: &str = "LangGraph (OpenInference LangChain instrumentation)";
const AUTOGEN: &str = "AutoGen (its own tracing)";
const CREWAI: &str = "CrewAI (OpenInference CrewAI instrumentation)";
const AI_SDK: &str = "Vercel AI SDK 3 to 6 (experimental_telemetry), AI SDK 7 LegacyOpenTelemetry";
const AI_SDK7: &str = "Vercel AI SDK 7 (@ai-sdk/otel OpenTelemetry)";
const HANDOFF_TOOLS: &str = "OpenAI Agents SDK, langgraph-supervisor (handoff tools)";
const CONCLAVE: &str = "Conclave";

/// The table, in the order it is read.
pub(crate) const VOCABULARY: &[Row] = &[
    // The contrib Agents-SDK handoff span carries both agents.
    attr(AGENTS, "gen_ai.handoff.from_agent", Says::Is(Kind::Handoff)),
    attr(AGENTS, "gen_ai.handoff.from_agent", Says::HandoffFrom),
    attr(AGENTS, "gen_ai.handoff.to_agent", Says::HandoffTo),
    // OpenInference writes a handoff as a TOOL span "handoff to X"
    // (and Traceloop leaves the target out: the next agent is it).
    name(AGENTS_OI, "handoff to ", Says::Is(Kind::Handoff)),
    name(AGENTS_OI, "handoff to ", Says::HandoffTo),
    // The handoff tools `transfer_to_X` of the Agents SDK and of
    // langgraph-supervisor (which OpenInference marks AGENT, for the
    // "agent" in their name): handoffs, never tool calls or agents.
    name(HANDOFF_TOOLS, "transfer_to_", Says::Is(Kind::Handoff)),
    name(HANDOFF_TOOLS, "transfer_to_", Says::HandoffTo),
    attr_is(GENAI, "gen_ai.operation.name", "invoke_agent", Kind::Agent),
    attr_is(GENAI, "gen_ai.operation.name", "create_agent", Kind::Setup),
    attr_is(GENAI, "gen_ai.operation.name", "chat", Kind::Model),
    attr_is(
        GENAI,
        "gen_ai.operation.name",
        "text_completion",
        Kind::Model,
    ),
    attr_is(
        GENAI,
        "gen_ai.operation.name",
        "generate_content",
        Kind::Model,
    ),
    attr_is(GENAI, "gen_ai.operation.name", "execute_tool", Kind::Tool),
    attr_is(
        GENAI,
        "gen_ai.operation.name",
        "invoke_workflow",
        Kind::Workflow,
    ),
    attr_is(OI, "openinference.span.kind", "AGENT", Kind::Agent),
    attr_is(OI, "openinference.span.kind", "LLM", Kind::Model),
    attr_is(OI, "openinference.span.kind", "TOOL", Kind::Tool),
    attr_is(OI, "openinference.span.kind", "GUARDRAIL", Kind::Guardrail),
    attr_is(OI, "openinference.span.kind", "CHAIN", Kind::Chain),
    attr_is(TRACELOOP, "traceloop.span.kind", "agent", Kind::Agent),
    attr_is(TRACELOOP, "traceloop.span.kind", "tool", Kind::Tool),
    attr_is(TRACELOOP, "traceloop.span.kind", "workflow", Kind::Workflow),
    attr_is(TRACELOOP, "traceloop.span.kind", "task", Kind::Chain),
    attr(TRACELOOP, "llm.request.type", Says::Is(Kind::Model)),
    // The AI SDK's `ai.*` spans say what they are in `ai.operationId`: a
    // generate or stream call is an agent's tool loop, its `do*` spans
    // the model calls, `ai.toolCall` a tool call. AI SDK 7 writes each
    // step of the loop as an `agent_step` span: a step, not an agent.
    attr_is(AI_SDK, "ai.operationId", "ai.generateText", Kind::Agent),
    attr_is(AI_SDK, "ai.operationId", "ai.streamText", Kind::Agent),
    attr_is(AI_SDK, "ai.operationId", "ai.generateObject", Kind::Agent),
    attr_is(AI_SDK, "ai.operationId", "ai.streamObject", Kind::Agent),
    attr_is(
        AI_SDK,
        "ai.operationId",
        "ai.generateText.doGenerate",
        Kind::Model,
    ),
    attr_is(
        AI_SDK,
        "ai.operationId",
        "ai.streamText.doStream",
        Kind::Model,
    ),
    attr_is(
        AI_SDK,
        "ai.operationId",
        "ai.generateObject.doGenerate",
        Kind::Model,
    ),
    attr_is(
        AI_SDK,
        "ai.operationId",
        "ai.streamObject.doStream",
        Kind::Model,
    ),
    attr_is(AI_SDK, "ai.operationId", "ai.toolCall", Kind::Tool),
    attr_is(AI_SDK7, "gen_ai.operation.name", "agent_step", Kind::Chain),
    // Names.
    attr(GENAI, "gen_ai.agent.name", Says::AgentName),
    attr(OI, "agent.name", Says::AgentName),
    attr(PYDANTIC, "agent_name", Says::AgentName),
    attr(AI_SDK, "ai.telemetry.functionId", Says::AgentName),
    attr(AI_SDK, "resource.name", Says::AgentName),
    name(GENAI, "invoke_agent ", Says::AgentName),
    // CrewAI's agent span is named `<role>.<task, cut>.execute`; its
    // graph node is the role (so are the Agents SDK's agents').
    attr(OI, "graph.node.id", Says::AgentName),
    attr(GENAI, "gen_ai.agent.name", Says::CallerAgent),
    attr(CREWAI, "tool.agent_role", Says::CallerAgent),
    attr(AI_SDK, "ai.telemetry.functionId", Says::CallerAgent),
    attr(GENAI, "gen_ai.tool.name", Says::ToolName),
    attr(OI, "tool.name", Says::ToolName),
    attr(AI_SDK, "ai.toolCall.name", Says::ToolName),
    name(GENAI, "execute_tool ", Says::ToolName),
    attr(TRACELOOP, "traceloop.entity.name", Says::EntityName),
    // Models, tokens, cost: read on model spans only, so that an agent
    // span's aggregates (PydanticAI's gen_ai.aggregated_usage.*, CrewAI's
    // root llm.token_count.total, the AI SDK's loop totals in ai.usage.*
    // and AI SDK 7's gen_ai.usage.* on invoke_agent) are never counted.
    attr(GENAI, "gen_ai.response.model", Says::ResponseModel),
    attr(GENAI, "gen_ai.request.model", Says::RequestModel),
    attr(OI, "llm.model_name", Says::RequestModel),
    attr(AI_SDK, "ai.response.model", Says::ResponseModel),
    attr(AI_SDK, "ai.model.id", Says::RequestModel),
    attr(GENAI, "gen_ai.usage.input_tokens", Says::InputTokens),
    attr(GENAI, "gen_ai.usage.output_tokens", Says::OutputTokens),
    attr(GENAI, "gen_ai.usage.prompt_tokens", Says::InputTokens),
    attr(GENAI, "gen_ai.usage.completion_tokens", Says::OutputTokens),
    attr(OI, "llm.token_count.prompt", Says::InputTokens),
    attr(OI, "llm.token_count.completion", Says::OutputTokens),
    attr(AI_SDK, "ai.usage.inputTokens", Says::InputTokens),
    attr(AI_SDK, "ai.usage.outputTokens", Says::OutputTokens),
    attr(AI_SDK, "ai.usage.promptTokens", Says::InputTokens),
    attr(AI_SDK, "ai.usage.completionTokens", Says::OutputTokens),
    attr(
        GENAI,
        "gen_ai.usage.cache_read.input_tokens",
        Says::CachedInputTokens,
    ),
    attr(
        OI,
        "llm.token_count.prompt_details.cache_read",
        Says::CachedInputTokens,
    ),
    attr(
        AI_SDK,
        "ai.usage.inputTokenDetails.cacheReadTokens",
        Says::CachedInputTokens,
    ),
    attr(
        AI_SDK,
        "ai.usage.cachedInputTokens",
        Says::CachedInputTokens,
    ),
    // A framework's own cost is preferred to Conclave's price table.
    attr(OI, "llm.cost.total", Says::CostUsd),
    attr(PYDANTIC, "operation.cost", Says::CostUsd),
    attr(CONCLAVE, "conclave.cost_usd", Says::CostUsd),
    // Conversations, errors, graphs.
    attr(GENAI, "gen_ai.conversation.id", Says::Conversation),
    attr(OI, "session.id", Says::Conversation),
    attr(GENAI, "error.type", Says::ErrorType),
    attr(OI, "graph.node.id", Says::GraphNode),
    attr(OI, "graph.node.parent_id", Says::GraphParent),
    // LangGraph writes no handoff and marks a node AGENT only when its
    // name holds "agent": a span works for the top graph node it runs in
    // (the first part of `langgraph_checkpoint_ns`, `supervisor:<uuid>|…`),
    // and each change of that node is a handoff.
    json(
        LANGGRAPH,
        ("metadata", "langgraph_node"),
        None,
        Says::NodeName,
    ),
    json(LANGGRAPH, ("metadata", "langgraph_step"), None, Says::Step),
    json(
        LANGGRAPH,
        ("metadata", "langgraph_checkpoint_ns"),
        Some(':'),
        Says::Actor,
    ),
    json(
        LANGGRAPH,
        ("metadata", "langgraph_checkpoint_ns"),
        Some('|'),
        Says::Activation,
    ),
    json(
        LANGGRAPH,
        ("metadata", "langgraph_checkpoint_ns"),
        None,
        Says::Turns,
    ),
    // AutoGen's group chat: speakers take turns, and no model call has a
    // span; the usage is in the runtime spans' `message` JSON.
    attr_says(AUTOGEN, "gen_ai.system", "autogen", Says::Turns),
    attr(AUTOGEN, "message", Says::MessageUsage),
    // Conclave's own handoffs are events on the team's span.
    Row {
        source: CONCLAVE,
        looks: Looks::Event("conclave.handoff"),
        says: Says::Is(Kind::Handoff),
    },
    Row {
        source: CONCLAVE,
        looks: Looks::EventAttr("conclave.from"),
        says: Says::HandoffFrom,
    },
    Row {
        source: CONCLAVE,
        looks: Looks::EventAttr("conclave.to"),
        says: Says::HandoffTo,
    },
];

/// The exceptions a framework raises to pass control, not because
/// anything failed (LangGraph's, in Python and JavaScript: a `Command`
/// handoff to a parent graph is raised as `ParentCommand`, an
/// `interrupt()` as `GraphInterrupt`; `GraphBubbleUp` is their base).
/// A span that ended in one is no failure; its exception stays in its
/// events, shown in its details.
pub(crate) const CONTROL_FLOW: &[&str] = &[
    "ParentCommand",
    "GraphBubbleUp",
    "GraphInterrupt",
    "NodeInterrupt",
];

/// LangGraph's entry node, which runs nothing of the app's: no node of
/// its graph, no actor.
pub(crate) const LANGGRAPH_START: &str = "__start__";

#[cfg(test)]
mod kind_tests {
    use super::Kind;

    #[test]
    fn a_kinds_word_is_the_name_its_recordings_write() {
        let kinds = [
            Kind::Agent,
            Kind::Model,
            Kind::Tool,
            Kind::Handoff,
            Kind::Guardrail,
            Kind::Workflow,
            Kind::Chain,
            Kind::Setup,
            Kind::Generic,
        ];
        for kind in kinds {
            assert_eq!(serde_json::to_value(kind).unwrap(), kind.word(), "{kind:?}");
        }
    }
}
