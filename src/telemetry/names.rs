//! The names every Conclave trace shares, in one place: the OpenTelemetry
//! GenAI semantic conventions' attribute names (as of semantic conventions
//! 1.38, and the usage's cache-read and reasoning parts as the conventions
//! named them since, still experimental) and Conclave's own `conclave.*` names for what the conventions
//! lack. Nothing else in the exporter spells an attribute, an event or an
//! operation; a rename in the conventions is a change here alone. A name
//! only one pattern's spans use lives in that pattern's `trace.rs` (or
//! `spans.rs`), beside the spans it names.

/// `gen_ai.operation.name`: what a span does (one of the `OP_*` values).
pub(crate) const OPERATION_NAME: &str = "gen_ai.operation.name";
/// `gen_ai.provider.name`: who serves the model (`openai`, ...).
pub(crate) const PROVIDER_NAME: &str = "gen_ai.provider.name";
/// `gen_ai.request.model`: the model asked for.
pub(crate) const REQUEST_MODEL: &str = "gen_ai.request.model";
/// `gen_ai.response.model`: the model that answered, where known.
pub(crate) const RESPONSE_MODEL: &str = "gen_ai.response.model";
/// `gen_ai.usage.input_tokens`: prompt tokens of a model call.
pub(crate) const USAGE_INPUT_TOKENS: &str = "gen_ai.usage.input_tokens";
/// `gen_ai.usage.output_tokens`: completion tokens of a model call.
pub(crate) const USAGE_OUTPUT_TOKENS: &str = "gen_ai.usage.output_tokens";
/// `gen_ai.usage.cache_read.input_tokens`: of the input tokens, those the
/// endpoint served from its prompt cache (included in the input tokens,
/// as the conventions ask).
pub(crate) const USAGE_CACHE_READ_INPUT_TOKENS: &str = "gen_ai.usage.cache_read.input_tokens";
/// `gen_ai.usage.reasoning.output_tokens`: of the output tokens, those the
/// model spent reasoning (included in the output tokens).
pub(crate) const USAGE_REASONING_OUTPUT_TOKENS: &str = "gen_ai.usage.reasoning.output_tokens";
/// `gen_ai.agent.name`: the agent an `invoke_agent` span runs.
pub(crate) const AGENT_NAME: &str = "gen_ai.agent.name";
/// `gen_ai.tool.name`: the tool an `execute_tool` span calls.
pub(crate) const TOOL_NAME: &str = "gen_ai.tool.name";
/// `gen_ai.output.messages`: a model's or an agent's output, only with
/// `--otlp-content`.
pub(crate) const OUTPUT_MESSAGES: &str = "gen_ai.output.messages";
/// `gen_ai.input.messages`: what the run was asked, only with
/// `--otlp-content`.
pub(crate) const INPUT_MESSAGES: &str = "gen_ai.input.messages";
/// `error.type`: why a span failed, low in cardinality (`timeout`,
/// `circuit_open`, `bulkhead_full`, `worker_error`, ...).
pub(crate) const ERROR_TYPE: &str = "error.type";
/// The resource's `service.name` without `OTEL_SERVICE_NAME`.
pub(crate) const DEFAULT_SERVICE_NAME: &str = "conclave";

/// The values of [`OPERATION_NAME`].
pub(crate) const OP_INVOKE_WORKFLOW: &str = "invoke_workflow";
pub(crate) const OP_INVOKE_AGENT: &str = "invoke_agent";
pub(crate) const OP_CHAT: &str = "chat";
pub(crate) const OP_EXECUTE_TOOL: &str = "execute_tool";
/// The orchestrator's planner: a step of the workflow, not a convention's
/// operation, so it keeps Conclave's name.
pub(crate) const SPAN_PLAN: &str = "plan";

/// The span event that carries content (`--otlp-content`), as the
/// conventions name the details of an inference.
pub(crate) const EVENT_CONTENT: &str = "gen_ai.client.inference.operation.details";

