//! What steering costs a hooked run when nobody steers: a gate's round
//! trip on loopback to `conclave watch`'s steering (the receiver's HTTP
//! listener, as `conclave watch` serves it), over one kept connection as
//! the Python hook keeps one per thread. Every gate goes at once. The
//! median and the 99th percentile of 2,000 gates are printed apart;
//! criterion times one gate.

use conclave::watch::receive::{ReceiveConfig, serve_steered};
use conclave::watch::steer::{Limits, Policy, Steering};
use criterion::{Criterion, criterion_group, criterion_main};
use std::time::{Duration, Instant};

const GATES: usize = 2_000;

fn gate_round_trip(c: &mut Criterion) {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime");
    let (sink, _batches) = tokio::sync::mpsc::channel(64);
    let config = ReceiveConfig {
        listen: "127.0.0.1:0".parse().expect("an address"),
        grpc: None,
        ..ReceiveConfig::default()
    };
    let steering = Steering::new(Limits::default(), Policy::default());
    let receiving = runtime
        .block_on(serve_steered(config, sink, steering))
        .expect("the steering listens");
    let url = format!("http://{}/v1/steer/hook", receiving.http_addr());
    let body = serde_json::json!({
        "trace_id": "0000000000000000000000000000beef", "session": "bench", "op": "gate",
        "kind": "tool_call", "name": "lookup_invoice", "agent": "Billing Agent",
        "arguments": {"invoice": 7}, "wait_ms": 10_000
    })
    .to_string();
    let client = reqwest::Client::new();
    let gate = || {
        runtime.block_on(async {
            let answer = client
                .post(&url)
                .header("content-type", "application/json")
                .body(body.clone())
                .send()
                .await
                .expect("the watch answers");
            assert!(answer.status().is_success());
            answer.bytes().await.expect("an answer")
        })
    };
    let mut times: Vec<Duration> = (0..GATES)
        .map(|_| {
            let at = Instant::now();
            gate();
            at.elapsed()
        })
        .collect();
    times.sort();
    println!(
        "steer gate round trip over {GATES} gates: median {:?}, p99 {:?}",
        times[GATES / 2],
        times[GATES * 99 / 100]
    );
    c.bench_function("steer_gate_round_trip", |b| b.iter(gate));
}

criterion_group!(benches, gate_round_trip);
criterion_main!(benches);
