//! Engine scale: one orchestrator run of 10,000 tasks with 1–50 ms of
//! simulated latency each, 256 at a time, on the virtual clock, through
//! the whole engine (planner, plan contract, gateway, workers, bus,
//! aggregate, brief). Criterion reports the wall time of a run; a counting
//! allocator around the binary's allocator reports the run's peak heap.
//! Targets: at most 1 s and 200 MB.

use conclave::bus::Hub;
use conclave::engine::{self, LaunchOptions};
use conclave::scenario::{self, Scenario};
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[path = "common/counting.rs"]
mod counting;

#[global_allocator]
static ALLOCATOR: counting::Counting = counting::Counting;

const TASKS: usize = 10_000;
const WORKERS: [&str; 4] = [
    "sales_worker",
    "payments_worker",
    "inventory_worker",
    "fraud_worker",
];

fn scenario() -> Arc<Scenario> {
    let tasks: Vec<Value> = (0..TASKS)
        .map(|i| {
            json!({"id": format!("t{i}"), "worker": WORKERS[i % WORKERS.len()],
                   "args": {"report_date": "2026-02-26", "region": "US"}, "critical": i % 10 == 0})
        })
        .collect();
    let workers: serde_json::Map<String, Value> = WORKERS
        .iter()
        .map(|name| {
            (
                name.to_string(),
                json!({"data": {"2026-02-26:US": {"value": 1}}, "latency_ms": {"min": 1, "max": 50}}),
            )
        })
        .collect();
    let document = json!({
        "name": "ten_thousand_tasks", "pattern": "orchestrator", "goal": "Report.",
        "context": {"report_date": "2026-02-26", "region": "US"},
        "budget": {"max_tasks": TASKS, "max_parallel": 256, "max_dispatches": TASKS,
                   "max_retries_per_task": 1, "task_timeout_seconds": 2.0, "max_seconds": 600},
        "workers": workers,
        "provider": {"kind": "sim", "plan": {"kind": "plan", "tasks": tasks}, "final_answer": "Done."}
    });
    Arc::new(scenario::parse(&document.to_string(), "bench.json").expect("a valid scenario"))
}

/// One run on a fresh virtual-clock runtime; its wall time.
fn run_once(scenario: &Arc<Scenario>) -> Duration {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .unwrap();
    let start = Instant::now();
    let outcome = runtime.block_on(async {
        let handle = engine::launch(
            Arc::clone(scenario),
            &Hub::default(),
            LaunchOptions::default(),
        )
        .expect("launch");
        handle.finish().await.expect("the run finishes")
    });
    let took = start.elapsed();
    let result = &outcome.result;
    assert_eq!(result["stop_reason"], "success");
    assert_eq!(result["trace"].as_array().map(Vec::len), Some(TASKS));
    took
}

fn engine_scale(c: &mut Criterion) {
    let scenario = scenario();
    let mut group = c.benchmark_group("orchestrator");
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(8));
    group.bench_function("10k_tasks_256_parallel", |b| {
        b.iter_custom(|iters| (0..iters).map(|_| run_once(&scenario)).sum())
    });
    group.finish();

    let before = counting::reset_peak();
    let took = run_once(&scenario);
    let peak = counting::peak() - before;
    println!(
        "one run of {TASKS} tasks: {:.0} ms wall, peak heap {:.1} MB above the {:.1} MB held before it",
        took.as_secs_f64() * 1000.0,
        peak as f64 / 1e6,
        before as f64 / 1e6
    );
    if let Ok(status) = std::fs::read_to_string("/proc/self/status") {
        for line in status.lines().filter(|l| l.starts_with("VmHWM")) {
            println!("process high-water mark (criterion included): {line}");
        }
    }
}

criterion_group!(benches, engine_scale);
criterion_main!(benches);
