//! `conclave sweep --from REC --at GATE --nats URL`: the jobs carry the
//! recording, so a worker forks it without the file; the document equals
//! the local sweep's. A recording too big for one message is refused
//! before any job is sent, naming its size and the server's limit.

use crate::common;
use crate::sweep_from::{assert_forks_by_hand, recorded, sweep_args};

use common::nats::NatsServer;
use common::nats::processes::{Sweep, Worker, conclave};
use serde_json::Value;

#[test]
fn a_worker_forks_the_recording_the_job_carries_as_this_machine_would() {
    let dir = tempfile::tempdir().unwrap();
    let recording = recorded(dir.path());
    let local = conclave().args(sweep_args(&recording)).output().unwrap();
    assert_eq!(local.status.code(), Some(0));
    let local: Value = serde_json::from_slice(&local.stdout).unwrap();
    let server = NatsServer::start();
    let url = server.url();
    let worker = Worker::start(&url, 2);
    let mut args = sweep_args(&recording);
    args.extend(["--nats".to_string(), url.clone()]);
    let output = Sweep::start_with(args, None).finish();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{stderr}\n{}",
        worker.stderr()
    );
    let document: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(document, local, "{stderr}");
    assert!(stderr.contains("6 runs by 1 worker"), "{stderr}");
    assert_forks_by_hand(&document, &recording);
}

#[test]
fn a_recording_too_big_for_a_job_is_refused_naming_its_size_and_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let recording = recorded(dir.path());
    // The same run with lines after its end that no reader keeps: over
    // the server's 1 MB a message once it travels.
    let mut text = std::fs::read_to_string(&recording).unwrap();
    let filler = "x".repeat(50_000);
    for seq in 0..25 {
        text.push_str(&format!(
            "{{\"run\":1,\"seq\":{},\"t_ms\":0,\"type\":\"padding\",\"words\":\"{filler}\"}}\n",
            100_000 + seq
        ));
    }
    let big = dir.path().join("big.jsonl");
    std::fs::write(&big, &text).unwrap();
    let server = NatsServer::start();
    let mut args = sweep_args(&big);
    args.extend(["--nats".to_string(), server.url()]);
    let output = Sweep::start_with(args, None).finish();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    let file = big.to_str().unwrap();
    for words in [
        file,
        &format!("the recording is {} bytes", text.len()),
        "limit of 1048576 bytes",
        "without --nats",
    ] {
        assert!(stderr.contains(words), "{words:?} in {stderr}");
    }
    assert!(output.stdout.is_empty());
}
