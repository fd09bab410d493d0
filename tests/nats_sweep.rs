//! Sweeps on NATS, end to end: the real binary as the sweep and as
//! `conclave worker` processes, over a real nats-server on loopback. The
//! document must equal the local sweep's, also when a worker is killed
//! while it holds jobs.

use crate::common;
use crate::receiver;

use common::nats::NatsServer;
use common::nats::processes::{BOUND, Sweep, Worker, conclave, poll};
use serde_json::Value;
use std::process::Output;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

const SCENARIO: &str = "scenarios/checkout_v2_launch.json";

fn sweep_args(nats: Option<&str>) -> Vec<String> {
    let mut args: Vec<String> = [
        "sweep",
        SCENARIO,
        "--seeds",
        "1..200",
        "--flag",
        "legal_analyst=on,off",
        "--headless",
    ]
    .map(String::from)
    .to_vec();
    if let Some(url) = nats {
        args.extend(["--nats".to_string(), url.to_string()]);
    }
    args
}

/// The local sweep's document, computed once for the tests of this file.
fn local_document() -> &'static Value {
    static LOCAL: OnceLock<Value> = OnceLock::new();
    LOCAL.get_or_init(|| {
        let output = conclave().args(sweep_args(None)).output().unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        serde_json::from_slice(&output.stdout).unwrap()
    })
}

/// The sweep printed the local sweep's document, and exited 0.
fn assert_same_as_local(output: &Output) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let document: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("stdout is one document ({e}):\n{stderr}"));
    assert_eq!(&document, local_document(), "{stderr}");
    assert_eq!(document["runs"], 400);
    stderr
}

/// Reads of the server's state, as an operator's `nats` tool would.
struct Server {
    runtime: tokio::runtime::Runtime,
    nats: conclave::nats::Nats,
}

impl Server {
    fn at(url: &str) -> Server {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let nats = runtime.block_on(conclave::nats::connect(url)).unwrap();
        Server { runtime, nats }
    }

    /// Results stored so far, of every sweep.
    fn results(&self) -> u64 {
        self.runtime.block_on(async {
            match self.nats.js.get_stream("CONCLAVE_RESULTS").await {
                Ok(mut stream) => stream.info().await.map_or(0, |info| info.state.messages),
                Err(_) => 0,
            }
        })
    }

    /// Jobs delivered to a worker and not yet acknowledged.
    fn jobs_in_hand(&self) -> usize {
        self.runtime.block_on(async {
            let mut consumer: async_nats::jetstream::consumer::PullConsumer = self
                .nats
                .js
                .get_consumer_from_stream("conclave-workers", "CONCLAVE_JOBS")
                .await
                .unwrap();
            consumer.info().await.unwrap().num_ack_pending
        })
    }

    /// Each subject of the events stream and how many events it holds.
    fn event_subjects(&self) -> Vec<(String, usize)> {
        use futures_util::TryStreamExt;
        self.runtime.block_on(async {
            let Ok(stream) = self.nats.js.get_stream("CONCLAVE_EVENTS").await else {
                return Vec::new();
            };
            let mut subjects: Vec<(String, usize)> = stream
                .info_with_subjects("conclave.events.>")
                .await
                .unwrap()
                .try_collect()
                .await
                .unwrap();
            subjects.sort();
            subjects
        })
    }

    /// The last event published on `subject`.
    fn last_event(&self, subject: &str) -> conclave::bus::Event {
        self.runtime.block_on(async {
            let stream = self.nats.js.get_stream("CONCLAVE_EVENTS").await.unwrap();
            let message = stream
                .get_last_raw_message_by_subject(subject)
                .await
                .unwrap();
            serde_json::from_slice(&message.payload).unwrap()
        })
    }

    /// [`Self::jobs_in_hand`] once two reads agree: acknowledgements a
    /// stopped worker sent before it stopped have reached the server.
    fn settled_jobs_in_hand(&self) -> usize {
        let deadline = Instant::now() + BOUND;
        let mut last = self.jobs_in_hand();
        loop {
            std::thread::sleep(Duration::from_millis(200));
            let now = self.jobs_in_hand();
            if now == last {
                return now;
            }
            assert!(Instant::now() < deadline, "the jobs in hand never settled");
            last = now;
        }
    }
}

