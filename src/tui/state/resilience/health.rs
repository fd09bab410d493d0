//! How sick a tool is, as one number the resilience pane ranks by, and the
//! bands that keep its rows still. The score reads what an operator weighs
//! at a glance: is the gateway failing the tool fast (its breaker), do its
//! calls fail (refusals included: a refused call is a failed one to the
//! caller), are its calls close to their timeout, is its bulkhead full.

use crate::bus::BreakerState;

/// What the score reads of a tool at one moment.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Signals {
    /// The breaker's state; `None` without one or with it switched off.
    pub(crate) breaker: Option<BreakerState>,
    /// The share of calls that ended lately that failed: timed out,
    /// errored, or refused by its breaker or bulkhead; `None` without any.
    pub(crate) error_rate: Option<f64>,
    /// Recent p95 latency over the tool's timeout; `None` when either is
    /// unknown.
    pub(crate) latency_ratio: Option<f64>,
    /// The bulkhead is full or calls wait for it.
    pub(crate) saturated: bool,
}

/// How sick a tool is: 0 for a healthy one, up to 1000. The parts add up:
///
/// - errors: up to 500, in proportion to the error rate, so a tool at
///   100 % errors scores 500 with or without a breaker;
/// - breaker: 250 open, 150 half-open (the gateway is failing it fast, or
///   testing it), nothing closed;
/// - latency: up to 150 as the p95 climbs from half the timeout to the
///   timeout (calls that take 90 % of it are about to time out);
/// - bulkhead: 100 while it is full or calls queue for it.
///
/// So at equal errors an open breaker ranks above a half-open one above a
/// closed one, and an unshielded tool failing every call (500) ranks above
/// any healthy tool and any breaker whose calls succeed.
pub(crate) fn sickness(signals: &Signals) -> u32 {
    let errors = signals
        .error_rate
        .map_or(0.0, |r| r.clamp(0.0, 1.0) * 500.0);
    let breaker = match signals.breaker {
        Some(BreakerState::Open) => 250,
        Some(BreakerState::HalfOpen) => 150,
        Some(BreakerState::Closed) | None => 0,
    };
    let latency = signals
        .latency_ratio
        .map_or(0.0, |r| ((r - 0.5) / 0.5).clamp(0.0, 1.0) * 150.0);
    let bulkhead = if signals.saturated { 100 } else { 0 };
    errors.round() as u32 + breaker + latency.round() as u32 + bulkhead
}

/// Coarse health: the pane's rows move only when a tool changes band.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Band {
    #[default]
    Healthy,
    Strained,
    Failing,
    Down,
}

/// How far past a band's edge a score must go to change band, so a score
/// that hovers at an edge does not move the row back and forth.
const HYSTERESIS: u32 = 25;

impl Band {
    pub(crate) fn of(score: u32) -> Band {
        match score {
            0..50 => Band::Healthy,
            50..200 => Band::Strained,
            200..450 => Band::Failing,
            _ => Band::Down,
        }
    }

    /// The band after `held` for a new score: it changes only once the
    /// score is `HYSTERESIS` past the edge.
    pub(crate) fn settle(held: Band, score: u32) -> Band {
        let up = Band::of(score.saturating_sub(HYSTERESIS));
        let down = Band::of(score + HYSTERESIS);
        if up > held {
            up
        } else if down < held {
            down
        } else {
            held
        }
    }

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Band::Healthy => "healthy",
            Band::Strained => "strained",
            Band::Failing => "failing",
            Band::Down => "down",
        }
    }
}

/// Which way a tool's score went since the last ranking.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Trend {
    #[default]
    Steady,
    Sicker,
    Better,
}

/// The change in score that counts as a trend.
const TREND: u32 = 50;

impl Trend {
    pub(crate) fn between(before: u32, now: u32) -> Trend {
        if now >= before + TREND {
            Trend::Sicker
        } else if now + TREND <= before {
            Trend::Better
        } else {
            Trend::Steady
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use BreakerState::*;

    fn tool(breaker: Option<BreakerState>, error_rate: Option<f64>) -> Signals {
        Signals {
            breaker,
            error_rate,
            ..Signals::default()
        }
    }

    /// `sicker` outranks `than`.
    fn outranks(sicker: Signals, than: Signals) {
        assert!(
            sickness(&sicker) > sickness(&than),
            "{sicker:?} ({}) should rank above {than:?} ({})",
            sickness(&sicker),
            sickness(&than)
        );
    }

    #[test]
    fn an_unshielded_tool_failing_every_call_ranks_above_a_healthy_breaker() {
        outranks(tool(None, Some(1.0)), tool(Some(Closed), Some(0.0)));
        outranks(tool(None, Some(1.0)), tool(Some(Closed), None));
        outranks(tool(None, Some(1.0)), tool(Some(Open), Some(0.0)));
        outranks(tool(None, Some(1.0)), tool(Some(HalfOpen), Some(0.5)));
        assert_eq!(Band::of(sickness(&tool(None, Some(1.0)))), Band::Down);
    }

    #[test]
    fn at_equal_errors_open_ranks_above_half_open_above_closed() {
        for rate in [None, Some(0.0), Some(0.3), Some(1.0)] {
            outranks(tool(Some(Open), rate), tool(Some(HalfOpen), rate));
            outranks(tool(Some(HalfOpen), rate), tool(Some(Closed), rate));
        }
        assert_eq!(
            sickness(&tool(Some(Closed), Some(0.2))),
            sickness(&tool(None, Some(0.2))),
            "a closed breaker is no worse than none"
        );
    }

    #[test]
    fn more_errors_rank_higher_and_none_count_as_healthy() {
        outranks(tool(None, Some(0.67)), tool(None, Some(0.1)));
        assert_eq!(sickness(&tool(None, None)), 0);
        assert_eq!(sickness(&tool(None, Some(0.0))), 0);
    }

    #[test]
    fn latency_counts_from_half_the_timeout_and_a_full_bulkhead_adds() {
        let at = |ratio| Signals {
            latency_ratio: Some(ratio),
            ..Signals::default()
        };
        assert_eq!(sickness(&at(0.4)), 0, "well within its timeout");
        outranks(at(0.9), at(0.6));
        assert_eq!(sickness(&at(1.0)), 150);
        assert_eq!(sickness(&at(3.0)), 150, "capped at the timeout");
        outranks(tool(None, Some(0.5)), at(1.0));
        let full = Signals {
            saturated: true,
            ..Signals::default()
        };
        outranks(full, tool(Some(Closed), Some(0.1)));
        assert_eq!(sickness(&full), 100);
    }

    #[test]
    fn bands_change_only_past_an_edge_by_the_hysteresis() {
        assert_eq!(Band::settle(Band::Healthy, 60), Band::Healthy, "just over");
        assert_eq!(Band::settle(Band::Healthy, 80), Band::Strained);
        assert_eq!(
            Band::settle(Band::Strained, 40),
            Band::Strained,
            "just under"
        );
        assert_eq!(Band::settle(Band::Strained, 20), Band::Healthy);
        assert_eq!(Band::settle(Band::Healthy, 500), Band::Down, "at once");
        assert_eq!(Band::settle(Band::Down, 0), Band::Healthy, "at once");
        assert_eq!(Band::settle(Band::Failing, 300), Band::Failing);
    }

    #[test]
    fn a_trend_needs_a_real_change() {
        assert_eq!(Trend::between(100, 160), Trend::Sicker);
        assert_eq!(Trend::between(160, 100), Trend::Better);
        assert_eq!(Trend::between(100, 120), Trend::Steady);
        assert_eq!(Trend::between(0, 0), Trend::Steady);
    }
}
