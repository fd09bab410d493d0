//! The `resilience` section of a scenario file (any pattern), after 003:
//! timeouts, retries with backoff and jitter, a retry budget, a circuit
//! breaker and a bulkhead per tool, safe mode, and per-tool overrides, as
//! the file writes them. `settings` merges them per tool. Types only:
//! nothing here runs or times anything.

mod settings;

pub(crate) use settings::{BreakerRule, BulkheadRule, FailureRule, RetryRule, ToolResilience};

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// 003's safe defaults, taken by every field a configured mechanism leaves out.
pub(crate) const DEFAULT_MAX_ATTEMPTS: u32 = 2;
pub(crate) const DEFAULT_BACKOFF_MS: [u64; 2] = [250, 750];
pub(crate) const DEFAULT_FAIL_THRESHOLD: u32 = 5;
pub(crate) const DEFAULT_OPEN_FOR_MS: u64 = 30_000;
pub(crate) const DEFAULT_HALF_OPEN_PROBES: u32 = 1;
pub(crate) const DEFAULT_MAX_IN_FLIGHT: u32 = 10;

/// The tool name of model calls, in the resilience section and in events.
pub(crate) const MODEL_TOOL: &str = "model";

/// The key of `timeouts_ms` that applies to every tool not named there.
pub(crate) const DEFAULT_TIMEOUT_KEY: &str = "default";

/// How the gateway shields the run's dependencies. Every model call (tool
/// name `model`) and every tool or worker call passes through it. A
/// mechanism left out is off; a field left out of a mechanism takes 003's
/// safe default. Without this section every pattern behaves exactly as its
/// reference.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResilienceSpec {
    /// Milliseconds one attempt of a call may take: `default` for every
    /// tool, or a tool's name (`model`, a worker) for that tool. It replaces
    /// the pattern's own per-call timeout for the tools it covers.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub(crate) timeouts_ms: IndexMap<String, u64>,
    /// Retries, in this one place: on timeouts and transient errors only,
    /// never on an open breaker, a full bulkhead or an exhausted retry
    /// budget. Without it each pattern keeps its own retry rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) retries: Option<RetriesSpec>,
    /// A cap on retries across the run, as a share of first calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) retry_budget: Option<RetryBudgetSpec>,
    /// A circuit breaker per tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) circuit_breaker: Option<BreakerSpec>,
    /// A concurrency limit per tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) bulkhead: Option<BulkheadSpec>,
    /// What happens when a call fails fast (open breaker, full bulkhead,
    /// exhausted retry budget).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) safe_mode: Option<SafeModeSpec>,
    /// Per-tool settings over the section's, field by field, by tool name
    /// (`model` or a worker).
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub(crate) tools: IndexMap<String, ToolOverride>,
}

/// Retries of a failed call.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RetriesSpec {
    /// Off for this tool when false (in `tools`); default true.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) enabled: Option<bool>,
    /// Attempts per call, the first one included (default 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub(crate) max_attempts: Option<u32>,
    /// Delay before each retry (default [250, 750]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) backoff_ms: Option<BackoffSpec>,
    /// How the delay is randomised (default `full`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) jitter: Option<Jitter>,
}

/// The delays before retries: a list of milliseconds, one per retry in
/// order (the last repeats), or {"base_ms", "max_ms"} for exponential
/// backoff (base doubled per retry, capped at max).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub(crate) enum BackoffSpec {
    List(Vec<u64>),
    Exponential(ExponentialBackoff),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ExponentialBackoff {
    /// The delay before the first retry.
    pub(crate) base_ms: u64,
    /// No delay is longer.
    pub(crate) max_ms: u64,
}

/// How a delay is randomised (the three of the AWS architecture blog's
/// "Exponential Backoff And Jitter", and none): `none` waits the delay;
/// `full` a random time up to it; `equal` half of it plus a random time up
/// to the other half; `decorrelated` a random time between the first delay
/// and three times the previous one, capped at the longest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Jitter {
    None,
    Full,
    Equal,
    Decorrelated,
}