#[test]
fn two_workers_give_the_counts_of_the_local_sweep() {
    let server = NatsServer::start();
    let url = server.url();
    let first = Worker::start(&url, 1);
    let second = Worker::start(&url, 1);
    let output = Sweep::start_with(sweep_args(Some(&url)), None).finish();
    let stderr = assert_same_as_local(&output);
    assert!(
        stderr.contains("400 runs by 2 workers; 0 ran again"),
        "{stderr}\n{}\n{}",
        first.stderr(),
        second.stderr()
    );
}

#[test]
fn a_workers_jobs_are_runs_of_its_own_published_for_attach_and_traced() {
    let server = NatsServer::start();
    let url = server.url();
    let collector = receiver::Collector::start();
    let worker = Worker::start_with(&url, 2, &["--otlp", &collector.url()]);
    let said = worker.stderr();
    let engine = said
        .split("conclave worker ")
        .nth(1)
        .and_then(|rest| rest.split(':').next())
        .unwrap_or_else(|| panic!("the worker names its engine: {said}"))
        .to_string();
    let args = [
        "sweep",
        SCENARIO,
        "--seeds",
        "1..3",
        "--flag",
        "legal_analyst=on,off",
        "--headless",
        "--nats",
        &url,
    ];
    let output = Sweep::start_with(args.map(String::from).to_vec(), None).finish();
    assert_eq!(output.status.code(), Some(0), "{output:?}");

    // Six jobs, six runs of the worker's engine, numbered 1 to 6, each
    // published to its last event.
    let reader = Server::at(&url);
    let want: Vec<String> = (1..=6)
        .map(|run| format!("conclave.events.{engine}.{run}"))
        .collect();
    poll("every job's events on the stream", || {
        let subjects = reader.event_subjects();
        let mut names: Vec<String> = subjects.iter().map(|(s, _)| s.clone()).collect();
        names.sort();
        let mut sorted_want = want.clone();
        sorted_want.sort();
        names == sorted_want
            && subjects.iter().all(|(subject, _)| {
                matches!(
                    reader.last_event(subject).kind,
                    conclave::bus::EventKind::RunFinished { .. }
                )
            })
    });
    for (subject, events) in reader.event_subjects() {
        assert!(events > 10, "{subject} holds a whole run: {events} events");
    }

    // And six traces, one per job, with the job's seed.
    poll("a trace per job at the collector", || {
        collector
            .spans()
            .iter()
            .filter(|s| s.parent.is_empty())
            .count()
            == 6
    });
    let mut seeds: Vec<String> = collector
        .spans()
        .iter()
        .filter(|s| s.parent.is_empty())
        .map(|s| s.attr("conclave.seed").unwrap().to_string())
        .collect();
    seeds.sort();
    assert_eq!(seeds, ["1", "1", "2", "2", "3", "3"]);
}

#[test]
fn a_worker_killed_holding_jobs_loses_none_and_no_run_is_counted_twice() {
    let server = NatsServer::start();
    let url = server.url();
    let state = Server::at(&url);
    let sweep = Sweep::start_with(sweep_args(Some(&url)), None);
    let doomed = Worker::start(&url, 2);
    poll("the first worker to finish some jobs", || {
        state.results() >= 20
    });
    // Freeze the worker and look at what it holds; a worker between two
    // jobs holds none, so let it go on a little and look again.
    let mut held = 0;
    for _ in 0..50 {
        doomed.signal(libc::SIGSTOP);
        held = state.settled_jobs_in_hand();
        if held > 0 {
            break;
        }
        doomed.signal(libc::SIGCONT);
        let before = state.results();
        poll("the first worker to finish another job", || {
            state.results() > before
        });
    }
    assert!(held > 0, "the worker never held a job when stopped");
    let done_before_kill = state.results();
    assert!(
        done_before_kill < 400,
        "the first worker ran the whole sweep"
    );
    doomed.signal(libc::SIGKILL);
    let others = [Worker::start(&url, 1), Worker::start(&url, 1)];
    let output = sweep.finish();
    let stderr = assert_same_as_local(&output);
    // A job whose result the killed worker sent just before it was
    // stopped, unacknowledged, comes back after the ack wait, which may be
    // after the sweep has every result (the repeat is then dropped).
    let came_back = || others.iter().map(Worker::redeliveries).sum::<usize>() >= 1;
    if !came_back() {
        poll("a job the killed worker held to come back", came_back);
    }
    let back: usize = others.iter().map(Worker::redeliveries).sum();
    assert!(
        back >= 1,
        "{held} jobs held by the killed worker, none came back:\n{stderr}"
    );
    // The killed worker and at least one of the others sent results.
    assert!(
        stderr.contains("400 runs by 3 workers") || stderr.contains("400 runs by 2 workers"),
        "{stderr}"
    );
    assert!(
        stderr.contains("ran again after their worker stopped"),
        "{stderr}"
    );
}

