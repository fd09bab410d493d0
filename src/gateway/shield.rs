//! The run's shields: for each tool its settings from the resilience
//! section, its breaker and its bulkhead, built on the tool's first call;
//! and the run-wide retry budget and safe mode. A call is admitted here
//! (breaker, then bulkhead, as 003's `guarded_tool_call` orders them) and
//! settled here; every transition and rejection is published. The flags'
//! switches are read at each admission. It never calls a tool or retries.

use super::breaker::{Breaker, Ticket};
use super::bulkhead::{Bulkhead, Slot};
use super::retry_budget::RetryBudget;
use super::safe_mode::{SafeMode, SafeModeVerdict};
use crate::bus::{Bus, CallOutcome, EventKind};
use crate::control::Switches;
use crate::rng::RunRng;
use crate::scenario::{GatewayMechanism, ResilienceSpec, ToolResilience};
use crate::stop::StopReason;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::Arc;

#[derive(Debug)]
pub(crate) struct Shields {
    spec: Option<ResilienceSpec>,
    switches: Switches,
    pub(super) rng: RunRng,
    bus: Bus,
    tools: Mutex<HashMap<String, Arc<ToolShield>>>,
    budget: Option<RetryBudget>,
    safe_mode: Option<SafeMode>,
}

#[derive(Debug)]
pub(crate) struct ToolShield {
    name: String,
    pub(super) settings: ToolResilience,
    breaker: Option<Mutex<BreakerCell>>,
    bulkhead: Option<Bulkhead>,
    switches: Switches,
    bus: Bus,
}

#[derive(Debug)]
struct BreakerCell {
    breaker: Breaker,
    /// How often the breaker had been switched off when it last looked.
    offs_seen: u64,
}

impl Shields {
    /// `spec` is the scenario's resilience section; without one nothing is
    /// shielded and every call goes straight to its tool.
    pub(crate) fn new(
        spec: Option<ResilienceSpec>,
        switches: Switches,
        rng: RunRng,
        bus: Bus,
    ) -> Self {
        Shields {
            budget: spec
                .as_ref()
                .and_then(|s| s.retry_budget.as_ref())
                .map(RetryBudget::new),
            safe_mode: spec
                .as_ref()
                .and_then(|s| s.safe_mode.as_ref())
                .and_then(SafeMode::new),
            spec,
            switches,
            rng,
            bus,
            tools: Mutex::new(HashMap::new()),
        }
    }

    /// `tool`'s shield, built on its first call.
    pub(crate) fn tool(&self, tool: &str) -> Arc<ToolShield> {
        let mut tools = self.tools.lock();
        let shield = tools.entry(tool.to_string()).or_insert_with(|| {
            let settings = self
                .spec
                .as_ref()
                .map(|s| s.for_tool(tool))
                .unwrap_or_default();
            Arc::new(ToolShield {
                name: tool.to_string(),
                breaker: settings.breaker.map(|rule| {
                    Mutex::new(BreakerCell {
                        breaker: Breaker::new(rule),
                        offs_seen: self.switches.times_off(GatewayMechanism::CircuitBreaker),
                    })
                }),
                bulkhead: settings
                    .bulkhead
                    .map(|rule| Bulkhead::new(tool, rule, self.bus.clone())),
                settings,
                switches: self.switches.clone(),
                bus: self.bus.clone(),
            })
        });
        Arc::clone(shield)
    }

    /// Whether the resilience section's retries apply now.
    pub(crate) fn retries_on(&self) -> bool {
        self.switches.is_on(GatewayMechanism::Retries)
    }

    /// The retry budget, while it applies.
    pub(crate) fn budget(&self) -> Option<&RetryBudget> {
        self.budget
            .as_ref()
            .filter(|_| self.switches.is_on(GatewayMechanism::RetryBudget))
    }

    /// A call's first attempt, for the retry budget.
    pub(crate) fn first_call(&self) {
        if let Some(budget) = &self.budget {
            budget.first_call();
        }
    }

    /// Safe mode's verdict on a call that ended with `reason`.
    pub(crate) fn judge(
        &self,
        tool: &str,
        critical: bool,
        reason: &StopReason,
    ) -> Option<SafeModeVerdict> {
        self.safe_mode
            .as_ref()
            .filter(|_| self.switches.is_on(GatewayMechanism::SafeMode))?
            .judge(tool, critical, reason)
    }

