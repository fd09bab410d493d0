//! Every duration Conclave reads from a number (a scenario's seconds or
//! milliseconds, an environment variable, a `Retry-After` header) goes
//! through here: finite, not negative, and at most [`MAX`], so that no
//! setting can overflow an instant or panic a conversion when a run starts.

use std::time::Duration;
use thiserror::Error;

/// The longest duration any setting may name: one week. Longer than any
/// run a person watches, short enough that `Instant::now() + MAX` never
/// overflows.
pub const MAX: Duration = Duration::from_secs(7 * 24 * 3600);

/// Why a number is not a duration.
#[derive(Clone, Copy, Debug, Error, PartialEq)]
pub(crate) enum DurationError {
    #[error("a finite number of seconds, found {0}")]
    NotFinite(f64),
    #[error("a duration of 0 or more, found {0}")]
    Negative(f64),
    #[error("at most {max} seconds (one week), found {found}", max = MAX.as_secs())]
    TooLong { found: f64 },
}

/// `seconds` as a duration, or why it cannot be one.
pub(crate) fn from_seconds(seconds: f64) -> Result<Duration, DurationError> {
    if !seconds.is_finite() {
        return Err(DurationError::NotFinite(seconds));
    }
    if seconds < 0.0 {
        return Err(DurationError::Negative(seconds));
    }
    if seconds > MAX.as_secs_f64() {
        return Err(DurationError::TooLong { found: seconds });
    }
    Ok(Duration::from_secs_f64(seconds))
}

/// `ms` milliseconds as a duration, or why it cannot be one.
pub(crate) fn from_millis(ms: u64) -> Result<Duration, DurationError> {
    let duration = Duration::from_millis(ms);
    if duration > MAX {
        return Err(DurationError::TooLong {
            found: duration.as_secs_f64(),
        });
    }
    Ok(duration)
}

/// A duration in seconds as a person writes it: `60`, `0.2`, `1.25`.
pub(crate) fn seconds_text(duration: Duration) -> String {
    let seconds = (duration.as_secs_f64() * 1000.0).round() / 1000.0;
    format!("{seconds}")
}

/// `ms` milliseconds as a duration, held to [`MAX`]: for values already
/// validated, or read from a source (a server's header) that is clipped
/// rather than refused.
pub(crate) fn clamp_millis(ms: u64) -> Duration {
    Duration::from_millis(ms).min(MAX)
}

/// `seconds` as a duration held to `[0, MAX]`; not a number reads as 0.
pub(crate) fn clamp_seconds(seconds: f64) -> Duration {
    if seconds.is_nan() || seconds <= 0.0 {
        Duration::ZERO
    } else if seconds >= MAX.as_secs_f64() {
        MAX
    } else {
        Duration::from_secs_f64(seconds)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_are_checked() {
        assert_eq!(from_seconds(2.5), Ok(Duration::from_millis(2500)));
        assert_eq!(from_seconds(0.0), Ok(Duration::ZERO));
        assert!(matches!(
            from_seconds(f64::NAN),
            Err(DurationError::NotFinite(_))
        ));
        assert!(matches!(
            from_seconds(f64::INFINITY),
            Err(DurationError::NotFinite(_))
        ));
        assert!(matches!(
            from_seconds(-1.0),
            Err(DurationError::Negative(_))
        ));
        assert!(matches!(
            from_seconds(1e308),
            Err(DurationError::TooLong { .. })
        ));
        assert_eq!(from_seconds(MAX.as_secs_f64()), Ok(MAX));
    }

    #[test]
    fn millis_are_capped() {
        assert_eq!(from_millis(1500), Ok(Duration::from_millis(1500)));
        assert!(from_millis(u64::MAX).is_err());
        assert_eq!(clamp_millis(u64::MAX), MAX);
        assert_eq!(clamp_seconds(f64::INFINITY), MAX);
        assert_eq!(clamp_seconds(-3.0), Duration::ZERO);
        assert_eq!(clamp_seconds(f64::NAN), Duration::ZERO);
        assert_eq!(clamp_seconds(1.5), Duration::from_millis(1500));
    }

    #[test]
    fn the_cap_never_overflows_an_instant() {
        let _ = std::time::Instant::now() + MAX;
        let _ = tokio::time::Instant::now() + MAX;
    }
}