/// Retries in a run may not exceed this share of first calls (the SRE
/// book's per-client retry budget); a retry over budget fails at once with
/// `retry_budget_exhausted`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RetryBudgetSpec {
    /// Retries allowed per first call, e.g. 0.1.
    #[schemars(range(min = 0))]
    pub(crate) ratio: f64,
    /// Retries allowed on top of the share, so the first failures of a run
    /// can be retried (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) min_retries: Option<u64>,
}

/// A circuit breaker: closed → open when consecutive failures reach
/// `fail_threshold` (or the failure rate trips); open fails fast with
/// `circuit_open:<tool>` for `open_for_ms`; then half-open lets
/// `half_open_probes` calls through: all succeed → closed, one fails →
/// open again.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct BreakerSpec {
    /// Off for this tool when false (in `tools`); default true.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) enabled: Option<bool>,
    /// Consecutive failures that open the breaker (default 5; with
    /// `failure_rate` and without this, only the rate opens it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub(crate) fail_threshold: Option<u32>,
    /// How long an open breaker fails fast (default 30000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) open_for_ms: Option<u64>,
    /// Calls a half-open breaker lets through to test the tool (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub(crate) half_open_probes: Option<u32>,
    /// Open also when the share of failures among the last calls reaches a
    /// threshold (resilience4j's count-based window).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) failure_rate: Option<FailureRateSpec>,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct FailureRateSpec {
    /// How many of the last calls count.
    #[schemars(range(min = 1))]
    pub(crate) window: u32,
    /// The share of failures among them that opens the breaker, e.g. 0.5.
    #[schemars(range(min = 0, max = 1))]
    pub(crate) threshold: f64,
    /// Calls the window must hold before the rate counts (default: the
    /// window).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub(crate) min_calls: Option<u32>,
}

/// A bulkhead: at most `max_in_flight` calls to the tool at once; one more
/// waits up to `max_wait_ms`, then fails with `bulkhead_full:<tool>`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct BulkheadSpec {
    /// Off for this tool when false (in `tools`); default true.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) enabled: Option<bool>,
    /// Calls at once (default 10).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub(crate) max_in_flight: Option<u32>,
    /// How long a call waits for a free slot (default 0: rejected at once).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) max_wait_ms: Option<u64>,
}

/// Safe mode, 003's degraded behaviour: with `allow_partial`, a
/// non-critical call that fails fast is skipped and the run goes on, its
/// result saying `partial: true` and listing the `degraded` tools; without
/// it, such a call stops the run early with its reason.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SafeModeSpec {
    /// Default true.
    #[serde(default = "yes")]
    pub(crate) enabled: bool,
    /// Default true.
    #[serde(default = "yes")]
    pub(crate) allow_partial: bool,
    /// What a call that fails fast gets instead of failing: by default
    /// nothing; `"last_known_good"`, the tool's last good answer to the
    /// same arguments (from this run, or from `--cache DIR`), marked stale.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) fallback: Option<SafeModeFallback>,
}

/// Safe mode's fallback for a call that fails fast.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum SafeModeFallback {
    LastKnownGood,
}

fn yes() -> bool {
    true
}

/// One tool's settings over the section's.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ToolOverride {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) retries: Option<RetriesSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) circuit_breaker: Option<BreakerSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) bulkhead: Option<BulkheadSpec>,
}

/// A gateway mechanism a flag can switch live (`"gateway":
/// "circuit_breaker"` in a flag): on, it works as the resilience section
/// configures it; off, as if the section left it out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GatewayMechanism {
    CircuitBreaker,
    Bulkhead,
    Retries,
    RetryBudget,
    SafeMode,
}

impl GatewayMechanism {
    pub(crate) const ALL: [GatewayMechanism; 5] = [
        GatewayMechanism::CircuitBreaker,
        GatewayMechanism::Bulkhead,
        GatewayMechanism::Retries,
        GatewayMechanism::RetryBudget,
        GatewayMechanism::SafeMode,
    ];

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            GatewayMechanism::CircuitBreaker => "circuit_breaker",
            GatewayMechanism::Bulkhead => "bulkhead",
            GatewayMechanism::Retries => "retries",
            GatewayMechanism::RetryBudget => "retry_budget",
            GatewayMechanism::SafeMode => "safe_mode",
        }
    }

    pub(crate) fn index(self) -> usize {
        self as usize
    }
}
