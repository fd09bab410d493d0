//! Whether and when the gateway tries a failed call again: the one place
//! retries are decided (003: "retries in one place"). A call follows its
//! pattern's own rule (001 retries a timed-out task at once) unless the
//! resilience section's retries cover its tool: then timeouts and
//! transient errors are retried after a jittered backoff. A fast failure
//! (open breaker, full bulkhead, exhausted budget) and a permanent error
//! never are, and no retry passes an exhausted retry budget.

use super::backoff::Backoff;
use super::retry_budget::RetryBudget;
use crate::rng::RunRng;
use crate::scenario::{BackoffSpec, ExponentialBackoff, Jitter, RetryRule};
use crate::stop::StopReason;
use std::time::Duration;

/// How an attempt failed, as far as retrying goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Failure {
    Timeout,
    /// The tool failed and may not next time (a worker error, a model
    /// error).
    Transient,
    /// A remote model is down or rate limiting; it may have said when to
    /// come back.
    Unavailable {
        retry_after: Option<Duration>,
    },
    /// Trying again cannot help (bad args, a denied tool, a spent budget,
    /// a fast failure, cancellation).
    Permanent,
}

impl Failure {
    /// A worker call's failure.
    pub(crate) fn of(reason: &StopReason) -> Failure {
        match reason {
            StopReason::TaskTimeout => Failure::Timeout,
            StopReason::WorkerError { .. } => Failure::Transient,
            _ => Failure::Permanent,
        }
    }
}

/// What to do after a failed attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Next {
    Retry(Duration),
    GiveUp,
    /// A retry was due and the retry budget refused it.
    OverBudget,
}

/// The retry rule of one call, and the state of its backoff.
#[derive(Debug)]
pub(crate) struct Retrier {
    max_attempts: u32,
    /// Which failures are worth another attempt.
    timeouts: bool,
    transient: bool,
    unavailable: bool,
    backoff: Option<Backoff>,
    /// Attempts that asked another way after the endpoint refused one (an
    /// output mode stepped down): not retries, so not counted against
    /// `max_attempts` nor the backoff's steps.
    asked_again: u32,
}

/// Attempts a remote model call gets when the endpoint is down or rate
/// limiting and no resilience section says otherwise: what the OpenAI
/// clients the references use do by default (two retries, growing waits).
const REMOTE_ATTEMPTS: u32 = 3;
const REMOTE_BACKOFF: ExponentialBackoff = ExponentialBackoff {
    base_ms: 500,
    max_ms: 8_000,
};

impl Retrier {
    /// The pattern's own rule: retry timeouts at once, up to
    /// `own_max_attempts` attempts in all.
    pub(crate) fn own(own_max_attempts: u32) -> Self {
        Retrier {
            max_attempts: own_max_attempts.max(1),
            timeouts: true,
            transient: false,
            unavailable: false,
            backoff: None,
            asked_again: 0,
        }
    }

    /// A remote model's rule without a resilience section: a rate limit or
    /// a server error is tried again after a jittered, growing wait (or the
    /// wait the endpoint asked for); a timeout is not.
    pub(crate) fn remote() -> Self {
        Retrier {
            max_attempts: REMOTE_ATTEMPTS,
            timeouts: false,
            transient: false,
            unavailable: true,
            backoff: Some(Backoff::new(
                BackoffSpec::Exponential(REMOTE_BACKOFF),
                Jitter::Equal,
            )),
            asked_again: 0,
        }
    }

    /// The resilience section's rule for the call's tool.
    pub(crate) fn configured(rule: &RetryRule) -> Self {
        Retrier {
            max_attempts: rule.max_attempts.max(1),
            timeouts: true,
            transient: true,
            unavailable: true,
            backoff: Some(Backoff::new(rule.backoff.clone(), rule.jitter)),
            asked_again: 0,
        }
    }

    pub(crate) fn max_attempts(&self) -> u32 {
        self.max_attempts
    }

    /// The attempt that just ended was refused a way of asking and the
    /// call asks again another way at once: the next attempt is not a
    /// retry, and takes none of `max_attempts`.
    pub(crate) fn asked_another_way(&mut self) {
        self.asked_again += 1;
    }