#[test]
fn a_signalled_worker_stops_taking_jobs_and_exits_as_signalled() {
    let server = NatsServer::start();
    let mut worker = Worker::start(&server.url(), 1);
    worker.signal(libc::SIGTERM);
    let deadline = Instant::now() + BOUND;
    let status = loop {
        if let Some(status) = worker.child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "the worker did not stop");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(143), "{}", worker.stderr());
    assert!(worker.stderr().contains("stopping: taking no more jobs"));
}

#[test]
fn a_worker_runs_a_scenarios_programs_only_with_allow_exec() {
    let server = NatsServer::start();
    let url = server.url();
    let sandbox = tempfile::tempdir().unwrap();
    let marker = sandbox.path().join("ran");
    let scenario = serde_json::json!({
        "name": "marks", "pattern": "orchestrator", "goal": "Run the marker.",
        "context": {"report_date": "2026-03-20", "region": "US"},
        "workers": {"marker_worker": {"command": {"argv": [
            env!("CARGO_BIN_EXE_conclave"), "toolbox", "echo", "--touch", marker.to_str().unwrap()]}}},
        "provider": {"kind": "sim", "final_answer": "Done."}
    });
    let path = sandbox.path().join("marks.json");
    std::fs::write(&path, scenario.to_string()).unwrap();
    let args: Vec<String> = [
        "sweep",
        path.to_str().unwrap(),
        "--seeds",
        "1..3",
        "--headless",
    ]
    .into_iter()
    .chain(["--allow-exec", "--nats", &url])
    .map(String::from)
    .collect();
    // The sweep's user allowed the programs; the worker's did not.
    let sweep_state = sandbox.path().join("sweep-state");
    {
        let _wary = Worker::start(&url, 1);
        let output = Sweep::start_with(args.clone(), Some(&sweep_state)).finish();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains("refused job") && stderr.contains("--allow-exec"),
            "{stderr}"
        );
        assert!(output.stdout.is_empty());
        assert!(!marker.exists(), "the program never started");
    }
    let _trusting = Worker::start_with(&url, 1, &["--allow-exec"]);
    let output = Sweep::start_with(args, Some(&sweep_state)).finish();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let document: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(document["combinations"][0]["runs"], 3, "{stderr}");
    assert!(marker.exists(), "the program ran on the worker");
}

/// A one-run sweep of a scenario whose program answers after 5 s, so the
/// run takes that long on the real clock: longer than the ack wait.
struct SlowSweep {
    sandbox: tempfile::TempDir,
    args: Vec<String>,
}

impl SlowSweep {
    fn new(url: &str) -> SlowSweep {
        let sandbox = tempfile::tempdir().unwrap();
        let scenario = serde_json::json!({
            "name": "slow", "pattern": "orchestrator", "goal": "Report.",
            "context": {"report_date": "2026-03-20", "region": "US"},
            "workers": {"inventory_worker": {"command": {"argv": [
                env!("CARGO_BIN_EXE_conclave"), "toolbox", "inventory", "--latency-ms", "5000"]}}},
            "provider": {"kind": "sim", "final_answer": "Done."}
        });
        let path = sandbox.path().join("slow.json");
        std::fs::write(&path, scenario.to_string()).unwrap();
        let args = [
            "sweep",
            path.to_str().unwrap(),
            "--seeds",
            "1..1",
            "--headless",
        ]
        .into_iter()
        .chain(["--allow-exec", "--nats", url])
        .map(String::from)
        .collect();
        SlowSweep { sandbox, args }
    }

