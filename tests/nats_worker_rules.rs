//! What a `conclave worker` will do for a job, whatever the job says: it
//! runs the scenario the job carries (not one it saw earlier under the
//! same sweep id), calls only the model endpoint its operator set up (its
//! key goes nowhere else), and starts no program without `--allow-exec`,
//! whatever allowance its machine remembers. A real worker process over a
//! real nats-server on loopback.

use crate::common;

use common::nats::NatsServer;
use common::nats::processes::{Sweep, Worker};
use common::real::{Sandbox, stderr, toolbox};
use futures_util::StreamExt;
use serde_json::{Value, json};
use std::ffi::OsStr;
use std::io::Read;
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Publish `jobs` (job id, scenario source, scenario text) under one
/// sweep id straight onto the work queue, as a sweep would, and return
/// each job's result as the worker published it, by job id.
async fn run_jobs(url: &str, sweep: &str, jobs: &[(&str, &str, String)]) -> Vec<(String, Value)> {
    let nats = conclave::nats::connect(url).await.unwrap();
    let results = nats.js.get_stream("CONCLAVE_RESULTS").await.unwrap();
    let mut messages = results
        .create_consumer(async_nats::jetstream::consumer::pull::OrderedConfig {
            filter_subject: format!("conclave.results.{sweep}"),
            ..Default::default()
        })
        .await
        .unwrap()
        .messages()
        .await
        .unwrap();
    for (seed, (id, source, text)) in (1u64..).zip(jobs) {
        let job = json!({
            "sweep": sweep,
            "job": {"id": id, "combination": 0, "seed": seed, "flags": []},
            "scenario": {"source": source, "text": text},
            "model": {"kind": null, "model": null, "base_url": null, "pricing": null, "no_stream": false},
        });
        nats.js
            .publish(format!("conclave.jobs.{sweep}"), job.to_string().into())
            .await
            .unwrap()
            .await
            .unwrap();
        // One at a time: the worker has seen the first job's scenario
        // before the second job arrives.
        let message = tokio::time::timeout(Duration::from_secs(60), messages.next())
            .await
            .expect("a result within 60 s");
        assert!(matches!(message, Some(Ok(_))), "a result");
    }
    let stream = nats.js.get_stream("CONCLAVE_RESULTS").await.unwrap();
    let mut out = Vec::new();
    for seq in 1.. {
        let Ok(message) = stream.get_raw_message(seq).await else {
            break;
        };
        let result: Value = serde_json::from_slice(&message.payload).unwrap();
        if result["sweep"] == sweep {
            out.push((result["job"].as_str().unwrap().to_string(), result));
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn jobs_of_one_sweep_id_run_the_scenarios_they_carry() {
    let server = NatsServer::start();
    let url = server.url();
    let _worker = Worker::start(&url, 1);
    let root = env!("CARGO_MANIFEST_DIR");
    let read = |name: &str| std::fs::read_to_string(format!("{root}/scenarios/{name}")).unwrap();
    let jobs = [
        (
            "c0-s1",
            "scenarios/checkout_v2_launch.json",
            read("checkout_v2_launch.json"),
        ),
        (
            "c0-s2",
            "scenarios/support_swarm.json",
            read("support_swarm.json"),
        ),
    ];
    let results = run_jobs(&url, "same-sweep", &jobs).await;
    assert_eq!(results.len(), 2, "{results:?}");
    // A swarm hands off between agents; an orchestrator does not.
    let used = |id: &str| {
        let (_, result) = results.iter().find(|(job, _)| job == id).unwrap();
        assert_eq!(result["outcome"]["kind"], "done", "{result}");
        result["outcome"]["result"]["used"].clone()
    };
    let orchestrated = used("c0-s1");
    let swarmed = used("c0-s2");
    assert!(orchestrated.get("rounds").is_some(), "{orchestrated}");
    assert!(
        swarmed.get("handoffs").is_some(),
        "the second job ran its own swarm: {swarmed}"
    );
}

/// A loopback listener that records every connection made to it and
/// whether a request carried an Authorization header.
struct Listener {
    url: String,
    seen: Arc<Mutex<Vec<String>>>,
}

impl Listener {
    fn start() -> Listener {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let record = Arc::clone(&seen);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { return };
                stream
                    .set_read_timeout(Some(Duration::from_secs(2)))
                    .unwrap();
                let mut request = vec![0; 16384];
                let read = stream.read(&mut request).unwrap_or(0);
                record
                    .lock()
                    .unwrap()
                    .push(String::from_utf8_lossy(&request[..read]).into_owned());
            }
        });
        Listener { url, seen }
    }

    fn requests(&self) -> Vec<String> {
        self.seen.lock().unwrap().clone()
    }
}

