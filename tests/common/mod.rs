//! Running scenarios in-process for tests: on tokio's paused clock, with the
//! events a viewer would see collected alongside the outcome.

#![allow(dead_code)]

pub mod alone;
pub mod bounded;
pub mod cli;
pub mod damage;
pub mod files;
pub mod graph;
pub mod loopback;
pub mod messy;
pub mod nats;
pub mod node;
pub mod openai_upstream;
pub mod pty;
pub mod python;
pub mod real;
pub mod research;
pub mod screen;
pub mod script;
pub mod sources;
pub mod steer;
pub mod streaming;

use conclave::bus::{Delivery, Event, EventKind, Hub};
use conclave::engine::{self, LaunchOptions, ProviderChoice, RunHandle};
use conclave::patterns::RunOutcome;
use conclave::scenario::{self, Scenario};
use serde_json::Value;
use std::sync::Arc;

/// Every line of the JSONL recording at `path`, read as `T` (a JSON value
/// or an [`Event`]); panics on a line that does not read, as a test of a
/// whole recording wants.
pub fn recorded<T: serde::de::DeserializeOwned>(path: impl AsRef<std::path::Path>) -> Vec<T> {
    let path = path.as_ref();
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|line| {
            serde_json::from_str(line).unwrap_or_else(|e| panic!("{}: {e}: {line}", path.display()))
        })
        .collect()
}

pub fn scenario(document: &Value) -> Arc<Scenario> {
    match scenario::parse(&document.to_string(), "test.json") {
        Ok(s) => Arc::new(s),
        Err(e) => panic!("test scenario is invalid:\n{e}"),
    }
}

pub fn shipped(name: &str) -> Arc<Scenario> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios")
        .join(name);
    Arc::new(scenario::load(&path).unwrap_or_else(|e| panic!("{e}")))
}

/// Launch with a hub big enough that the test's viewer never lags.
pub fn launch(
    scenario: Arc<Scenario>,
    options: LaunchOptions,
) -> (RunHandle, conclave::bus::Subscription) {
    let hub = Hub::new(1 << 16);
    let sub = hub.subscribe();
    let handle = engine::launch(scenario, &hub, options).expect("launch");
    (handle, sub)
}

/// Run to the end; returns the outcome and every event.
pub async fn run(scenario: Arc<Scenario>, options: LaunchOptions) -> (RunOutcome, Vec<Event>) {
    let (handle, mut sub) = launch(scenario, options);
    let outcome = handle.finish().await.expect("run finishes");
    (outcome, drain(&mut sub))
}

/// The provider of a run against the OpenAI-compatible endpoint served at
/// `base` (a loopback server's address), as `mock-model`.
pub fn endpoint_at(base: &str) -> ProviderChoice {
    ProviderChoice {
        kind: Some(conclave::scenario::ProviderKind::Openai),
        model: Some("mock-model".into()),
        base_url: Some(format!("{base}/v1")),
        ..ProviderChoice::default()
    }
}

/// Launch options for a run against the endpoint served at `base`.
pub fn on_endpoint_at(base: &str) -> LaunchOptions {
    LaunchOptions {
        provider: endpoint_at(base),
        ..LaunchOptions::default()
    }
}

pub async fn run_default(scenario: Arc<Scenario>) -> RunOutcome {
    run(scenario, LaunchOptions::default()).await.0
}

/// Every event delivered so far.
pub fn drain(sub: &mut conclave::bus::Subscription) -> Vec<Event> {
    let mut events = Vec::new();
    while let Some(delivery) = sub.try_next() {
        match delivery {
            Delivery::Event(e) => events.push((*e).clone()),
            Delivery::Missed(n) => panic!("the test viewer missed {n} events"),
            Delivery::Closed => break,
        }
    }
    events
}

pub fn kinds(events: &[Event]) -> Vec<&EventKind> {
    events.iter().map(|e| &e.kind).collect()
}

/// A collaboration scenario with three roles whose outputs are given per
/// role; everything else takes defaults.
pub fn table(responses: Value) -> Value {
    serde_json::json!({
        "name": "t", "pattern": "collaboration", "goal": "Decide.",
        "context": {"report_date": "2026-03-02", "region": "US"},
        "team": {
            "roles": {"demand_analyst": {}, "finance_analyst": {}, "risk_analyst": {}, "legal_analyst": {}},
            "sequence": ["demand_analyst", "finance_analyst", "risk_analyst"]
        },
        "flags": {"legal_analyst": {"default": false, "roles": ["legal_analyst"], "joins": true}},
        "provider": {"kind": "sim", "latency_ms": 100, "responses": responses, "final_answer": "Brief."}
    })
}

/// A valid contribution.
pub fn said(agent: &str, stance: &str, confidence: f64) -> Value {
    serde_json::json!({"agent": agent, "stance": stance, "summary": format!("{agent} says {stance}"),
                       "confidence": confidence, "actions": ["act"]})
}

