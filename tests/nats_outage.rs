//! A sweep on NATS whose server goes away: a restart on the same port and
//! store (killed, down half a second, started again) is ridden out and the
//! document equals the local sweep's; a server that never comes back stops
//! the sweep within its bound (`CONCLAVE_NATS_OUTAGE_SECONDS`) with exit 1,
//! the document of the runs gathered, and the missing runs named. Real
//! worker processes over a real nats-server, of the oldest supported
//! release and of the newest.

use crate::common;

use common::nats::processes::{BOUND, Sweep, Worker, conclave, poll};
use common::nats::{NatsServer, Release};
use serde_json::Value;
use std::ffi::OsStr;
use std::time::{Duration, Instant};

const SCENARIO: &str = "scenarios/checkout_v2_launch.json";
const SEEDS: &str = "1..150";

fn sweep_args(url: Option<&str>) -> Vec<String> {
    let mut args: Vec<String> = ["sweep", SCENARIO, "--seeds", SEEDS, "--headless"]
        .map(String::from)
        .to_vec();
    if let Some(url) = url {
        args.extend(["--nats".to_string(), url.to_string()]);
    }
    args
}

/// Results the server holds, of every sweep; 0 while it is away.
fn results(url: &str) -> u64 {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let Ok(nats) = conclave::nats::connect(url).await else {
            return 0;
        };
        match nats.js.get_stream("CONCLAVE_RESULTS").await {
            Ok(mut stream) => stream.info().await.map_or(0, |info| info.state.messages),
            Err(_) => 0,
        }
    })
}

fn rides_out_a_restart(release: Release) {
    let local = conclave().args(sweep_args(None)).output().unwrap();
    assert!(
        local.status.success(),
        "{}",
        String::from_utf8_lossy(&local.stderr)
    );
    let local: Value = serde_json::from_slice(&local.stdout).unwrap();

    let mut server = NatsServer::start_release(release);
    let url = server.url();
    let worker = Worker::start(&url, 1);
    let sweep = Sweep::start_with(sweep_args(Some(&url)), None);
    poll("the worker to finish some jobs", || results(&url) >= 10);
    server.restart(Duration::from_millis(500));
    let output = sweep.finish();
    let said = String::from_utf8_lossy(&output.stderr).into_owned();
    let context = format!(
        "{said}\nworker:\n{}\nserver:\n{}",
        worker.stderr(),
        server.log()
    );
    assert_eq!(output.status.code(), Some(0), "{context}");
    let document: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("stdout is one document ({e}):\n{context}"));
    assert_eq!(document, local, "{context}");
    assert!(said.contains("lost the NATS server"), "{context}");
}

#[test]
fn a_sweep_rides_out_a_restart_of_the_newest_server() {
    rides_out_a_restart(Release::Newest);
}

#[test]
fn a_sweep_rides_out_a_restart_of_the_oldest_server() {
    rides_out_a_restart(Release::Oldest);
}

#[test]
fn a_sweep_whose_server_dies_stops_within_its_bound_with_what_it_gathered() {
    let mut server = NatsServer::start();
    let url = server.url();
    let _worker = Worker::start(&url, 1);
    let sweep = Sweep::start_env(
        sweep_args(Some(&url)),
        &[("CONCLAVE_NATS_OUTAGE_SECONDS", OsStr::new("2"))],
    );
    poll("the worker to finish some jobs", || results(&url) >= 10);
    server.kill();
    let killed = Instant::now();
    let output = sweep.finish_within(BOUND);
    let took = killed.elapsed();
    let said = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(1), "{said}");
    // Two seconds of bound, the rest slack for a loaded machine.
    assert!(
        took < Duration::from_secs(30),
        "stopped {took:?} after the server died"
    );
    assert!(
        said.contains("lost the NATS server") && said.contains("CONCLAVE_NATS_OUTAGE_SECONDS"),
        "{said}"
    );
    let document: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("stdout is one document ({e}):\n{said}"));
    let gathered = document["runs"].as_u64().unwrap();
    assert!(
        (10..150).contains(&gathered),
        "{gathered} runs gathered:\n{said}"
    );
    assert_eq!(document["combinations"][0]["runs"], gathered);
    let missing = 150 - gathered;
    assert!(
        said.contains(&format!(
            "holds the {gathered} runs gathered; {missing} missing: c0-s"
        )),
        "{said}"
    );
}

#[test]
fn a_bound_that_is_no_number_of_seconds_exits_2_naming_the_variable() {
    for bad in ["0", "soon", "1e9"] {
        let output = conclave()
            .args(sweep_args(Some("nats://127.0.0.1:1")))
            .env("CONCLAVE_NATS_OUTAGE_SECONDS", bad)
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{bad}: {said}");
        assert!(
            said.contains("CONCLAVE_NATS_OUTAGE_SECONDS") && said.contains("from 1 to 604800"),
            "{bad}: {said}"
        );
        assert!(output.stdout.is_empty(), "{bad}");
    }
}
