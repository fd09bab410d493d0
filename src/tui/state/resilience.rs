//! The resilience pane's state: one entry per tool the run calls (the
//! model first, then the scenario's workers, then any tool first seen in an
//! event), folded from the gateway's events: breaker state and consecutive
//! failures, bulkhead occupancy and rejections, calls, retries, the recent
//! outcomes and latencies, calls per second. Pure: time is the events'.

use crate::bus::{BreakerState, CallOutcome, EventKind, FlagState};
use crate::scenario::{FailureRule, GatewayMechanism, MODEL_TOOL, ResilienceSpec, Scenario};
use crate::stop::StopReason;
use std::collections::{HashMap, VecDeque};

/// How far back the error rate looks.
pub const ERROR_WINDOW_MS: u64 = 10_000;
/// How many latencies the percentiles are taken over.
const LATENCY_SAMPLES: usize = 512;
/// How many seconds of calls per second are kept.
const SECONDS_KEPT: u64 = 120;
/// A bound on the outcomes kept for the error rate.
const RECENT_CAP: usize = 8192;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Resilience {
    pub tools: Vec<ToolHealth>,
    index: HashMap<String, usize>,
    spec: Option<ResilienceSpec>,
    /// The flags that switch a mechanism, with their state.
    switch_flags: Vec<(String, GatewayMechanism, bool)>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ToolHealth {
    pub name: String,
    pub breaker: Option<BreakerView>,
    pub bulkhead: Option<BulkheadView>,
    /// Calls that reached the tool (one per attempt).
    pub calls: u64,
    /// Calls that timed out or failed.
    pub failures: u64,
    pub retries: u64,
    /// Attempts the gateway failed fast, for any reason.
    pub rejected: u64,
    /// (run time, failed) of the calls that ended lately.
    recent: VecDeque<(u64, bool)>,
    latencies: VecDeque<u64>,
    /// (second of the run, calls started in it).
    per_second: VecDeque<(u64, u32)>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct BreakerView {
    pub state: BreakerState,
    /// Consecutive failures while closed (the count that opened it, once
    /// open).
    pub failures: u32,
    pub threshold: Option<u32>,
    pub(crate) failure_rate: Option<FailureRule>,
    /// The last outcomes for the failure rate, `true` for a failure.
    pub(crate) window: VecDeque<bool>,
    /// Run time of the last transition.
    pub(crate) since_ms: u64,
    pub(crate) open_for_ms: u64,
    pub probes_used: u32,
    pub probes: u32,
    /// How often it opened.
    pub(crate) opened: u32,
    /// Whether a flag has it switched off.
    pub(crate) off: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BulkheadView {
    pub in_flight: u32,
    pub(crate) max: u32,
    pub queued: u32,
    pub(crate) rejected: u64,
    pub(crate) max_wait_ms: u64,
    pub(crate) off: bool,
}

impl ToolHealth {
    fn new(name: &str, spec: Option<&ResilienceSpec>) -> Self {
        let settings = spec.map(|s| s.for_tool(name)).unwrap_or_default();
        ToolHealth {
            name: name.to_string(),
            breaker: settings.breaker.map(|rule| BreakerView {
                state: BreakerState::Closed,
                failures: 0,
                threshold: rule.fail_threshold,
                failure_rate: rule.failure_rate,
                window: VecDeque::new(),
                since_ms: 0,
                open_for_ms: rule.open_for_ms,
                probes_used: 0,
                probes: rule.half_open_probes,
                opened: 0,
                off: false,
            }),
            bulkhead: settings.bulkhead.map(|rule| BulkheadView {
                in_flight: 0,
                max: rule.max_in_flight,
                queued: 0,
                rejected: 0,
                max_wait_ms: rule.max_wait_ms,
                off: false,
            }),
            calls: 0,
            failures: 0,
            retries: 0,
            rejected: 0,
            recent: VecDeque::new(),
            latencies: VecDeque::new(),
            per_second: VecDeque::new(),
        }
    }

    /// The share of calls that failed among those that ended in the
    /// `ERROR_WINDOW_MS` before `now_ms`; `None` without any.
    pub fn error_rate(&self, now_ms: u64) -> Option<f64> {
        let from = now_ms.saturating_sub(ERROR_WINDOW_MS);
        let (calls, failed) = self
            .recent
            .iter()
            .rev()
            .take_while(|(t, _)| *t >= from)
            .fold((0u32, 0u32), |(c, f), (_, failed)| {
                (c + 1, f + u32::from(*failed))
            });
        (calls > 0).then(|| f64::from(failed) / f64::from(calls))
    }

    /// The `p`-th percentile (0–100) of the recent latencies, nearest rank.
    pub fn latency(&self, p: u32) -> Option<u64> {
        if self.latencies.is_empty() {
            return None;
        }
        let mut sorted: Vec<u64> = self.latencies.iter().copied().collect();
        sorted.sort_unstable();
        let rank = (u64::from(p.min(100)) * sorted.len() as u64).div_ceil(100);
        Some(sorted[(rank.max(1) - 1) as usize])
    }

    /// Calls started in each of the `seconds` seconds up to `now_ms`,
    /// oldest first.
    pub fn calls_per_second(&self, now_ms: u64, seconds: usize) -> Vec<u32> {
        let last = now_ms / 1000;
        (0..seconds as u64)
            .rev()
            .map(|back| {
                last.checked_sub(back)
                    .and_then(|second| self.per_second.iter().find(|(s, _)| *s == second))
                    .map_or(0, |(_, count)| *count)
            })
            .collect()
    }

    /// How sick the tool looks: an open breaker first, then a half-open
    /// one, a full bulkhead, failures piling up; 0 when healthy.
    pub(crate) fn severity(&self) -> u8 {
        let breaker = self.breaker.as_ref().filter(|b| !b.off);
        match breaker.map(|b| b.state) {
            Some(BreakerState::Open) => 4,
            Some(BreakerState::HalfOpen) => 3,
            _ if self
                .bulkhead
                .as_ref()
                .is_some_and(|b| !b.off && (b.queued > 0 || b.in_flight >= b.max)) =>
            {
                2
            }
            _ if breaker.is_some_and(|b| b.failures > 0) => 1,
            _ => 0,
        }
    }

    fn started(&mut self, t_ms: u64) {
        self.calls += 1;
        let second = t_ms / 1000;
        match self.per_second.back_mut() {
            Some((s, count)) if *s == second => *count += 1,
            _ => self.per_second.push_back((second, 1)),
        }
        while self
            .per_second
            .front()
            .is_some_and(|(s, _)| *s + SECONDS_KEPT <= second)
        {
            self.per_second.pop_front();
        }
        if let Some(b) = &mut self.breaker
            && b.state == BreakerState::HalfOpen
            && !b.off
        {
            b.probes_used += 1;
        }
    }

    fn finished(&mut self, t_ms: u64, outcome: CallOutcome, latency_ms: u64) {
        let failed = match outcome {
            CallOutcome::Ok => false,
            CallOutcome::Timeout | CallOutcome::Error => true,
            CallOutcome::Cancelled | CallOutcome::Refused => return,
        };
        self.failures += u64::from(failed);
        self.recent.push_back((t_ms, failed));
        let from = t_ms.saturating_sub(ERROR_WINDOW_MS);
        while self.recent.len() > RECENT_CAP || self.recent.front().is_some_and(|(t, _)| *t < from)
        {
            self.recent.pop_front();
        }
        self.latencies.push_back(latency_ms);
        if self.latencies.len() > LATENCY_SAMPLES {
            self.latencies.pop_front();
        }
        // Counted as the gateway's breaker counts: only while closed.
        if let Some(b) = &mut self.breaker
            && b.state == BreakerState::Closed
            && !b.off
        {
            b.failures = if failed { b.failures + 1 } else { 0 };
            if let Some(rate) = b.failure_rate {
                b.window.push_back(failed);
                while b.window.len() > rate.window as usize {
                    b.window.pop_front();
                }
            }
        }
    }
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
        self.tool(MODEL_TOOL);
        for worker in scenario.workers.keys() {
            self.tool(worker);
        }
        self.follow_switches();
    }

    fn tool(&mut self, name: &str) -> &mut ToolHealth {
        let index = match self.index.get(name) {
            Some(i) => *i,
            None => {
                let mut health = ToolHealth::new(name, self.spec.as_ref());
                self.mark_switches(&mut health);
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

    fn mark_switches(&self, health: &mut ToolHealth) {
        let breakers = self.switched_on(GatewayMechanism::CircuitBreaker);
        let bulkheads = self.switched_on(GatewayMechanism::Bulkhead);
        if let Some(b) = &mut health.breaker {
            if !breakers && !b.off {
                // The gateway's breaker forgets everything when switched off.
                b.state = BreakerState::Closed;
                b.failures = 0;
                b.window.clear();
            }
            b.off = !breakers;
        }
        if let Some(b) = &mut health.bulkhead {
            b.off = !bulkheads;
        }
    }

    fn follow_switches(&mut self) {
        let mut tools = std::mem::take(&mut self.tools);
        for health in &mut tools {
            self.mark_switches(health);
        }
        self.tools = tools;
    }

    /// The tools, sickest first, then in the order they were seated.
    pub(crate) fn ordered(&self) -> Vec<&ToolHealth> {
        let mut tools: Vec<&ToolHealth> = self.tools.iter().collect();
        tools.sort_by_key(|t| std::cmp::Reverse(t.severity()));
        tools
    }

    /// Fold one gateway event at run time `t_ms`; others are ignored.
    pub(super) fn apply(&mut self, kind: &EventKind, t_ms: u64) {
        match kind {
            EventKind::FlagChanged { name, on } => {
                if let Some(flag) = self.switch_flags.iter_mut().find(|(n, ..)| n == name) {
                    flag.2 = *on;
                    self.follow_switches();
                }
            }
            EventKind::CallStarted { tool, .. } => self.tool(tool).started(t_ms),
            EventKind::CallFinished {
                tool,
                outcome,
                latency_ms,
                ..
            } => self.tool(tool).finished(t_ms, *outcome, *latency_ms),
            EventKind::RetryScheduled { tool, .. } => self.tool(tool).retries += 1,
            EventKind::CallRejected { tool, reason, .. } => {
                let health = self.tool(tool);
                health.rejected += 1;
                if let (StopReason::BulkheadFull { .. }, Some(b)) = (reason, &mut health.bulkhead) {
                    b.rejected += 1;
                }
            }
            EventKind::BreakerTransition { tool, to, .. } => {
                if let Some(b) = &mut self.tool(tool).breaker {
                    b.state = *to;
                    b.since_ms = t_ms;
                    match to {
                        BreakerState::Closed => {
                            b.failures = 0;
                            b.window.clear();
                        }
                        BreakerState::HalfOpen => b.probes_used = 0,
                        BreakerState::Open => b.opened += 1,
                    }
                }
            }
            EventKind::Bulkhead {
                tool,
                in_flight,
                max,
                queued,
            } => {
                let health = self.tool(tool);
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
            _ => {}
        }
    }
}
