//! What steering costs a hooked run when nobody steers: a gate's round
//! trip on loopback to `conclave watch`'s steering (the receiver's HTTP
//! listener, as `conclave watch` serves it), over one kept connection as
//! the Python hook keeps one per thread. Every gate goes at once. The
//! median and the 99th percentile of 2,000 gates are printed apart;
//! criterion times one gate. Then whole runs of 1,000 gates on a stub
//! model, an OpenAI Agents SDK run (benches/steer_agents_run.py) and a
//! LangGraph one (benches/steer_run.py), in the pinned frameworks the
//! steering tests install under target/tools, each timed without the
//! hook and with it, interleaved in one process, medians printed with
//! the hook's share.

// The steering tests' installer of the pinned frameworks (and the lock
// it takes), shared with this bench.
#[allow(dead_code)]
#[path = "../tests/common/nats/install.rs"]
mod nats_install;
mod nats {
    pub(crate) use super::nats_install as install;
}
#[allow(dead_code)]
#[path = "../tests/common/python.rs"]
mod python;

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
    run_cost(receiving.http_addr());
}

/// How many times each run goes each way.
const ROUNDS: usize = 7;

/// 1,000-gate runs with the hook and without, nobody steering: the
/// OpenAI Agents SDK (50 turns of a model call and 19 tool calls) and
/// LangGraph (1,000 node visits), hooked by its callback handler (where
/// LangChain's dispatch of callbacks costs what any handler costs) and
/// by `gate_node` around the node's function. (LangGraph's script runs
/// twice, once per row.)
fn run_cost(addr: std::net::SocketAddr) {
    use python::Framework;
    let url = format!("http://{addr}");
    let rounds = ROUNDS.to_string();
    let agents = ["50", "19", &rounds];
    let (without, with) = timed(
        Framework::OpenAiAgents,
        "steer_agents_run.py",
        &url,
        &agents,
    );
    print_cost("OpenAI Agents SDK", without, with);
    let graph = ["1000", &rounds];
    let (without, with) = timed(Framework::LangGraph, "steer_run.py", &url, &graph);
    print_cost("LangGraph, SteerCallback", without, with);
    let (without, with) = timed_as(Framework::LangGraph, "steer_run.py", &url, &graph, "nodes");
    print_cost("LangGraph, gate_node", without, with);
}

fn print_cost(framework: &str, without: f64, with: f64) {
    println!(
        "steer run of 1000 gates ({framework}, stub model, nobody steering), medians of {ROUNDS} interleaved: \
         without the hook {:.1} ms, with it {:.1} ms ({:+.1}%)",
        without * 1e3,
        with * 1e3,
        (with / without - 1.0) * 100.0
    );
}

/// `script` of benches/ run by `framework`'s Python: the medians of its
/// runs without the hook and with it, in seconds.
fn timed(framework: python::Framework, script: &str, url: &str, args: &[&str]) -> (f64, f64) {
    timed_as(framework, script, url, args, "with")
}

/// As [`timed`], the hooked runs read from `with`.
fn timed_as(
    framework: python::Framework,
    script: &str,
    url: &str,
    args: &[&str],
    with: &str,
) -> (f64, f64) {
    let script = python::root().join("benches").join(script);
    let output = std::process::Command::new(python::python(framework))
        .arg(&script)
        .arg(url)
        .args(args)
        .env("PYTHONPATH", python::root().join("hooks/python"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("OPENAI_AGENTS_DISABLE_TRACING", "1")
        .output()
        .expect("the run starts");
    assert!(
        output.status.success(),
        "{}: {}",
        script.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    let said: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("the run's timings as JSON");
    let median = |key: &str| {
        let mut times: Vec<f64> = said[key]
            .as_array()
            .expect("timings")
            .iter()
            .filter_map(serde_json::Value::as_f64)
            .collect();
        times.sort_by(f64::total_cmp);
        times[times.len() / 2]
    };
    (median("without"), median(with))
}

criterion_group!(benches, gate_round_trip);
criterion_main!(benches);
