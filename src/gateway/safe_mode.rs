//! Safe mode, 003's degraded behaviour for a call that fails fast (an open
//! breaker, a full bulkhead, an exhausted retry budget): with
//! `allow_partial`, a non-critical call is skipped and its tool listed as
//! degraded so the run can go on and say its result is partial; without
//! it, the run stops early with the call's reason. A critical call is never
//! skipped. It decides the verdict; the runner carries it out.

use crate::scenario::SafeModeSpec;
use crate::stop::StopReason;
use parking_lot::Mutex;

/// What safe mode made of a call that failed fast.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SafeModeVerdict {
    /// Skipped: the run goes on without it, and its result is partial.
    Skipped,
    /// The run stops early with the call's reason.
    StopRun,
}

#[derive(Debug)]
pub(crate) struct SafeMode {
    allow_partial: bool,
    /// Tools skipped at least once, in the order they were first skipped.
    degraded: Mutex<Vec<String>>,
}

impl SafeMode {
    /// `None` when the section leaves safe mode out or disables it.
    pub(crate) fn new(spec: &SafeModeSpec) -> Option<Self> {
        spec.enabled.then(|| SafeMode {
            allow_partial: spec.allow_partial,
            degraded: Mutex::new(Vec::new()),
        })
    }

    /// The verdict on a call to `tool` that ended with `reason`; `None`
    /// when safe mode has nothing to say (it did not fail fast, or it is
    /// critical).
    pub(crate) fn judge(
        &self,
        tool: &str,
        critical: bool,
        reason: &StopReason,
    ) -> Option<SafeModeVerdict> {
        if critical || !reason.is_fail_fast() {
            return None;
        }
        if !self.allow_partial {
            return Some(SafeModeVerdict::StopRun);
        }
        let mut degraded = self.degraded.lock();
        if !degraded.iter().any(|t| t == tool) {
            degraded.push(tool.to_string());
        }
        Some(SafeModeVerdict::Skipped)
    }

    pub(crate) fn degraded(&self) -> Vec<String> {
        self.degraded.lock().clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(tool: &str) -> StopReason {
        StopReason::CircuitOpen { tool: tool.into() }
    }

    #[test]
    fn only_non_critical_fast_failures_are_skipped() {
        let safe = SafeMode::new(&SafeModeSpec {
            enabled: true,
            allow_partial: true,
            fallback: None,
        })
        .unwrap();
        assert_eq!(
            safe.judge("vendor", false, &open("vendor")),
            Some(SafeModeVerdict::Skipped)
        );
        assert_eq!(
            safe.judge("vendor", true, &open("vendor")),
            None,
            "critical"
        );
        assert_eq!(
            safe.judge("search", false, &StopReason::TaskTimeout),
            None,
            "a timeout is not a fast failure"
        );
        assert_eq!(
            safe.judge("search", false, &StopReason::RetryBudgetExhausted),
            Some(SafeModeVerdict::Skipped)
        );
        safe.judge(
            "vendor",
            false,
            &StopReason::BulkheadFull {
                tool: "vendor".into(),
            },
        );
        assert_eq!(safe.degraded(), vec!["vendor", "search"], "each once");
    }

    #[test]
    fn without_partial_results_the_run_stops_early() {
        let spec = |enabled, allow_partial| SafeModeSpec {
            enabled,
            allow_partial,
            fallback: None,
        };
        let strict = SafeMode::new(&spec(true, false)).unwrap();
        assert_eq!(
            strict.judge("vendor", false, &open("vendor")),
            Some(SafeModeVerdict::StopRun)
        );
        assert!(strict.degraded().is_empty());
        assert!(SafeMode::new(&spec(false, true)).is_none());
    }
}