#[test]
fn a_job_naming_another_endpoint_is_refused_and_the_key_stays_home() {
    let server = NatsServer::start();
    let url = server.url();
    let endpoint = Listener::start();
    let key = "sk-worker-own-key-0123456789";
    let _worker = Worker::start_env(
        &url,
        1,
        &[],
        &[
            ("OPENAI_API_KEY", OsStr::new(key)),
            ("OPENAI_BASE_URL", OsStr::new("")),
        ],
    );
    let sandbox = Sandbox::new();
    let in_scenario = sandbox.write(
        "named.json",
        &json!({
            "name": "named", "pattern": "orchestrator", "goal": "Report.",
            "context": {"report_date": "2026-03-20", "region": "US"},
            "workers": {"w": {"data": {}}},
            "provider": {"kind": "openai", "base_url": endpoint.url}
        }),
    );
    let by_flag = [
        "scenarios/checkout_v2_launch.json",
        "--provider",
        "openai",
        "--base-url",
        &endpoint.url,
    ];
    let by_scenario = [in_scenario.to_str().unwrap()];
    for (named, by) in [
        (&by_flag[..], "--base-url"),
        (&by_scenario[..], "provider.base_url"),
    ] {
        let args: Vec<String> = ["sweep"]
            .iter()
            .chain(named)
            .chain(&[
                "--seeds",
                "1..2",
                "--headless",
                "--allow-real",
                "--nats",
                &url,
            ])
            .map(|a| a.to_string())
            .collect();
        let output = Sweep::start_env(args, &[("OPENAI_API_KEY", OsStr::new("sk-sweep"))]).finish();
        let said = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{said}");
        assert!(
            said.contains("refused job") && said.contains(by) && said.contains("OPENAI_BASE_URL"),
            "{said}"
        );
        assert!(!said.contains(key), "{said}");
    }
    // Give a request that was sent time to arrive before looking.
    std::thread::sleep(Duration::from_millis(500));
    let requests = endpoint.requests();
    assert!(
        requests.is_empty(),
        "the worker called the job's endpoint: {requests:?}"
    );
}

#[test]
fn a_worker_without_allow_exec_runs_no_program_though_its_machine_allowed_the_file() {
    let server = NatsServer::start();
    let url = server.url();
    let sandbox = Sandbox::new();
    let marker = sandbox.path("ran");
    let scenario = json!({
        "name": "marks", "pattern": "orchestrator", "goal": "Run the marker.",
        "context": {"report_date": "2026-03-20", "region": "US"},
        "workers": {"marker_worker": {"command": {"argv": toolbox(&[
            "echo", "--touch", marker.to_str().unwrap()])}}},
        "provider": {"kind": "sim", "final_answer": "Done."}
    });
    let file = sandbox.write("marks.json", &scenario);
    // The worker's machine allowed this very file, as it is, where it is
    // (the marker, named by the program's arguments, absent as it was).
    let allowed = sandbox.run(&["run", file.to_str().unwrap(), "--headless", "--allow-exec"]);
    assert_eq!(allowed.status.code(), Some(0), "{}", stderr(&allowed));
    std::fs::remove_file(&marker).unwrap();
    let remembered = sandbox.run(&["run", file.to_str().unwrap(), "--headless"]);
    assert_eq!(
        remembered.status.code(),
        Some(0),
        "the allowance holds: {}",
        stderr(&remembered)
    );
    std::fs::remove_file(&marker).unwrap();

    let state = sandbox.state();
    let worker = Worker::start_env(&url, 1, &[], &[("XDG_STATE_HOME", state.as_os_str())]);
    let args: Vec<String> = [
        "sweep",
        file.to_str().unwrap(),
        "--seeds",
        "1..2",
        "--headless",
    ]
    .into_iter()
    .chain(["--allow-exec", "--nats", &url])
    .map(String::from)
    .collect();
    let output = Sweep::start_with(args, Some(&state)).finish();
    let said = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{said}\n{}", worker.stderr());
    assert!(
        said.contains("refused job") && said.contains("--allow-exec"),
        "{said}"
    );
    assert!(!marker.exists(), "the program ran on the worker");
}

#[test]
fn a_worker_whose_openai_base_url_is_no_url_exits_2_naming_it() {
    let output = common::nats::processes::conclave()
        .args(["worker", "--nats", "nats://127.0.0.1:1"])
        .env("OPENAI_BASE_URL", "ftp://models.internal")
        .output()
        .unwrap();
    let said = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{said}");
    assert!(
        said.contains("OPENAI_BASE_URL") && said.contains("ftp://models.internal"),
        "{said}"
    );
}
