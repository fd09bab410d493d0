//! One tool's resilience settings: its override merged over the section,
//! field by field, with 003's safe defaults for what neither sets. The
//! gateway builds its mechanisms from [`ResilienceSpec::for_tool`]; the
//! dashboard reads the same settings. Pure data.

use super::{
    BackoffSpec, BreakerSpec, BulkheadSpec, DEFAULT_BACKOFF_MS, DEFAULT_FAIL_THRESHOLD,
    DEFAULT_HALF_OPEN_PROBES, DEFAULT_MAX_ATTEMPTS, DEFAULT_MAX_IN_FLIGHT, DEFAULT_OPEN_FOR_MS,
    DEFAULT_TIMEOUT_KEY, GatewayMechanism, Jitter, ResilienceSpec, RetriesSpec, ToolOverride,
};

/// The settings of one tool, the section and the tool's override merged.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct ToolResilience {
    pub(crate) timeout_ms: Option<u64>,
    pub(crate) retries: Option<RetryRule>,
    pub(crate) breaker: Option<BreakerRule>,
    pub(crate) bulkhead: Option<BulkheadRule>,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RetryRule {
    pub(crate) max_attempts: u32,
    pub(crate) backoff: BackoffSpec,
    pub(crate) jitter: Jitter,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct BreakerRule {
    /// `None` when only the failure rate opens the breaker.
    pub(crate) fail_threshold: Option<u32>,
    pub(crate) open_for_ms: u64,
    pub(crate) half_open_probes: u32,
    pub(crate) failure_rate: Option<FailureRule>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct FailureRule {
    pub(crate) window: u32,
    pub(crate) threshold: f64,
    pub(crate) min_calls: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BulkheadRule {
    pub(crate) max_in_flight: u32,
    pub(crate) max_wait_ms: u64,
}

impl ResilienceSpec {
    /// `tool`'s settings: its override over the section, field by field,
    /// and 003's defaults for what neither sets.
    pub(crate) fn for_tool(&self, tool: &str) -> ToolResilience {
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
    use super::super::{ExponentialBackoff, SafeModeSpec};
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
                allow_partial: true,
                fallback: None,
            })
        );
    }
}
