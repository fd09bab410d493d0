//! The resilience pane's state: one entry per tool the run calls (the
//! model first, then the scenario's workers, then any tool first seen in an
//! event), folded from the gateway's events, and the order the pane shows
//! them in. Pure: time is the events'.
//!
//! The order is by health band, sickest first, and is ranked at most once
//! a second of run time (and at the run's end): a tool moves only when it
//! changes band, and tools in the same band keep their places, so rows do
//! not jump when a breaker flickers; each tool's trend since the last
//! ranking says who got sicker in place.

mod health;
mod history;
mod latencies;
mod tool;

use crate::bus::{BreakerState, EventKind, FlagState};
use crate::scenario::{GatewayMechanism, MODEL_TOOL, ResilienceSpec, Scenario};
use crate::stop::StopReason;
use std::collections::HashMap;

pub(crate) use health::{Band, Trend};
pub(crate) use history::{Period, moved_bit, severity};
pub use tool::{BreakerView, BulkheadView, ERROR_WINDOW_MS, ToolHealth};

/// The least run time between two rankings.
const RANK_EVERY_MS: u64 = 1000;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Resilience {
    pub tools: Vec<ToolHealth>,
    index: HashMap<String, usize>,
    spec: Option<ResilienceSpec>,
    /// The flags that switch a mechanism, with their state.
    switch_flags: Vec<(String, GatewayMechanism, bool)>,
    /// Indexes into `tools` in the pane's order, as last ranked; tools
    /// seen since follow in the order they came.
    order: Vec<usize>,
    ranked_at_ms: Option<u64>,
}

impl Resilience {
    /// Seat the tools of a run that starts.
    pub(super) fn seat(&mut self, scenario: &Scenario, flags: &[FlagState]) {
        self.spec = scenario.resilience.clone();
        self.switch_flags = scenario
            .flags
            .iter()
            .filter_map(|(name, spec)| {
                let on = flags.iter().any(|f| &f.name == name && f.on);
                spec.gateway.map(|m| (name.clone(), m, on))
            })
            .collect();
        self.tool(MODEL_TOOL, 0);
        for worker in scenario.workers.keys() {
            self.tool(worker, 0);
        }
        self.follow_switches(0);
        self.rank(0);
    }

    fn tool(&mut self, name: &str, t_ms: u64) -> &mut ToolHealth {
        let index = match self.index.get(name) {
            Some(i) => *i,
            None => {
                let mut health = ToolHealth::new(name, self.spec.as_ref());
                self.mark_switches(&mut health, t_ms);
                self.tools.push(health);
                self.index.insert(name.to_string(), self.tools.len() - 1);
                self.tools.len() - 1
            }
        };
        &mut self.tools[index]
    }

    /// Whether `mechanism` works: no flag that switches it is off.
    pub fn switched_on(&self, mechanism: GatewayMechanism) -> bool {
        self.switch_flags
            .iter()
            .all(|(_, m, on)| *on || *m != mechanism)
    }

    fn mark_switches(&self, health: &mut ToolHealth, t_ms: u64) {
        let breakers = self.switched_on(GatewayMechanism::CircuitBreaker);
        let bulkheads = self.switched_on(GatewayMechanism::Bulkhead);
        if let Some(b) = &mut health.breaker {
            if !breakers && !b.off {
                // The gateway's breaker forgets everything when switched off.
                b.state = BreakerState::Closed;
                b.failures = 0;
                b.window.clear();
            }
            if b.off == breakers {
                health
                    .history
                    .switch(t_ms, breakers.then_some(BreakerState::Closed));
            }
            b.off = !breakers;
        }
        if let Some(b) = &mut health.bulkhead {
            b.off = !bulkheads;
        }
    }

    fn follow_switches(&mut self, t_ms: u64) {
        let mut tools = std::mem::take(&mut self.tools);
        for health in &mut tools {
            self.mark_switches(health, t_ms);
        }
        self.tools = tools;
    }

    /// The tools in the pane's order: by health band as last ranked,
    /// sickest first, each band in the order its tools reached it.
    pub(crate) fn ordered(&self) -> Vec<&ToolHealth> {
        self.order
            .iter()
            .map(|i| &self.tools[*i])
            .chain(&self.tools[self.order.len()..])
            .collect()
    }

    /// Score every tool at run time `now_ms` and order them by band,
    /// sickest first; a stable sort, so within a band the previous order
    /// stands.
    pub(super) fn rank(&mut self, now_ms: u64) {
        for tool in &mut self.tools {
            tool.rank(now_ms);
        }
        self.order.extend(self.order.len()..self.tools.len());
        let tools = &self.tools;
        self.order
            .sort_by_key(|i| std::cmp::Reverse(tools[*i].rank.band));
        self.ranked_at_ms = Some(now_ms);
    }

