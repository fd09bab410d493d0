//! The `resilience` section of a scenario file (any pattern), after 003:
//! timeouts, retries with backoff and jitter, a retry budget, a circuit
//! breaker and a bulkhead per tool, safe mode, and per-tool overrides. Types
//! and the merge of a tool's override over the section; the gateway builds
//! its mechanisms from [`ResilienceSpec::for_tool`], the dashboard reads the
//! same settings. Nothing here runs or times anything.

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// 003's safe defaults, taken by every field a configured mechanism leaves out.
pub const DEFAULT_MAX_ATTEMPTS: u32 = 2;
pub const DEFAULT_BACKOFF_MS: [u64; 2] = [250, 750];
pub const DEFAULT_FAIL_THRESHOLD: u32 = 5;
pub const DEFAULT_OPEN_FOR_MS: u64 = 30_000;
pub const DEFAULT_HALF_OPEN_PROBES: u32 = 1;
pub const DEFAULT_MAX_IN_FLIGHT: u32 = 10;

/// The tool name of model calls, in the resilience section and in events.
pub const MODEL_TOOL: &str = "model";

/// The key of `timeouts_ms` that applies to every tool not named there.
pub const DEFAULT_TIMEOUT_KEY: &str = "default";

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
    pub timeouts_ms: IndexMap<String, u64>,
    /// Retries, in this one place: on timeouts and transient errors only,
    /// never on an open breaker, a full bulkhead or an exhausted retry
    /// budget. Without it each pattern keeps its own retry rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retries: Option<RetriesSpec>,
    /// A cap on retries across the run, as a share of first calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_budget: Option<RetryBudgetSpec>,
    /// A circuit breaker per tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub circuit_breaker: Option<BreakerSpec>,
    /// A concurrency limit per tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bulkhead: Option<BulkheadSpec>,
    /// What happens when a call fails fast (open breaker, full bulkhead,
    /// exhausted retry budget).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub safe_mode: Option<SafeModeSpec>,
    /// Per-tool settings over the section's, field by field, by tool name
    /// (`model` or a worker).
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub tools: IndexMap<String, ToolOverride>,
}

/// Retries of a failed call.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RetriesSpec {
    /// Off for this tool when false (in `tools`); default true.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// Attempts per call, the first one included (default 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub max_attempts: Option<u32>,
    /// Delay before each retry (default [250, 750]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backoff_ms: Option<BackoffSpec>,
    /// How the delay is randomised (default `full`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jitter: Option<Jitter>,
}

/// The delays before retries: a list of milliseconds, one per retry in
/// order (the last repeats), or {"base_ms", "max_ms"} for exponential
/// backoff (base doubled per retry, capped at max).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum BackoffSpec {
    List(Vec<u64>),
    Exponential(ExponentialBackoff),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExponentialBackoff {
    /// The delay before the first retry.
    pub base_ms: u64,
    /// No delay is longer.
    pub max_ms: u64,
}

/// How a delay is randomised (the three of the AWS architecture blog's
/// "Exponential Backoff And Jitter", and none): `none` waits the delay;
/// `full` a random time up to it; `equal` half of it plus a random time up
/// to the other half; `decorrelated` a random time between the first delay
/// and three times the previous one, capped at the longest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Jitter {
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
pub struct RetryBudgetSpec {
    /// Retries allowed per first call, e.g. 0.1.
    #[schemars(range(min = 0))]
    pub ratio: f64,
    /// Retries allowed on top of the share, so the first failures of a run
    /// can be retried (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_retries: Option<u64>,
}

/// A circuit breaker: closed → open when consecutive failures reach
/// `fail_threshold` (or the failure rate trips); open fails fast with
/// `circuit_open:<tool>` for `open_for_ms`; then half-open lets
/// `half_open_probes` calls through: all succeed → closed, one fails →
/// open again.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BreakerSpec {
    /// Off for this tool when false (in `tools`); default true.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// Consecutive failures that open the breaker (default 5; with
    /// `failure_rate` and without this, only the rate opens it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub fail_threshold: Option<u32>,
    /// How long an open breaker fails fast (default 30000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_for_ms: Option<u64>,
    /// Calls a half-open breaker lets through to test the tool (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub half_open_probes: Option<u32>,
    /// Open also when the share of failures among the last calls reaches a
    /// threshold (resilience4j's count-based window).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_rate: Option<FailureRateSpec>,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FailureRateSpec {
    /// How many of the last calls count.
    #[schemars(range(min = 1))]
    pub window: u32,
    /// The share of failures among them that opens the breaker, e.g. 0.5.
    #[schemars(range(min = 0, max = 1))]
    pub threshold: f64,
    /// Calls the window must hold before the rate counts (default: the
    /// window).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub min_calls: Option<u32>,
}

/// A bulkhead: at most `max_in_flight` calls to the tool at once; one more
/// waits up to `max_wait_ms`, then fails with `bulkhead_full:<tool>`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BulkheadSpec {
    /// Off for this tool when false (in `tools`); default true.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// Calls at once (default 10).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub max_in_flight: Option<u32>,
    /// How long a call waits for a free slot (default 0: rejected at once).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_wait_ms: Option<u64>,
}

