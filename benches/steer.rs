//! What steering costs a hooked run when nobody steers: a gate's round
//! trip on loopback to `conclave watch`'s steering (the receiver's HTTP
//! listener, as `conclave watch` serves it), over one kept connection as
//! the Python hook keeps one per thread. Every gate goes at once. The
//! median and the 99th percentile of 2,000 gates are printed apart;
//! criterion times one gate. Then whole runs of 1,000 gates on a stub
//! model in each framework (benches/steer_agents_run.py, steer_run.py,
//! steer_cost.py), in the pinned frameworks the steering tests install
//! under target/tools, each timed without the hook and with it,
//! interleaved in one process (each round in the reverse order of the
//! one before): per adapter, the medians of the wall time and of the
//! process's CPU time, the hook's added share, the spread of the medians
//! (the largest less the smallest of three groups of rounds), the rounds
//! (`CONCLAVE_STEER_ROUNDS`) and the machine's load. Last, how late a pause holds:
//! in each of the four frameworks, a run on a model served over loopback
//! that answers in 1 s is paused 20 times at random moments
//! (benches/steer_pause.py); the gates that passed after each pause, and
//! the model calls that started after it, are printed.

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
    pause_latency(receiving.http_addr());
}

/// Pauses at random moments in each framework's run on a 1 s model: the
/// gates passed after each pause (median and most), the model calls
/// started after any, and the median time until held.
fn pause_latency(addr: std::net::SocketAddr) {
    use python::Framework;
    let url = format!("http://{addr}");
    for (framework, name) in [
        (Framework::OpenAiAgents, "openai_agents"),
        (Framework::LangGraph, "langgraph"),
        (Framework::PydanticAi, "pydantic_ai"),
        (Framework::AutoGen, "autogen"),
    ] {
        let said = python_json(
            framework,
            "steer_pause.py",
            &[name, &url, "20", "1.0", "88"],
        );
        let pauses = said["pauses"].as_array().expect("the pauses");
        let mut gates: Vec<u64> = pauses.iter().filter_map(|p| p["gates"].as_u64()).collect();
        gates.sort_unstable();
        let mut held: Vec<f64> = pauses
            .iter()
            .filter_map(|p| p["held_ms"].as_f64())
            .collect();
        held.sort_by(f64::total_cmp);
        let calls: u64 = pauses
            .iter()
            .filter_map(|p| p["model_calls"].as_u64())
            .sum();
        let kinds: Vec<&str> = pauses
            .iter()
            .flat_map(|p| p["kinds"].as_array().into_iter().flatten())
            .filter_map(serde_json::Value::as_str)
            .collect();
        println!(
            "steer pause ({name}, 1 s model, {} pauses at random moments): gates passed after \
             the pause median {}, most {}, their kinds {kinds:?}; model calls started after a \
             pause {calls}; held after a median {:.0} ms; the run stopped: {}",
            gates.len(),
            gates[gates.len() / 2],
            gates[gates.len() - 1],
            held[held.len() / 2],
            said["stopped"]
        );
    }
}

/// How many times each run goes each way (three groups, for the spread),
/// unless `CONCLAVE_STEER_ROUNDS` says.
const ROUNDS: usize = 12;

/// 1,000-gate runs with the hook and without, nobody steering: the
/// OpenAI Agents SDK (50 turns of a model call and 19 tool calls),
/// LangGraph (1,000 node visits, every node gated by `steered`, and by
/// `gate_node` around the node's function; and a callback handler that
/// does nothing, what LangChain's dispatch costs any handler),
/// PydanticAI (1,000 tool calls through `SteerToolset`) and AutoGen (a
/// team whose runtime carries about 1,000 messages through
/// `SteerIntervention` in its `handlers()`, and a handler that does
/// nothing; and 1,000 model calls through `SteerModel`)
/// (benches/steer_cost.py for the last two).
fn run_cost(addr: std::net::SocketAddr) {
    use python::Framework;
    let url = format!("http://{addr}");
    let rounds = std::env::var("CONCLAVE_STEER_ROUNDS")
        .ok()
        .and_then(|rounds| rounds.parse::<usize>().ok())
        .filter(|&rounds| rounds >= 3)
        .unwrap_or(ROUNDS)
        .to_string();
    let agents = [url.as_str(), "50", "19", &rounds];
    let (said, load) =
        measured(|| python_json(Framework::OpenAiAgents, "steer_agents_run.py", &agents));
    print_cost("OpenAI Agents SDK, SteerHooks", &said, "with", &load);
    let graph = [url.as_str(), "1000", &rounds];
    let (said, load) = measured(|| python_json(Framework::LangGraph, "steer_run.py", &graph));
    print_cost("LangGraph, steered", &said, "with", &load);
    print_cost(
        "LangGraph, a handler that does nothing",
        &said,
        "idle",
        &load,
    );
    print_cost("LangGraph, gate_node", &said, "nodes", &load);
    for (framework, name, adapter) in [
        (
            Framework::PydanticAi,
            "pydantic_ai",
            "PydanticAI, SteerToolset",
        ),
        (Framework::AutoGen, "autogen", "AutoGen, SteerIntervention"),
        (Framework::AutoGen, "autogen_model", "AutoGen, SteerModel"),
    ] {
        let (said, load) =
            measured(|| python_json(framework, "steer_cost.py", &[name, &url, &rounds]));
        print_cost(adapter, &said, "with", &load);
        if name == "autogen" {
            print_cost("AutoGen, a handler that does nothing", &said, "idle", &load);
        }
    }
}