    fn start(&self) -> Sweep {
        Sweep::start_with(self.args.clone(), Some(&self.sandbox.path().join("state")))
    }
}

#[test]
fn a_worker_signalled_once_finishes_the_job_in_hand() {
    let server = NatsServer::start();
    let url = server.url();
    let state = Server::at(&url);
    let mut worker = Worker::start_with(&url, 1, &["--allow-exec"]);
    let slow = SlowSweep::new(&url);
    let sweep = slow.start();
    poll("the worker to take the job", || state.jobs_in_hand() == 1);
    assert_eq!(state.results(), 0, "the 5 s job is still running");
    worker.signal(libc::SIGTERM);
    let output = sweep.finish();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("1 run by 1 worker; 0 ran again"),
        "{stderr}"
    );
    poll("the worker to exit", || {
        worker.child.try_wait().unwrap().is_some()
    });
    assert_eq!(worker.child.wait().unwrap().code(), Some(143));
}

#[test]
fn a_worker_signalled_twice_hands_its_job_back_to_another() {
    let server = NatsServer::start();
    let url = server.url();
    let state = Server::at(&url);
    let mut first = Worker::start_with(&url, 1, &["--allow-exec"]);
    let slow = SlowSweep::new(&url);
    let sweep = slow.start();
    poll("the worker to take the job", || state.jobs_in_hand() == 1);
    first.signal(libc::SIGTERM);
    first.wait_for("stopping: taking no more jobs");
    first.signal(libc::SIGINT);
    poll("the worker to exit", || {
        first.child.try_wait().unwrap().is_some()
    });
    assert_eq!(state.results(), 0, "it left without a result");
    let second = Worker::start_with(&url, 1, &["--allow-exec"]);
    let output = sweep.finish();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("1 run by 1 worker; 1 ran again"),
        "{stderr}"
    );
    assert_eq!(second.redeliveries(), 1, "{}", second.stderr());
}

#[test]
fn a_job_longer_than_the_ack_wait_stays_with_its_worker() {
    // Only the worker's in-progress acknowledgements keep the job from
    // going to its second slot.
    let server = NatsServer::start();
    let url = server.url();
    let worker = Worker::start_with(&url, 2, &["--allow-exec"]);
    let output = SlowSweep::new(&url).start().finish();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("1 run by 1 worker; 0 ran again"),
        "{stderr}"
    );
    assert_eq!(worker.redeliveries(), 0, "{}", worker.stderr());
}

#[test]
fn mistakes_a_user_can_make_exit_2_with_what_was_expected() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let closed = format!("nats://127.0.0.1:{closed}");
    let sweep_on = |url: &str| {
        let mut args = sweep_args(Some(url));
        args[3] = "1..2".into();
        args
    };
    let cases: Vec<(Vec<String>, &str)> = vec![
        (vec!["worker".into()], "worker needs --nats URL"),
        (
            vec![
                "worker".into(),
                "--nats".into(),
                "http://127.0.0.1:4222".into(),
            ],
            "expected nats://HOST:PORT",
        ),
        (
            vec!["worker".into(), "--nats".into(), closed.clone()],
            "cannot reach the NATS server",
        ),
        (
            vec![
                "worker".into(),
                "--nats".into(),
                closed.clone(),
                "--ack-wait".into(),
                "0".into(),
            ],
            "a number of seconds from 1",
        ),
        (sweep_on(&closed), "cannot reach the NATS server"),
        (
            sweep_on(&closed)
                .into_iter()
                .filter(|a| a != "--headless")
                .collect(),
            "add --headless",
        ),
    ];
    for (args, expected) in cases {
        let output = conclave().args(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        assert!(output.stdout.is_empty(), "{args:?}");
    }
}