    /// Whether safe mode is configured and switched on.
    pub(crate) fn safe_mode_on(&self) -> bool {
        self.safe_mode.is_some() && self.switches.is_on(GatewayMechanism::SafeMode)
    }

    /// Tools safe mode skipped, in the order first skipped.
    pub(crate) fn degraded(&self) -> Vec<String> {
        self.safe_mode
            .as_ref()
            .map(SafeMode::degraded)
            .unwrap_or_default()
    }
}

/// What an admitted call holds while it runs: its breaker ticket and its
/// bulkhead slot. Settle it with the call's outcome; dropped unsettled (the
/// call never ran to an outcome), its probe slot is freed.
#[derive(Debug)]
pub(crate) struct Pass {
    shield: Arc<ToolShield>,
    ticket: Option<Ticket>,
    slot: Option<Slot>,
}

impl ToolShield {
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// Admit attempt `attempt` of a call: `Err` carries why it fails fast
    /// (`circuit_open`, `bulkhead_full`), already published.
    pub(crate) async fn admit(self: &Arc<Self>, attempt: u32) -> Result<Pass, StopReason> {
        let ticket = self.admit_breaker(attempt)?;
        let mut pass = Pass {
            shield: Arc::clone(self),
            ticket,
            slot: None,
        };
        if let Some(bulkhead) = &self.bulkhead
            && self.switches.is_on(GatewayMechanism::Bulkhead)
        {
            match bulkhead.enter().await {
                Ok(slot) => pass.slot = Some(slot),
                Err(()) => {
                    let reason = StopReason::BulkheadFull {
                        tool: self.name.clone(),
                    };
                    self.reject(attempt, &reason);
                    return Err(reason);
                }
            }
        }
        Ok(pass)
    }

    fn admit_breaker(&self, attempt: u32) -> Result<Option<Ticket>, StopReason> {
        let Some(cell) = &self.breaker else {
            return Ok(None);
        };
        let mut cell = cell.lock();
        let offs = self.switches.times_off(GatewayMechanism::CircuitBreaker);
        let on = self.switches.is_on(GatewayMechanism::CircuitBreaker);
        if !on || cell.offs_seen != offs {
            cell.offs_seen = offs;
            if let Some(t) = cell.breaker.reset() {
                self.transition(t);
            }
            if !on {
                return Ok(None);
            }
        }
        let (ticket, moved) = cell.breaker.admit(self.bus.clock().elapsed());
        if let Some(t) = moved {
            self.transition(t);
        }
        match ticket {
            Ok(ticket) => Ok(Some(ticket)),
            Err(()) => {
                let reason = StopReason::CircuitOpen {
                    tool: self.name.clone(),
                };
                self.reject(attempt, &reason);
                Err(reason)
            }
        }
    }

    fn transition(&self, t: super::breaker::Transition) {
        self.bus.publish(EventKind::BreakerTransition {
            tool: self.name.clone(),
            from: t.from,
            to: t.to,
            reason: t.reason,
        });
    }

    pub(crate) fn reject(&self, attempt: u32, reason: &StopReason) {
        self.bus.publish(EventKind::CallRejected {
            tool: self.name.clone(),
            attempt,
            reason: reason.clone(),
        });
    }
}

impl Pass {
    /// The call ran and ended with `outcome`: a timeout or an error counts
    /// as a failure of the tool (003 counts every exception), a success
    /// resets the count.
    pub(crate) fn settle(mut self, outcome: CallOutcome) {
        let failed = match outcome {
            CallOutcome::Ok => false,
            CallOutcome::Timeout | CallOutcome::Error => true,
            CallOutcome::Cancelled | CallOutcome::Refused => return,
        };
        drop(self.slot.take());
        let (Some(ticket), Some(cell)) = (self.ticket.take(), &self.shield.breaker) else {
            return;
        };
        let mut cell = cell.lock();
        let now = self.shield.bus.clock().elapsed();
        if let Some(t) = cell.breaker.record(ticket, failed, now) {
            self.shield.transition(t);
        }
    }
}

impl Drop for Pass {
    fn drop(&mut self) {
        // Free the bulkhead slot before the breaker hears of the call.
        drop(self.slot.take());
        if let (Some(ticket), Some(cell)) = (self.ticket.take(), &self.shield.breaker) {
            cell.lock().breaker.abandon(ticket);
        }
    }
}