/// What `measure` gives, and the machine's load (one minute's average)
/// before and after it, as `before→after`.
fn measured<T>(measure: impl FnOnce() -> T) -> (T, String) {
    let load = || {
        std::fs::read_to_string("/proc/loadavg")
            .ok()
            .and_then(|avg| avg.split_whitespace().next().map(str::to_string))
            .unwrap_or_else(|| "unknown".to_string())
    };
    let before = load();
    let value = measure();
    (value, format!("{before}→{}", load()))
}

/// The medians of `said`'s runs without the hook and with it (`with`),
/// on the wall clock and in the process's CPU time, each with the hook's
/// share and the spread of that share over three groups of rounds (the
/// largest less the smallest): an effect below the spread is noise. Then
/// the median of each round's own share (its two runs side by side, so a
/// load that drifts from round to round cancels) and its spread; last,
/// the Python function calls of one run each way. `load`: the machine's
/// load while they ran.
fn print_cost(adapter: &str, said: &serde_json::Value, with: &str, load: &str) {
    print_share(adapter, "wall", said, ["without", with], load);
    print_share(
        adapter,
        "CPU",
        said,
        ["cpu_without", &format!("cpu_{with}")],
        load,
    );
    let calls = |way: &str| said[format!("calls_{way}")].as_f64().expect("the calls");
    let (without, hooked) = (calls("without"), calls(with));
    println!(
        "steer run of 1000 gates ({adapter}, stub model, nobody steering), Python function \
         calls of one run on its own thread (a count the load does not move): without the \
         hook {without}, with it {hooked}, added {:+.1}%",
        (hooked / without - 1.0) * 100.0
    );
}

/// One row of `print_cost`: `ways[0]` (without) against `ways[1]` (with),
/// measured as `clock`.
fn print_share(adapter: &str, clock: &str, said: &serde_json::Value, ways: [&str; 2], load: &str) {
    let times = |key: &str| -> Vec<f64> {
        said[key]
            .as_array()
            .expect("timings")
            .iter()
            .filter_map(serde_json::Value::as_f64)
            .collect()
    };
    let (without, hooked) = (times(ways[0]), times(ways[1]));
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let share = |a: &[f64], b: &[f64]| median(b.to_vec()) / median(a.to_vec()) - 1.0;
    let third = (without.len() / 3).max(1);
    let shares: Vec<f64> = (0..3)
        .map(|g| {
            let range = g * third..((g + 1) * third).min(without.len());
            share(&without[range.clone()], &hooked[range])
        })
        .collect();
    // Each round's two runs side by side: a load that drifts between
    // rounds moves both.
    let rounds: Vec<f64> = without
        .iter()
        .zip(&hooked)
        .map(|(a, b)| b / a - 1.0)
        .collect();
    let paired: Vec<f64> = (0..3)
        .map(|g| median(rounds[g * third..((g + 1) * third).min(rounds.len())].to_vec()))
        .collect();
    println!(
        "steer run of 1000 gates ({adapter}, stub model, nobody steering), {clock} time, \
         {} rounds, load {load}: medians without the hook {:.1} ms, with it {:.1} ms, \
         added {:+.1}% (spread of the medians over three groups {:.1} points); the rounds' \
         own shares: median {:+.1}% (spread {:.1} points)",
        without.len(),
        median(without.clone()) * 1e3,
        median(hooked.clone()) * 1e3,
        share(&without, &hooked) * 100.0,
        spread_of(&shares) * 100.0,
        median(rounds.clone()) * 100.0,
        spread_of(&paired) * 100.0
    );
}

/// The largest of `shares` less the smallest.
fn spread_of(shares: &[f64]) -> f64 {
    shares.iter().copied().fold(f64::MIN, f64::max)
        - shares.iter().copied().fold(f64::MAX, f64::min)
}

/// `script` of benches/ run by `framework`'s Python with `args`: the JSON
/// line it prints.
fn python_json(framework: python::Framework, script: &str, args: &[&str]) -> serde_json::Value {
    let script = python::root().join("benches").join(script);
    let output = std::process::Command::new(python::python(framework))
        .arg(&script)
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
    serde_json::from_slice(&output.stdout).expect("the run's JSON line")
}

criterion_group!(benches, gate_round_trip);
criterion_main!(benches);