    /// After attempt `attempt` (counting every attempt of the call) failed
    /// with `failure`.
    pub(crate) fn next(
        &mut self,
        attempt: u32,
        failure: Failure,
        budget: Option<&RetryBudget>,
        rng: &RunRng,
    ) -> Next {
        let (retryable, asked) = match failure {
            Failure::Timeout => (self.timeouts, None),
            Failure::Transient => (self.transient, None),
            Failure::Unavailable { retry_after } => (self.unavailable, retry_after),
            Failure::Permanent => (false, None),
        };
        // The attempts that count: a step down of the way of asking is
        // not a retry.
        let attempt = attempt.saturating_sub(self.asked_again).max(1);
        if !retryable || attempt >= self.max_attempts {
            return Next::GiveUp;
        }
        if budget.is_some_and(|b| !b.try_retry()) {
            return Next::OverBudget;
        }
        let delay = match &mut self.backoff {
            Some(backoff) => backoff.next(attempt, rng),
            None => Duration::ZERO,
        };
        // An endpoint's Retry-After is a floor: never sooner than it asked.
        Next::Retry(asked.map_or(delay, |asked| delay.max(asked)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{BackoffSpec, Jitter, RetryBudgetSpec};

    fn ms(ms: u64) -> Duration {
        Duration::from_millis(ms)
    }

    #[test]
    fn the_patterns_own_rule_retries_timeouts_at_once() {
        let rng = RunRng::seeded(0);
        let mut own = Retrier::own(3);
        assert_eq!(
            own.next(1, Failure::Timeout, None, &rng),
            Next::Retry(ms(0))
        );
        assert_eq!(
            own.next(2, Failure::Timeout, None, &rng),
            Next::Retry(ms(0))
        );
        assert_eq!(own.next(3, Failure::Timeout, None, &rng), Next::GiveUp);
        assert_eq!(
            own.next(1, Failure::Transient, None, &rng),
            Next::GiveUp,
            "001 retries on timeout only"
        );
    }

    #[test]
    fn the_configured_rule_retries_transient_errors_after_its_backoff() {
        let rng = RunRng::seeded(0);
        let mut retrier = Retrier::configured(&RetryRule {
            max_attempts: 3,
            backoff: BackoffSpec::List(vec![250, 750]),
            jitter: Jitter::None,
        });
        assert_eq!(retrier.max_attempts(), 3);
        assert_eq!(
            retrier.next(1, Failure::Transient, None, &rng),
            Next::Retry(ms(250))
        );
        assert_eq!(
            retrier.next(2, Failure::Timeout, None, &rng),
            Next::Retry(ms(750))
        );
        assert_eq!(retrier.next(3, Failure::Timeout, None, &rng), Next::GiveUp);
        assert_eq!(
            retrier.next(1, Failure::Permanent, None, &rng),
            Next::GiveUp
        );
        for fast in [
            StopReason::CircuitOpen { tool: "t".into() },
            StopReason::BulkheadFull { tool: "t".into() },
            StopReason::RetryBudgetExhausted,
            StopReason::WorkerBadArgs { worker: "w".into() },
        ] {
            assert_eq!(Failure::of(&fast), Failure::Permanent, "{fast}");
        }
    }

    #[test]
    fn a_retry_over_budget_is_refused() {
        let rng = RunRng::seeded(0);
        let budget = RetryBudget::new(&RetryBudgetSpec {
            ratio: 0.5,
            min_retries: None,
        });
        budget.first_call();
        budget.first_call();
        let mut retrier = Retrier::own(5);
        assert_eq!(
            retrier.next(1, Failure::Timeout, Some(&budget), &rng),
            Next::Retry(ms(0))
        );
        assert_eq!(
            retrier.next(2, Failure::Timeout, Some(&budget), &rng),
            Next::OverBudget
        );
        assert_eq!(
            retrier.next(5, Failure::Timeout, Some(&budget), &rng),
            Next::GiveUp,
            "no budget is asked for a retry that would not happen"
        );
    }

    #[test]
    fn a_remote_model_retries_rate_limits_and_outages_not_timeouts() {
        let rng = RunRng::seeded(0);
        let mut remote = Retrier::remote();
        assert_eq!(remote.next(1, Failure::Timeout, None, &rng), Next::GiveUp);
        let Next::Retry(first) =
            remote.next(1, Failure::Unavailable { retry_after: None }, None, &rng)
        else {
            panic!("a 5xx is retried")
        };
        assert!(
            (ms(250)..=ms(500)).contains(&first),
            "equal jitter of 500 ms: {first:?}"
        );
        let asked = Failure::Unavailable {
            retry_after: Some(Duration::from_secs(5)),
        };
        assert_eq!(
            remote.next(2, asked, None, &rng),
            Next::Retry(Duration::from_secs(5))
        );
        assert_eq!(
            remote.next(3, asked, None, &rng),
            Next::GiveUp,
            "three attempts in all"
        );
        assert_eq!(
            Retrier::own(3).next(1, asked, None, &rng),
            Next::GiveUp,
            "the sim never needs it"
        );
    }

    /// What ended an attempt, in the accounting's table.
    #[derive(Clone, Copy, Debug)]
    enum Ended {
        /// The endpoint refused a way of asking; the call asks another.
        SteppedDown,
        Failed(Failure),
    }

    #[test]
    fn a_step_down_of_the_way_of_asking_takes_no_attempt_of_the_rule() {
        use Ended::{Failed, SteppedDown};
        let cut = Failed(Failure::Transient);
        let down = Failed(Failure::Unavailable { retry_after: None });
        // max_attempts, what ended each attempt, and what the rule says
        // after the last: a step down is never a retry, and the backoff
        // takes its steps from the retries alone.
        let table: [(u32, &[Ended], Next); 9] = [
            (2, &[cut], Next::Retry(ms(10))),
            (2, &[cut, cut], Next::GiveUp),
            (2, &[SteppedDown, cut], Next::Retry(ms(10))),
            (2, &[SteppedDown, SteppedDown, cut], Next::Retry(ms(10))),
            (2, &[SteppedDown, cut, cut], Next::GiveUp),
            (2, &[cut, SteppedDown, cut], Next::GiveUp),
            (3, &[SteppedDown, cut, down], Next::Retry(ms(20))),
            (
                3,
                &[SteppedDown, cut, SteppedDown, down],
                Next::Retry(ms(20)),
            ),
            (1, &[SteppedDown, SteppedDown, cut], Next::GiveUp),
        ];
        for (max_attempts, ended, expected) in table {
            let rng = RunRng::seeded(0);
            let mut retrier = Retrier::configured(&RetryRule {
                max_attempts,
                backoff: BackoffSpec::List(vec![10, 20]),
                jitter: Jitter::None,
            });
            let mut last = None;
            for (index, end) in ended.iter().enumerate() {
                let attempt = index as u32 + 1;
                last = match end {
                    SteppedDown => {
                        retrier.asked_another_way();
                        None
                    }
                    Failed(failure) => Some(retrier.next(attempt, *failure, None, &rng)),
                };
            }
            assert_eq!(last, Some(expected), "{max_attempts} attempts, {ended:?}");
        }
    }
}
