//! The transfer controller: decides whether a transfer is accepted, as
//! 002's swarm does it in its source, and keeps the count and the window of
//! recent targets the limits read. Pure: it neither waits nor publishes.

use crate::patterns::team::events::HandoffRejection;
use crate::patterns::team::scenario::TeamLimits;
use std::collections::{HashSet, VecDeque};

/// The swarm's limits; 0 turns a limit off.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct HandoffLimits {
    pub(crate) max_handoffs: u32,
    pub(crate) window: u32,
    pub(crate) min_unique: u32,
}

impl HandoffLimits {
    pub(crate) fn of(limits: &TeamLimits) -> Self {
        HandoffLimits {
            max_handoffs: limits.max_handoffs(),
            window: limits.window(),
            min_unique: limits.min_unique(),
        }
    }

    fn loop_check(&self) -> bool {
        self.window > 0 && self.min_unique > 0
    }
}

/// The run's transfers so far.
#[derive(Clone, Debug)]
pub(crate) struct TransferController {
    limits: HandoffLimits,
    /// Transfers counted, refused ones included.
    count: u64,
    /// The last `window` targets counted by the loop check, oldest first.
    recent: VecDeque<String>,
}

impl TransferController {
    pub(crate) fn new(limits: HandoffLimits) -> Self {
        TransferController {
            limits,
            count: 0,
            recent: VecDeque::new(),
        }
    }

    pub(crate) fn count(&self) -> u64 {
        self.count
    }

    pub(crate) fn window(&self) -> Vec<String> {
        self.recent.iter().cloned().collect()
    }

