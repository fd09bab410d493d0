//! The gateway's tests: a gateway on the paused clock with a test
//! scenario's provider, workers, gate and resilience section, and the
//! events it publishes.

mod shields;
mod tool_path;

use super::*;
use crate::bus::{CallOutcome, Delivery, EventKind, Hub, Subscription};
use crate::clock::RunClock;
use crate::control::{Controller, Flags, SharedGate, channel};
use crate::provider::{Provider, RealTools, SimProvider, SimWorkers, Workers};
use crate::scenario::Scenario;
use serde_json::{Value, json};

fn scenario() -> Arc<Scenario> {
    Arc::new(
        serde_json::from_value(json!({
            "name": "t", "pattern": "orchestrator", "goal": "g", "context": {},
            "provider": {"kind": "sim"},
            "workers": {
                "slow_worker": {"latency_ms": 60000},
                "gated_worker": {"latency_ms": 10}
            },
            "flags": {"gate": {"default": false, "workers": ["gated_worker"]}}
        }))
        .unwrap(),
    )
}

struct Rig {
    gateway: Gateway,
    workers: Arc<Workers>,
    gate: crate::control::Gate,
    controller: Controller,
    events: Subscription,
}

fn rig() -> Rig {
    rig_for(scenario())
}

/// A gateway for `scenario`, shielded by its resilience section.
fn rig_for(scenario: Arc<Scenario>) -> Rig {
    let hub = Hub::new(4096);
    let events = hub.subscribe();
    let bus = Bus::new(1, RunClock::start(), hub, None);
    let rng = RunRng::seeded(0);
    let provider = Arc::new(Provider::Sim(Box::new(SimProvider::new(
        scenario.provider.clone(),
        rng.clone(),
    ))));
    let real = RealTools::for_scenario(&scenario, &|_| None).expect("real workers set up");
    let workers = Arc::new(Workers::new(
        SimWorkers::new(scenario.workers.clone(), rng.clone()),
        real,
    ));
    let (controller, gate) = channel(
        Flags::new(Arc::clone(&scenario), &[]).unwrap(),
        bus.clone(),
        false,
    );
    let gateway = Gateway::new(
        bus,
        provider,
        Arc::clone(&workers),
        CancellationToken::new(),
    )
    .with_resilience(scenario.resilience.clone(), gate.switches(), rng);
    Rig {
        gateway,
        workers,
        gate,
        controller,
        events,
    }
}

fn drain(events: &mut Subscription) -> Vec<EventKind> {
    let mut out = Vec::new();
    while let Some(Delivery::Event(e)) = events.try_next() {
        out.push(e.kind.clone());
    }
    out
}

const ARGS: &str = r#"{"report_date": "2026-02-26", "region": "US"}"#;