/// Safe mode, 003's degraded behaviour: with `allow_partial`, a
/// non-critical call that fails fast is skipped and the run goes on, its
/// result saying `partial: true` and listing the `degraded` tools; without
/// it, such a call stops the run early with its reason.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SafeModeSpec {
    /// Default true.
    #[serde(default = "yes")]
    pub enabled: bool,
    /// Default true.
    #[serde(default = "yes")]
    pub allow_partial: bool,
}

fn yes() -> bool {
    true
}

/// One tool's settings over the section's.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ToolOverride {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retries: Option<RetriesSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub circuit_breaker: Option<BreakerSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bulkhead: Option<BulkheadSpec>,
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
    pub const ALL: [GatewayMechanism; 5] = [
        GatewayMechanism::CircuitBreaker,
        GatewayMechanism::Bulkhead,
        GatewayMechanism::Retries,
        GatewayMechanism::RetryBudget,
        GatewayMechanism::SafeMode,
    ];

    pub fn as_str(self) -> &'static str {
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

/// The settings of one tool, the section and the tool's override merged.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ToolResilience {
    pub timeout_ms: Option<u64>,
    pub retries: Option<RetryRule>,
    pub breaker: Option<BreakerRule>,
    pub bulkhead: Option<BulkheadRule>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct RetryRule {
    pub max_attempts: u32,
    pub backoff: BackoffSpec,
    pub jitter: Jitter,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BreakerRule {
    /// `None` when only the failure rate opens the breaker.
    pub fail_threshold: Option<u32>,
    pub open_for_ms: u64,
    pub half_open_probes: u32,
    pub failure_rate: Option<FailureRule>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FailureRule {
    pub window: u32,
    pub threshold: f64,
    pub min_calls: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BulkheadRule {
    pub max_in_flight: u32,
    pub max_wait_ms: u64,
}

impl ResilienceSpec {
    /// `tool`'s settings: its override over the section, field by field,
    /// and 003's defaults for what neither sets.
    pub fn for_tool(&self, tool: &str) -> ToolResilience {
        let own = self.tools.get(tool);
        ToolResilience {
            timeout_ms: self
                .timeouts_ms
                .get(tool)
                .or_else(|| self.timeouts_ms.get(DEFAULT_TIMEOUT_KEY))
                .copied(),
            retries: merge(
                self.retries.as_ref(),
                own.and_then(|o| o.retries.as_ref()),
                |a, b| RetriesSpec {
                    enabled: b.enabled.or(a.enabled),
                    max_attempts: b.max_attempts.or(a.max_attempts),
                    backoff_ms: b.backoff_ms.clone().or_else(|| a.backoff_ms.clone()),
                    jitter: b.jitter.or(a.jitter),
                },
            )
            .filter(|r| r.enabled != Some(false))
            .map(|r| RetryRule {
                max_attempts: r.max_attempts.unwrap_or(DEFAULT_MAX_ATTEMPTS).max(1),
                backoff: r
                    .backoff_ms
                    .unwrap_or_else(|| BackoffSpec::List(DEFAULT_BACKOFF_MS.to_vec())),
                jitter: r.jitter.unwrap_or(Jitter::Full),
            }),
            breaker: merge(
                self.circuit_breaker.as_ref(),
                own.and_then(|o| o.circuit_breaker.as_ref()),
                |a, b| BreakerSpec {
                    enabled: b.enabled.or(a.enabled),
                    fail_threshold: b.fail_threshold.or(a.fail_threshold),
                    open_for_ms: b.open_for_ms.or(a.open_for_ms),
                    half_open_probes: b.half_open_probes.or(a.half_open_probes),
                    failure_rate: b.failure_rate.or(a.failure_rate),
                },
            )
            .filter(|b| b.enabled != Some(false))
            .map(|b| BreakerRule {
                fail_threshold: match (b.fail_threshold, b.failure_rate) {
                    (Some(n), _) => Some(n.max(1)),
                    (None, Some(_)) => None,
                    (None, None) => Some(DEFAULT_FAIL_THRESHOLD),
                },
                open_for_ms: b.open_for_ms.unwrap_or(DEFAULT_OPEN_FOR_MS),
                half_open_probes: b
                    .half_open_probes
                    .unwrap_or(DEFAULT_HALF_OPEN_PROBES)
                    .max(1),
                failure_rate: b.failure_rate.map(|f| FailureRule {
                    window: f.window.max(1),
                    threshold: f.threshold,
                    min_calls: f.min_calls.unwrap_or(f.window).max(1),
                }),
            }),
            bulkhead: merge(
                self.bulkhead.as_ref(),
                own.and_then(|o| o.bulkhead.as_ref()),
                |a, b| BulkheadSpec {
                    enabled: b.enabled.or(a.enabled),
                    max_in_flight: b.max_in_flight.or(a.max_in_flight),
                    max_wait_ms: b.max_wait_ms.or(a.max_wait_ms),
                },
            )
            .filter(|b| b.enabled != Some(false))
            .map(|b| BulkheadRule {
                max_in_flight: b.max_in_flight.unwrap_or(DEFAULT_MAX_IN_FLIGHT).max(1),
                max_wait_ms: b.max_wait_ms.unwrap_or(0),
            }),
        }
    }

    /// Whether any tool gets `mechanism` from this section.
    pub fn configures(&self, mechanism: GatewayMechanism) -> bool {
        let in_tools = |pick: fn(&ToolOverride) -> bool| self.tools.values().any(pick);
        match mechanism {
            GatewayMechanism::CircuitBreaker => {
                self.circuit_breaker.is_some() || in_tools(|t| t.circuit_breaker.is_some())
            }
            GatewayMechanism::Bulkhead => {
                self.bulkhead.is_some() || in_tools(|t| t.bulkhead.is_some())
            }
            GatewayMechanism::Retries => {
                self.retries.is_some() || in_tools(|t| t.retries.is_some())
            }
            GatewayMechanism::RetryBudget => self.retry_budget.is_some(),
            GatewayMechanism::SafeMode => self.safe_mode.is_some(),
        }
    }
}

/// The section's settings and a tool's, merged by `both` when both exist.
fn merge<T: Clone>(section: Option<&T>, tool: Option<&T>, both: impl Fn(&T, &T) -> T) -> Option<T> {
    match (section, tool) {
        (Some(a), Some(b)) => Some(both(a, b)),
        (Some(a), None) => Some(a.clone()),
        (None, Some(b)) => Some(b.clone()),
        (None, None) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec(value: serde_json::Value) -> ResilienceSpec {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn a_tool_override_merges_over_the_section_field_by_field() {
        let spec = spec(json!({
            "timeouts_ms": {"default": 10000, "model": 30000},
            "retries": {"max_attempts": 3, "backoff_ms": {"base_ms": 100, "max_ms": 800}, "jitter": "equal"},
            "circuit_breaker": {"fail_threshold": 5, "open_for_ms": 30000},
            "tools": {
                "enrichment_worker": {"circuit_breaker": {"fail_threshold": 3}, "bulkhead": {"max_in_flight": 2}},
                "model": {"circuit_breaker": {"enabled": false}, "retries": {"jitter": "none"}}
            }
        }));
        let enrichment = spec.for_tool("enrichment_worker");
        assert_eq!(enrichment.timeout_ms, Some(10000));
        assert_eq!(
            enrichment.breaker,
            Some(BreakerRule {
                fail_threshold: Some(3),
                open_for_ms: 30000,
                half_open_probes: 1,
                failure_rate: None
            })
        );
        assert_eq!(
            enrichment.bulkhead,
            Some(BulkheadRule {
                max_in_flight: 2,
                max_wait_ms: 0
            })
        );
        let model = spec.for_tool("model");
        assert_eq!(model.timeout_ms, Some(30000));
        assert_eq!(model.breaker, None, "switched off for the model");
        assert_eq!(model.bulkhead, None, "no bulkhead anywhere but enrichment");
        let retries = model.retries.unwrap();
        assert_eq!((retries.max_attempts, retries.jitter), (3, Jitter::None));
        assert_eq!(
            retries.backoff,
            BackoffSpec::Exponential(ExponentialBackoff {
                base_ms: 100,
                max_ms: 800
            })
        );
    }

    #[test]
    fn missing_fields_take_the_safe_defaults_and_missing_mechanisms_are_off() {
        let all = spec(json!({"retries": {}, "circuit_breaker": {}, "bulkhead": {}})).for_tool("x");
        assert_eq!(
            all.retries,
            Some(RetryRule {
                max_attempts: 2,
                backoff: BackoffSpec::List(vec![250, 750]),
                jitter: Jitter::Full
            })
        );
        assert_eq!(all.breaker.unwrap().fail_threshold, Some(5));
        assert_eq!(all.breaker.unwrap().open_for_ms, 30000);
        assert_eq!(all.bulkhead.unwrap().max_in_flight, 10);
        assert_eq!(all.timeout_ms, None);
        assert_eq!(spec(json!({})).for_tool("x"), ToolResilience::default());
        let rate_only =
            spec(json!({"circuit_breaker": {"failure_rate": {"window": 10, "threshold": 0.5}}}))
                .for_tool("x")
                .breaker
                .unwrap();
        assert_eq!(rate_only.fail_threshold, None);
        assert_eq!(rate_only.failure_rate.unwrap().min_calls, 10);
    }

    #[test]
    fn mechanisms_are_configured_by_the_section_or_a_tool() {
        let spec = spec(json!({"tools": {"a": {"bulkhead": {}}}, "safe_mode": {}}));
        assert!(spec.configures(GatewayMechanism::Bulkhead));
        assert!(spec.configures(GatewayMechanism::SafeMode));
        assert!(!spec.configures(GatewayMechanism::CircuitBreaker));
        assert!(!spec.configures(GatewayMechanism::RetryBudget));
        assert_eq!(
            spec.safe_mode,
            Some(SafeModeSpec {
                enabled: true,
                allow_partial: true
            })
        );
    }
}