    /// Decide `from`'s transfer to `to`. `declared` and `allowed` answer
    /// the policy and the execution allowlist.
    ///
    /// Unknown, self and denied transfers count toward nothing. Otherwise
    /// the count goes up before the check, as 002's swarm counts it, so a
    /// refused attempt still counts and every later one is refused too.
    /// Then the target joins the window, refused or not; a
    /// `max_handoffs_exceeded` refusal never reaches the window.
    pub(crate) fn decide(
        &mut self,
        from: &str,
        to: &str,
        declared: impl Fn(&str) -> bool,
        allowed: impl Fn(&str) -> bool,
    ) -> Result<(), HandoffRejection> {
        if !declared(to) {
            return Err(HandoffRejection::UnknownAgent {
                agent: to.to_string(),
            });
        }
        if to == from {
            return Err(HandoffRejection::SelfTransfer);
        }
        if !allowed(to) {
            return Err(HandoffRejection::AgentDenied {
                agent: to.to_string(),
            });
        }
        self.count += 1;
        let max = u64::from(self.limits.max_handoffs);
        if max > 0 && self.count > max {
            return Err(HandoffRejection::MaxHandoffsExceeded);
        }
        if self.limits.loop_check() {
            let size = self.limits.window as usize;
            self.recent.push_back(to.to_string());
            while self.recent.len() > size {
                self.recent.pop_front();
            }
            let distinct: HashSet<&str> = self.recent.iter().map(String::as_str).collect();
            if self.recent.len() == size && distinct.len() < self.limits.min_unique as usize {
                return Err(HandoffRejection::RepetitiveHandoff);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const AGENTS: [&str; 4] = ["a", "b", "c", "d"];

    fn controller(max_handoffs: u32, window: u32, min_unique: u32) -> TransferController {
        TransferController::new(HandoffLimits {
            max_handoffs,
            window,
            min_unique,
        })
    }

    fn ask(c: &mut TransferController, from: &str, to: &str) -> Result<(), HandoffRejection> {
        c.decide(from, to, |n| AGENTS.contains(&n), |n| n != "d")
    }

    #[test]
    fn exactly_max_handoffs_pass_and_every_later_one_is_refused() {
        let mut c = controller(3, 0, 0);
        let route = [("a", "b"), ("b", "c"), ("c", "a")];
        for (from, to) in route {
            assert_eq!(ask(&mut c, from, to), Ok(()));
        }
        for i in 0..5 {
            assert_eq!(
                ask(&mut c, "a", "b"),
                Err(HandoffRejection::MaxHandoffsExceeded),
                "attempt {}",
                4 + i
            );
        }
        assert_eq!(c.count(), 8, "refused attempts still count");
    }

    #[test]
    fn zero_max_handoffs_means_no_limit() {
        let mut c = controller(0, 0, 0);
        for _ in 0..100 {
            assert_eq!(ask(&mut c, "a", "b"), Ok(()));
        }
    }

    #[test]
    fn the_window_refuses_only_once_full() {
        // Window 4, min 3: a↔b pings pass until the window holds four.
        let mut c = controller(0, 4, 3);
        assert_eq!(ask(&mut c, "a", "b"), Ok(()));
        assert_eq!(ask(&mut c, "b", "a"), Ok(()));
        assert_eq!(ask(&mut c, "a", "b"), Ok(()));
        assert_eq!(c.window(), ["b", "a", "b"]);
        assert_eq!(
            ask(&mut c, "b", "a"),
            Err(HandoffRejection::RepetitiveHandoff),
            "full with two distinct names"
        );
        assert_eq!(c.window(), ["b", "a", "b", "a"]);
    }

    #[test]
    fn refused_targets_stay_in_the_window() {
        let mut c = controller(0, 3, 3);
        assert_eq!(ask(&mut c, "a", "b"), Ok(()));
        assert_eq!(ask(&mut c, "b", "a"), Ok(()));
        assert_eq!(
            ask(&mut c, "a", "b"),
            Err(HandoffRejection::RepetitiveHandoff)
        );
        assert_eq!(c.window(), ["b", "a", "b"], "the refused b stays");
        // a still holds control; its transfer to c slides the window to
        // [a, b, c]: three distinct names, accepted.
        assert_eq!(ask(&mut c, "a", "c"), Ok(()));
        assert_eq!(c.window(), ["a", "b", "c"]);
        assert_eq!(c.count(), 4);
    }

    #[test]
    fn min_unique_two_lets_a_ping_pong_through() {
        let mut c = controller(0, 8, 2);
        for i in 0..20 {
            let (from, to) = if i % 2 == 0 { ("a", "b") } else { ("b", "a") };
            assert_eq!(ask(&mut c, from, to), Ok(()));
        }
    }

    #[test]
    fn a_max_handoffs_refusal_does_not_join_the_window() {
        let mut c = controller(2, 3, 2);
        assert_eq!(ask(&mut c, "a", "b"), Ok(()));
        assert_eq!(ask(&mut c, "b", "c"), Ok(()));
        assert_eq!(
            ask(&mut c, "c", "a"),
            Err(HandoffRejection::MaxHandoffsExceeded)
        );
        assert_eq!(c.window(), ["b", "c"], "a was refused before the window");
        assert_eq!(c.count(), 3);
    }

    #[test]
    fn unknown_self_and_denied_transfers_count_nothing() {
        let mut c = controller(1, 2, 2);
        assert_eq!(
            ask(&mut c, "a", "ghost"),
            Err(HandoffRejection::UnknownAgent {
                agent: "ghost".into()
            })
        );
        assert_eq!(ask(&mut c, "a", "a"), Err(HandoffRejection::SelfTransfer));
        assert_eq!(
            ask(&mut c, "a", "d"),
            Err(HandoffRejection::AgentDenied { agent: "d".into() })
        );
        assert_eq!((c.count(), c.window().len()), (0, 0));
        assert_eq!(ask(&mut c, "a", "b"), Ok(()), "the one allowed handoff");
    }

    #[test]
    fn either_loop_setting_at_zero_turns_the_check_off() {
        for (window, min_unique) in [(0, 3), (3, 0)] {
            let mut c = controller(0, window, min_unique);
            for _ in 0..10 {
                assert_eq!(ask(&mut c, "a", "b"), Ok(()));
            }
            assert!(c.window().is_empty());
        }
    }
}