/// Conclave's attributes.
pub(crate) const RUN: &str = "conclave.run";
pub(crate) const SCENARIO: &str = "conclave.scenario";
pub(crate) const SOURCE: &str = "conclave.source";
pub(crate) const PATTERN: &str = "conclave.pattern";
pub(crate) const SEED: &str = "conclave.seed";
pub(crate) const CLOCK: &str = "conclave.clock";
pub(crate) const FLAGS: &str = "conclave.flags";
pub(crate) const STATUS: &str = "conclave.status";
pub(crate) const STOP_REASON: &str = "conclave.stop_reason";
pub(crate) const DECISION: &str = "conclave.decision";
pub(crate) const HEALTH: &str = "conclave.health";
pub(crate) const FINAL_AGENT: &str = "conclave.final_agent";
pub(crate) const ROUND: &str = "conclave.round";
pub(crate) const TASK: &str = "conclave.task";
pub(crate) const TASKS: &str = "conclave.tasks";
pub(crate) const TASK_STATUS: &str = "conclave.task.status";
pub(crate) const TURN: &str = "conclave.turn";
pub(crate) const PHASE: &str = "conclave.phase";
pub(crate) const COUNT: &str = "conclave.count";
pub(crate) const CALL_ID: &str = "conclave.call.id";
pub(crate) const LABEL: &str = "conclave.call.label";
pub(crate) const ATTEMPT: &str = "conclave.attempt";
pub(crate) const ATTEMPTS: &str = "conclave.attempts";
pub(crate) const MAX_ATTEMPTS: &str = "conclave.max_attempts";
pub(crate) const OUTCOME: &str = "conclave.outcome";
pub(crate) const HTTP_STATUS: &str = "conclave.http_status";
pub(crate) const TOOL: &str = "conclave.tool";
pub(crate) const REASON: &str = "conclave.reason";
pub(crate) const DELAY_MS: &str = "conclave.delay_ms";
pub(crate) const FROM: &str = "conclave.from";
pub(crate) const TO: &str = "conclave.to";
pub(crate) const FLAG: &str = "conclave.flag";
pub(crate) const ON: &str = "conclave.on";
pub(crate) const GATE: &str = "conclave.gate";
pub(crate) const CHOICE: &str = "conclave.choice";
pub(crate) const URL: &str = "conclave.url";
/// A model call served from a recording (a cassette, a fork's served
/// part): nothing was asked of a model, and it cost nothing now.
pub(crate) const SERVED: &str = "conclave.served";
/// What a model call cost this run, in US dollars, when its model has a
/// price (the run's own figure, priced as the run priced it): 0 on a
/// served call.
pub(crate) const COST_USD: &str = "conclave.cost_usd";
/// A served call's recorded tokens, apart from `gen_ai.usage.*`, which a
/// backend would price again.
pub(crate) const SERVED_INPUT_TOKENS: &str = "conclave.served.input_tokens";
pub(crate) const SERVED_OUTPUT_TOKENS: &str = "conclave.served.output_tokens";
pub(crate) const SERVED_CACHE_READ_INPUT_TOKENS: &str = "conclave.served.cache_read.input_tokens";
pub(crate) const SERVED_REASONING_OUTPUT_TOKENS: &str = "conclave.served.reasoning.output_tokens";

/// Conclave's span events.
pub(crate) const EVENT_RETRY: &str = "conclave.retry";
pub(crate) const EVENT_CALL_REJECTED: &str = "conclave.call_rejected";
pub(crate) const EVENT_BULKHEAD_REJECTED: &str = "conclave.bulkhead_rejected";
pub(crate) const EVENT_FALLBACK: &str = "conclave.fallback_served";
pub(crate) const EVENT_BREAKER: &str = "conclave.breaker_transition";
pub(crate) const EVENT_FLAG_CHANGED: &str = "conclave.flag_changed";
pub(crate) const EVENT_PAUSED: &str = "conclave.paused";
pub(crate) const EVENT_RESUMED: &str = "conclave.resumed";
pub(crate) const EVENT_STEPPED: &str = "conclave.stepped";
pub(crate) const EVENT_ESCALATED: &str = "conclave.escalated_to_human";
pub(crate) const EVENT_HUMAN_DECIDED: &str = "conclave.human_decided";
