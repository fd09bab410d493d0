//! How long a sweep on NATS waits for its server when it loses it: a
//! restart (the client reconnects by itself, the streams are on disk) is
//! ridden out; a server gone for longer than the bound stops the sweep
//! with what it gathered. The bound is `CONCLAVE_NATS_OUTAGE_SECONDS`
//! (30 by default).

use std::time::Duration;
use tokio::time::Instant;

/// The variable that sets the bound.
pub(crate) const VARIABLE: &str = "CONCLAVE_NATS_OUTAGE_SECONDS";
/// The bound when the variable is not set.
pub(crate) const DEFAULT: Duration = Duration::from_secs(30);

/// The bound from the environment; a value that is no number of seconds
/// from 1 to a week is the user's to fix.
pub fn bound(env: impl Fn(&str) -> Option<String>) -> Result<Duration, String> {
    let Some(text) = env(VARIABLE).filter(|text| !text.trim().is_empty()) else {
        return Ok(DEFAULT);
    };
    let expected = "expected a number of seconds from 1 to 604800, e.g. 30";
    let seconds: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("the environment variable {VARIABLE}: {expected}; found {text:?}"))?;
    if !(1.0..=crate::duration::MAX.as_secs_f64()).contains(&seconds) {
        return Err(format!(
            "the environment variable {VARIABLE}: {expected}; found {text}"
        ));
    }
    Ok(Duration::from_secs_f64(seconds))
}

/// Since when the server has been lost, if it is.
#[derive(Debug)]
pub(super) struct Outage {
    bound: Duration,
    since: Option<Instant>,
}

impl Outage {
    pub(super) fn new(bound: Duration) -> Self {
        Outage { bound, since: None }
    }

    /// The server is lost (again); true the first time, to say so once.
    pub(super) fn lost(&mut self) -> bool {
        let first = self.since.is_none();
        self.since.get_or_insert_with(Instant::now);
        first
    }

    /// The server answered; true if it had been lost, to say it is back.
    pub(super) fn back(&mut self) -> bool {
        self.since.take().is_some()
    }

    /// Lost for longer than the bound.
    pub(super) fn over(&self) -> bool {
        self.since
            .is_some_and(|since| since.elapsed() >= self.bound)
    }

    pub(super) fn bound(&self) -> Duration {
        self.bound
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bound_is_a_second_to_a_week_and_30_by_default() {
        let env = |value: &'static str| move |_: &str| Some(value.to_string());
        assert_eq!(bound(|_| None), Ok(DEFAULT));
        assert_eq!(bound(env(" ")), Ok(DEFAULT));
        assert_eq!(bound(env("2.5")), Ok(Duration::from_millis(2500)));
        for bad in ["0", "-1", "NaN", "1e9", "30s"] {
            let e = bound(env(bad)).expect_err(bad);
            assert!(
                e.contains(VARIABLE) && e.contains("from 1 to 604800"),
                "{e}"
            );
        }
    }

    #[tokio::test(start_paused = true)]
    async fn an_outage_is_over_once_it_outlasts_the_bound() {
        let mut outage = Outage::new(Duration::from_secs(5));
        assert!(!outage.over());
        assert!(outage.lost());
        assert!(!outage.lost(), "said once");
        tokio::time::sleep(Duration::from_secs(4)).await;
        assert!(!outage.over());
        assert!(outage.back());
        assert!(outage.lost());
        tokio::time::sleep(Duration::from_secs(4)).await;
        assert!(!outage.over(), "counted from the last loss");
        tokio::time::sleep(Duration::from_secs(1)).await;
        assert!(outage.over());
    }
}