    /// Fold one gateway event at run time `t_ms`; others are ignored.
    pub(super) fn apply(&mut self, kind: &EventKind, t_ms: u64) {
        match kind {
            EventKind::FlagChanged { name, on, .. } => {
                if let Some(flag) = self.switch_flags.iter_mut().find(|(n, ..)| n == name) {
                    flag.2 = *on;
                    self.follow_switches(t_ms);
                }
            }
            EventKind::CallStarted { tool, .. } => self.tool(tool, t_ms).started(t_ms),
            EventKind::CallFinished {
                tool,
                fallback: true,
                ..
            } => self.tool(tool, t_ms).fell_back(),
            EventKind::CallFinished {
                tool,
                outcome,
                latency_ms,
                first_token_ms,
                tokens_per_s,
                ..
            } => {
                let health = self.tool(tool, t_ms);
                health.finished(t_ms, *outcome, *latency_ms);
                if let Some(first) = first_token_ms {
                    health.streamed(*first, *tokens_per_s);
                }
            }
            EventKind::AttemptStarted {
                worker, timeout_ms, ..
            } => self.tool(worker, t_ms).attempt_timeout(*timeout_ms),
            EventKind::RetryScheduled { tool, .. } => self.tool(tool, t_ms).retries += 1,
            EventKind::CallRejected { tool, reason, .. } => {
                let health = self.tool(tool, t_ms);
                let by_shield = match reason {
                    StopReason::BulkheadFull { .. } => {
                        if let Some(b) = &mut health.bulkhead {
                            b.rejected += 1;
                        }
                        true
                    }
                    StopReason::CircuitOpen { .. } => true,
                    _ => false,
                };
                health.refused(t_ms, by_shield);
            }
            EventKind::FallbackServed { tool, .. } => self.tool(tool, t_ms).stale += 1,
            EventKind::BreakerTransition { tool, to, .. } => self.tool(tool, t_ms).moved(t_ms, *to),
            EventKind::Bulkhead {
                tool,
                in_flight,
                max,
                queued,
            } => {
                let health = self.tool(tool, t_ms);
                let view = health.bulkhead.get_or_insert(BulkheadView {
                    in_flight: 0,
                    max: *max,
                    queued: 0,
                    rejected: 0,
                    max_wait_ms: 0,
                    off: false,
                });
                view.in_flight = *in_flight;
                view.max = *max;
                view.queued = *queued;
            }
            _ => return,
        }
        if self
            .ranked_at_ms
            .is_none_or(|at| t_ms >= at.saturating_add(RANK_EVERY_MS))
        {
            self.rank(t_ms);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bus::{BreakerReason, CallOutcome};
    use serde_json::json;

    /// A model and two workers; only `b_worker` has a breaker.
    fn seated() -> Resilience {
        let scenario: Scenario = serde_json::from_value(json!({
            "name": "t", "pattern": "orchestrator", "goal": "g", "context": {},
            "workers": {"a_worker": {}, "b_worker": {}},
            "resilience": {"tools": {"b_worker": {"circuit_breaker": {
                "fail_threshold": 2, "open_for_ms": 400, "half_open_probes": 1}}}},
            "provider": {"kind": "sim"}
        }))
        .unwrap();
        let mut resilience = Resilience::default();
        resilience.seat(&scenario, &[]);
        resilience
    }

    fn names(resilience: &Resilience) -> Vec<&str> {
        resilience
            .ordered()
            .iter()
            .map(|t| t.name.as_str())
            .collect()
    }

    fn call(resilience: &mut Resilience, tool: &str, t_ms: u64, outcome: CallOutcome) {
        let (call, attempt, tool) = (1, 1, tool.to_string());
        resilience.apply(
            &EventKind::CallStarted {
                call,
                tool: tool.clone(),
                attempt,
                label: String::new(),
                agent: None,
            },
            t_ms,
        );
        resilience.apply(
            &EventKind::CallFinished {
                call,
                tool,
                attempt,
                latency_ms: 10,
                outcome,
                usage: None,
                error: None,
                http_status: None,
                first_token_ms: None,
                tokens_per_s: None,
                reasoning: None,
                record: None,
                served: false,
                extracted: None,
                fallback: false,
            },
            t_ms,
        );
    }

    fn moved(resilience: &mut Resilience, t_ms: u64, from: BreakerState, to: BreakerState) {
        let kind = EventKind::BreakerTransition {
            tool: "b_worker".into(),
            from,
            to,
            reason: BreakerReason::FailureThreshold,
        };
        resilience.apply(&kind, t_ms);
    }

    fn refused(resilience: &mut Resilience, t_ms: u64) {
        let kind = EventKind::CallRejected {
            tool: "b_worker".into(),
            attempt: 1,
            reason: StopReason::CircuitOpen {
                tool: "b_worker".into(),
            },
        };
        resilience.apply(&kind, t_ms);
    }

    fn trend(resilience: &Resilience, tool: &str) -> Trend {
        resilience.tools[resilience.index[tool]].rank.trend
    }

    #[test]
    fn rows_move_at_most_once_a_second_and_only_across_bands() {
        use BreakerState::*;
        let mut r = seated();
        assert_eq!(names(&r), ["model", "a_worker", "b_worker"]);
        for t in [100, 200, 300] {
            call(&mut r, "b_worker", t, CallOutcome::Error);
        }
        moved(&mut r, 300, Closed, Open);
        refused(&mut r, 900);
        assert_eq!(
            names(&r),
            ["model", "a_worker", "b_worker"],
            "no move within the second"
        );
        refused(&mut r, 1000);
        assert_eq!(names(&r), ["b_worker", "model", "a_worker"]);
        assert_eq!(trend(&r, "b_worker"), Trend::Sicker);

        // Its breaker flickers between open and half-open: it stays down,
        // and nothing moves.
        for (t, from, to) in [
            (1400, Open, HalfOpen),
            (1410, HalfOpen, Open),
            (1810, Open, HalfOpen),
            (1820, HalfOpen, Open),
        ] {
            moved(&mut r, t, from, to);
            refused(&mut r, t + 300);
            assert_eq!(names(&r), ["b_worker", "model", "a_worker"], "at {t}");
        }

        // The unshielded worker starts failing every call: down too, below
        // the one that went down first, marked as getting sicker.
        for t in (2200..=3200).step_by(100) {
            call(&mut r, "a_worker", t, CallOutcome::Timeout);
        }
        assert_eq!(names(&r), ["b_worker", "a_worker", "model"]);
        assert_eq!(trend(&r, "a_worker"), Trend::Sicker);

        // Both recover. The breaker's failures leave the 10 s window
        // first: it drops below the worker still failing then.
        moved(&mut r, 4000, Open, HalfOpen);
        call(&mut r, "b_worker", 4000, CallOutcome::Ok);
        moved(&mut r, 4000, HalfOpen, Closed);
        let calls_ok = |r: &mut Resilience, from: u64, until: u64| {
            for t in (from..=until).step_by(1000) {
                call(r, "b_worker", t, CallOutcome::Ok);
                call(r, "a_worker", t, CallOutcome::Ok);
            }
        };
        calls_ok(&mut r, 5000, 13_000);
        assert_eq!(names(&r), ["a_worker", "b_worker", "model"]);
        assert_eq!(trend(&r, "b_worker"), Trend::Better);
        // Once all are healthy, the rows keep their places.
        calls_ok(&mut r, 14_000, 16_000);
        assert!(r.tools.iter().all(|t| t.rank.band == health::Band::Healthy));
        assert_eq!(names(&r), ["a_worker", "b_worker", "model"]);
    }

    #[test]
    fn a_fallback_is_counted_as_such_and_not_as_an_error() {
        let mut r = seated();
        call(&mut r, "model", 100, CallOutcome::Ok);
        // The endpoint refused json_schema: the attempt ends in an error
        // the run then asks around.
        let refused = EventKind::CallFinished {
            call: 2,
            tool: "model".into(),
            attempt: 1,
            latency_ms: 3,
            outcome: CallOutcome::Error,
            usage: None,
            error: Some("the endpoint refused json_schema".into()),
            http_status: None,
            first_token_ms: None,
            tokens_per_s: None,
            reasoning: None,
            record: None,
            served: false,
            extracted: None,
            fallback: true,
        };
        r.apply(&refused, 200);
        call(&mut r, "model", 300, CallOutcome::Ok);
        let model = &r.tools[r.index["model"]];
        assert_eq!(model.fallbacks, 1);
        assert_eq!(model.failures, 0);
        assert_eq!(model.error_rate(300), Some(0.0), "two answers, no error");
        assert_eq!(model.latency(100), Some(10), "its latency is no answer's");
    }

    #[test]
    fn the_breaker_and_bulkhead_refusals_count_as_failed_calls() {
        let mut r = seated();
        call(&mut r, "b_worker", 100, CallOutcome::Ok);
        call(&mut r, "b_worker", 200, CallOutcome::Ok);
        refused(&mut r, 300);
        let budget = EventKind::CallRejected {
            tool: "b_worker".into(),
            attempt: 2,
            reason: StopReason::RetryBudgetExhausted,
        };
        r.apply(&budget, 400);
        let b = &r.tools[r.index["b_worker"]];
        assert_eq!(b.rejected, 2, "both failed fast");
        assert_eq!(
            b.error_rate(400),
            Some(1.0 / 3.0),
            "the run's retry budget says nothing of the tool"
        );
    }
}
