//! How long export may take. A collector that is slow, down or never
//! answers costs a run nothing (spans wait in a bounded queue, drained
//! by a thread of their own); these bounds say how long anything waits
//! for one: each request, and the flush when a command ends.
//!
//! `OTEL_EXPORTER_OTLP_TRACES_TIMEOUT`, else `OTEL_EXPORTER_OTLP_TIMEOUT`
//! (whole milliseconds, as the OpenTelemetry specification has it) sets
//! both. Unset, a request may take the specification's 10 s, but the flush
//! at the end waits about a second: a finished command does not wait ten
//! seconds for a collector that does not answer.

use super::config_error::OtlpConfigError;
use std::time::Duration;

pub(crate) const TIMEOUT: &str = "OTEL_EXPORTER_OTLP_TIMEOUT";
pub(crate) const TRACES_TIMEOUT: &str = "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT";

/// A request's timeout when no variable sets one (the specification's).
const DEFAULT_REQUEST: Duration = Duration::from_secs(10);
/// How long a command's end waits for what is left to be sent when no
/// variable sets it.
const DEFAULT_FLUSH: Duration = Duration::from_secs(1);

/// The export's time bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// How long one request to the collector may take.
    pub request: Duration,
    /// How long the end of a command waits for the spans left to be sent.
    pub flush: Duration,
    /// Which variable set them, to name it when the flush runs out.
    pub set_by: Option<&'static str>,
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            request: DEFAULT_REQUEST,
            flush: DEFAULT_FLUSH,
            set_by: None,
        }
    }
}

impl Bounds {
    /// Both bounds `timeout` long.
    pub fn both(timeout: Duration) -> Self {
        Bounds {
            request: timeout,
            flush: timeout,
            set_by: None,
        }
    }

    /// The bounds the environment sets: the traces variable first, then
    /// the general one; a value that is no whole number of milliseconds
    /// from 1 to a week is the user's to fix.
    pub(crate) fn from_env(env: impl Fn(&str) -> Option<String>) -> Result<Self, OtlpConfigError> {
        let set = |name: &'static str| {
            env(name)
                .filter(|value| !value.trim().is_empty())
                .map(|value| (name, value))
        };
        let Some((name, value)) = set(TRACES_TIMEOUT).or_else(|| set(TIMEOUT)) else {
            return Ok(Bounds::default());
        };
        let most = crate::duration::MAX.as_millis();
        match value.trim().parse::<u64>() {
            Ok(ms) if ms >= 1 && u128::from(ms) <= most => Ok(Bounds {
                set_by: Some(name),
                ..Bounds::both(Duration::from_millis(ms))
            }),
            _ => Err(OtlpConfigError {
                setting: name.into(),
                problem: format!(
                    "expected a whole number of milliseconds from 1 to {most}, found {value:?}"
                ),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(vars: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn unset_a_request_may_take_ten_seconds_and_the_flush_one() {
        let bounds = Bounds::from_env(env(&[])).unwrap();
        assert_eq!(bounds.request, Duration::from_secs(10));
        assert_eq!(bounds.flush, Duration::from_secs(1));
        assert_eq!(bounds.set_by, None);
    }

    #[test]
    fn the_traces_variable_wins_and_sets_both() {
        let bounds =
            Bounds::from_env(env(&[(TIMEOUT, "250"), (TRACES_TIMEOUT, " 3000 ")])).unwrap();
        assert_eq!(bounds.request, Duration::from_secs(3));
        assert_eq!(bounds.flush, Duration::from_secs(3));
        assert_eq!(bounds.set_by, Some(TRACES_TIMEOUT));
        let general = Bounds::from_env(env(&[(TIMEOUT, "250")])).unwrap();
        assert_eq!(general.flush, Duration::from_millis(250));
        assert_eq!(general.set_by, Some(TIMEOUT));
    }

    #[test]
    fn a_bad_value_names_its_variable() {
        for bad in ["0", "-5", "1.5", "10s", "604800001"] {
            let vars: &'static [(&str, &str)] = Box::leak(Box::new([(TIMEOUT, bad)]));
            let e = Bounds::from_env(env(vars)).expect_err(bad);
            assert_eq!(e.setting, TIMEOUT);
            assert!(e.problem.contains("whole number of milliseconds"), "{e}");
            assert!(e.problem.contains(bad), "{e}");
        }
    }
}