/// An orchestrator scenario with 001's three workers (sales 400 ms,
/// payments 300 ms, inventory 500 ms) and a 100 ms planner.
pub fn ops(plan: Value) -> Value {
    serde_json::json!({
        "name": "t", "pattern": "orchestrator", "goal": "Report.",
        "context": {"report_date": "2026-02-26", "region": "US"},
        "workers": {
            "sales_worker": {"data": {"2026-02-26:US": {"gross_sales_usd": 182450.0, "orders": 4820}},
                             "latency_ms": 400},
            "payments_worker": {"data": {"2026-02-26:US": {"failed_payment_rate": 0.023, "gateway_incident": "none"}},
                                "latency_ms": 300},
            "inventory_worker": {"data": {"2026-02-26:US": {"out_of_stock_skus": []}}, "latency_ms": 500}
        },
        "flags": {"inventory_runtime": {"default": true, "workers": ["inventory_worker"]}},
        "provider": {"kind": "sim", "latency_ms": 100, "plan": plan, "final_answer": "Brief."}
    })
}

/// A valid plan task for the report of `ops`.
pub fn task(id: &str, worker: &str, critical: bool) -> Value {
    serde_json::json!({"id": id, "worker": worker,
                       "args": {"report_date": "2026-02-26", "region": "US"}, "critical": critical})
}

pub fn plan_of(tasks: Vec<Value>) -> Value {
    serde_json::json!({"kind": "plan", "tasks": tasks})
}

/// t1 sales, t2 payments, t3 inventory, all critical.
pub fn three_tasks() -> Value {
    plan_of(vec![
        task("t1", "sales_worker", true),
        task("t2", "payments_worker", true),
        task("t3", "inventory_worker", true),
    ])
}

/// `loyalty_program_deadlock` asking a person after 2 blocking rounds
/// (`budget.escalate_after_blocking_rounds`), written into `dir`; its model
/// answers at once when `instant`. The file's path.
pub fn escalating_deadlock(dir: &std::path::Path, instant: bool) -> String {
    let shipped = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios/loyalty_program_deadlock.json");
    let mut scenario: Value =
        serde_json::from_str(&std::fs::read_to_string(shipped).unwrap()).unwrap();
    scenario["budget"]["escalate_after_blocking_rounds"] = 2.into();
    if instant {
        scenario["provider"]["latency_ms"] = 0.into();
    }
    let path = dir.join("loyalty_escalates.json");
    std::fs::write(&path, serde_json::to_string_pretty(&scenario).unwrap()).unwrap();
    path.display().to_string()
}

/// Carry out what the dashboard's app decided, as its loop does, and hand
/// the app what came of it (quitting and copies are the terminal's, and
/// left out).
pub fn carry(
    world: &mut conclave::tui::world::World,
    app: &mut conclave::tui::app::App,
    effects: Vec<conclave::tui::effect::Effect>,
) {
    for effect in effects {
        // What the loop reads on its blocking threads is read here, in
        // place, so a test sees its result at once.
        let mut told = Vec::new();
        let read = conclave::tui::world::read_now(effect.clone(), &mut |d| told.push(d));
        if let Some(done) = read {
            told.push(done);
        } else if let Some(done) = world.carry_out(effect) {
            told.push(done);
        }
        for done in told {
            app.done(done);
        }
    }
}

/// A world launching on `hub` as the dashboard does by default, but on
/// tokio's clock, which the tests' paused runtime advances without
/// waiting.
pub fn world(hub: Hub) -> conclave::tui::world::World {
    conclave::tui::world::World::new(
        hub,
        conclave::tui::world::LaunchSettings {
            clock: Some(conclave::clock::ClockMode::Virtual),
            ..Default::default()
        },
    )
}

/// `recording` written again to `out` with each event changed by `change`
/// (a damaged, an older or a lying recording made from a real one).
pub fn rewrite_recording(
    recording: &std::path::Path,
    out: &std::path::Path,
    change: impl Fn(&mut serde_json::Value),
) {
    let lines: Vec<String> = std::fs::read_to_string(recording)
        .unwrap()
        .lines()
        .map(|line| {
            let mut event: serde_json::Value = serde_json::from_str(line).unwrap();
            change(&mut event);
            event.to_string()
        })
        .collect();
    std::fs::write(out, lines.join("\n") + "\n").unwrap();
}

/// `recording` as a Conclave older than cassettes wrote it: no call keeps
/// what it asked and answered.
pub fn made_before_cassettes(recording: &std::path::Path, out: &std::path::Path) {
    rewrite_recording(recording, out, |event| {
        if let Some(fields) = event.as_object_mut() {
            fields.remove("record");
        }
    });
}
