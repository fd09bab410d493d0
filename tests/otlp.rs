//! OTLP export end to end: the built binary sends its runs to a real
//! OTLP/HTTP collector on 127.0.0.1 started by the test, in protobuf and
//! in JSON; the spans that arrive are decoded with the protocol's own
//! types and checked against the run's recording.

use crate::common;
use crate::receiver;
use conclave::patterns::events::PatternEvent;

use conclave::bus::{Event, EventKind, EventSink, Hub};
use conclave::engine::{self, LaunchOptions};
use conclave::patterns::events::{RoundEvent, TeamEvent};
use conclave::telemetry::{Exporter, OtlpConfig};
use receiver::{Collector, Got, shape};
use std::path::Path;
use std::process::{Command, Output};
use std::sync::Arc;

/// Every variable that would point a child's export elsewhere.
const OTEL_VARIABLES: [&str; 9] = [
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "OTEL_EXPORTER_OTLP_PROTOCOL",
    "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
    "OTEL_EXPORTER_OTLP_HEADERS",
    "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
    "OTEL_SERVICE_NAME",
    "OTEL_BSP_SCHEDULE_DELAY",
    "OTEL_EXPORTER_OTLP_TIMEOUT",
];

fn conclave(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_conclave"));
    command.args(args).current_dir(env!("CARGO_MANIFEST_DIR"));
    for name in OTEL_VARIABLES {
        command.env_remove(name);
    }
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().expect("the binary runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn recorded(path: &Path) -> Vec<Arc<Event>> {
    conclave::record::read_recording(path).unwrap().events
}

/// `run --headless` of `scenario` exporting to `url` and recording; the
/// output and the recording's events.
fn run_exported(
    scenario: &str,
    url: &str,
    env: &[(&str, &str)],
    dir: &Path,
) -> (Output, Vec<Arc<Event>>) {
    let record = dir.join("run.jsonl");
    let path = format!("scenarios/{scenario}");
    let output = conclave(
        &[
            "run",
            &path,
            "--headless",
            "--record",
            record.to_str().unwrap(),
            "--otlp",
            url,
        ],
        env,
    );
    assert!(
        output.status.code() == Some(0) || output.status.code() == Some(3),
        "{}",
        stderr(&output)
    );
    (output, recorded(&record))
}

fn root(spans: &[Got]) -> &Got {
    let roots: Vec<&Got> = spans.iter().filter(|s| s.parent.is_empty()).collect();
    assert_eq!(roots.len(), 1, "one root span");
    roots[0]
}

fn parent<'a>(spans: &'a [Got], span: &Got) -> &'a Got {
    spans
        .iter()
        .find(|s| s.span_id == span.parent)
        .unwrap_or_else(|| panic!("the parent of {} arrived", span.name))
}

fn named<'a>(spans: &'a [Got], prefix: &str) -> Vec<&'a Got> {
    spans
        .iter()
        .filter(|s| s.name.starts_with(prefix))
        .collect()
}

#[test]
fn a_round_table_arrives_as_one_trace_of_rounds_agents_and_chats() {
    let collector = Collector::start();
    let dir = tempfile::tempdir().unwrap();
    let token = "otlp-secret-7c1f4b9e2d8a";
    let headers = format!("authorization=Bearer%20{token}");
    let (output, events) = run_exported(
        "checkout_v2_launch.json",
        &collector.url(),
        &[
            ("OTEL_EXPORTER_OTLP_HEADERS", headers.as_str()),
            ("OTEL_SERVICE_NAME", "conclave-tests"),
        ],
        dir.path(),
    );
    let requests = collector.requests();
    assert!(!requests.is_empty());
    for request in &requests {
        assert_eq!(
            request.header("authorization").as_deref(),
            Some(format!("Bearer {token}").as_str())
        );
        assert_eq!(
            request.header("content-type").as_deref(),
            Some("application/x-protobuf")
        );
    }
    let recording = std::fs::read_to_string(dir.path().join("run.jsonl")).unwrap();
    assert!(!recording.contains(token));
    assert!(!stderr(&output).contains(token));
    assert!(!String::from_utf8_lossy(&output.stdout).contains(token));

    let spans = collector.spans();
    let trace = &root(&spans).trace_id;
    assert!(spans.iter().all(|s| &s.trace_id == trace), "one trace");
    assert!(spans.iter().all(|s| s.service == "conclave-tests"));
    let root = root(&spans);
    assert_eq!(root.name, "invoke_workflow checkout_v2_launch");
    assert_eq!(root.attr("gen_ai.operation.name"), Some("invoke_workflow"));
    let result = common::cli::result(&output);
    assert_eq!(root.attr("conclave.status"), result["status"].as_str());
    assert_eq!(
        root.attr("conclave.stop_reason"),
        result["stop_reason"].as_str()
    );
    assert!(root.attr("conclave.decision").is_some());
    assert!(root.attr("conclave.seed").is_some());
    let EventKind::RunStarted(started) = &events[0].kind else {
        panic!("a recording starts with run_started")
    };
    assert_eq!(root.start_ns, started.started_at_ms * 1_000_000);
    // Its end is in the millisecond of the run's last event (placed past
    // it by that event's rank within the millisecond).
    assert_eq!(
        root.end_ns / 1_000_000,
        started.started_at_ms + events.last().unwrap().t_ms
    );

    let contributions: Vec<(u32, String)> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Pattern(PatternEvent::Round(RoundEvent::ContributionRequested {
                round,
                agent,
            })) => Some((*round, agent.clone())),
            _ => None,
        })
        .collect();
    let agents = named(&spans, "invoke_agent ");
    assert_eq!(agents.len(), contributions.len());
    for (round, agent) in &contributions {
        let span = agents
            .iter()
            .find(|s| {
                s.name == format!("invoke_agent {agent}")
                    && s.attr("conclave.round") == Some(round.to_string().as_str())
            })
            .unwrap_or_else(|| panic!("{agent} in round {round}"));
        assert_eq!(span.attr("gen_ai.agent.name"), Some(agent.as_str()));
        let round_span = parent(&spans, span);
        assert_eq!(round_span.name, format!("round {round}"));
        assert_eq!(round_span.parent, root.span_id);
    }

    let model_calls: Vec<(String, Option<String>)> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::CallStarted {
                tool, label, agent, ..
            } if tool == "model" => Some((label.clone(), agent.clone())),
            _ => None,
        })
        .collect();
    let chats = named(&spans, "chat ");
    assert_eq!(
        chats.len(),
        model_calls.len(),
        "one chat span per model call"
    );
    for (label, agent) in &model_calls {
        let chat = chats
            .iter()
            .find(|s| s.attr("conclave.call.label") == Some(label.as_str()))
            .unwrap();
        assert_eq!(chat.attr("gen_ai.operation.name"), Some("chat"));
        assert_eq!(chat.attr("gen_ai.provider.name"), Some("conclave.sim"));
        assert_eq!(chat.attr("gen_ai.request.model"), Some("sim"));
        assert_eq!(chat.attr("gen_ai.response.model"), Some("sim"));
        assert!(
            chat.attr("gen_ai.usage.input_tokens")
                .is_some_and(|n| n != "0")
        );
        assert!(
            chat.attr("gen_ai.usage.output_tokens")
                .is_some_and(|n| n != "0")
        );
        let above = parent(&spans, chat);
        match agent {
            Some(agent) => assert_eq!(above.name, format!("invoke_agent {agent}")),
            None => assert_eq!(above.span_id, root.span_id),
        }
    }
    // Content only when asked for.
    assert!(spans.iter().all(|s| {
        s.events
            .iter()
            .all(|(name, ..)| !name.starts_with("gen_ai."))
    }));
}

#[test]
fn an_outage_sends_refused_calls_as_circuit_open_over_json() {
    let collector = Collector::start();
    let dir = tempfile::tempdir().unwrap();
    let (_, events) = run_exported(
        "vendor_outage.json",
        &collector.url(),
        &[("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json")],
        dir.path(),
    );
    assert!(
        collector
            .requests()
            .iter()
            .all(|r| r.header("content-type").as_deref() == Some("application/json"))
    );
    let spans = collector.spans();
    let root = root(&spans);
    let tools = named(&spans, "execute_tool ");
    let first_attempts = events
        .iter()
        .filter(|e| matches!(e.kind, EventKind::AttemptStarted { attempt: 1, .. }))
        .count();
    assert_eq!(tools.len(), first_attempts);
    let refused: Vec<&&Got> = tools
        .iter()
        .filter(|s| s.attr("error.type") == Some("circuit_open"))
        .collect();
    assert!(!refused.is_empty(), "calls during the outage fail fast");
    // The breaker opened before each call was refused (a call whose first
    // attempt failed and opened it began before it, in the same millisecond).
    let opened_ns = root
        .events
        .iter()
        .filter(|(name, _, attrs)| {
            name == "conclave.breaker_transition"
                && attrs.get("conclave.to").map(String::as_str) == Some("open")
        })
        .map(|(_, at, _)| *at)
        .min()
        .expect("the breaker opens");
    for span in refused {
        assert_eq!(span.status, 2, "an error");
        assert!(span.end_ns >= opened_ns);
        assert!(span.attr("gen_ai.tool.name").is_some());
        assert!(parent(&spans, span).name.starts_with("wave "));
    }
}

#[test]
fn a_swarms_handoffs_arrive_as_span_events() {
    let collector = Collector::start();
    let dir = tempfile::tempdir().unwrap();
    let (_, events) = run_exported("support_swarm.json", &collector.url(), &[], dir.path());
    let spans = collector.spans();
    let root = root(&spans);
    let handoffs: Vec<(String, String)> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Pattern(PatternEvent::Team(TeamEvent::HandoffAccepted {
                from, to, ..
            })) => Some((from.clone(), to.clone())),
            _ => None,
        })
        .collect();
    assert!(!handoffs.is_empty());
    let got: Vec<(String, String)> = root
        .events
        .iter()
        .filter(|(name, ..)| name == "conclave.handoff")
        .map(|(_, _, attrs)| (attrs["conclave.from"].clone(), attrs["conclave.to"].clone()))
        .collect();
    assert_eq!(got, handoffs);
    let turns = events
        .iter()
        .filter(|e| {
            matches!(
                e.kind,
                EventKind::Pattern(PatternEvent::Team(TeamEvent::TurnStarted { .. }))
            )
        })
        .count();
    assert_eq!(named(&spans, "invoke_agent ").len(), turns);
}

#[test]
fn an_unreachable_collector_costs_the_run_nothing_but_one_warning() {
    // A loopback port nobody listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}");
    let plain = conclave(
        &["run", "scenarios/checkout_v2_launch.json", "--headless"],
        &[],
    );
    let exported = conclave(
        &[
            "run",
            "scenarios/checkout_v2_launch.json",
            "--headless",
            "--otlp",
            &url,
        ],
        &[],
    );
    assert_eq!(exported.status.code(), plain.status.code());
    assert_eq!(
        common::cli::result(&exported),
        common::cli::result(&plain),
        "the same result, timings included"
    );
    let warnings: Vec<String> = stderr(&exported)
        .lines()
        .filter(|l| l.contains("could not send the trace"))
        .map(str::to_string)
        .collect();
    assert_eq!(warnings.len(), 1, "{}", stderr(&exported));
    assert!(warnings[0].contains(&url), "{}", warnings[0]);
    assert_eq!(
        stderr(&exported).lines().count(),
        stderr(&plain).lines().count() + 1,
        "nothing else is said"
    );
}

#[test]
fn an_exported_recording_gives_the_live_runs_spans() {
    let live = Collector::start();
    let dir = tempfile::tempdir().unwrap();
    run_exported("vendor_outage.json", &live.url(), &[], dir.path());
    let later = Collector::start();
    let record = dir.path().join("run.jsonl");
    let output = conclave(
        &["export", record.to_str().unwrap(), "--otlp", &later.url()],
        &[("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json")],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(output.stdout.is_empty());
    let (live, later) = (live.spans(), later.spans());
    assert!(live.len() > 10);
    // A run's trace is named by its start, which the recording keeps: the
    // recording goes out as the same trace, its spans with the same ids.
    assert_eq!(
        root(&live).trace_id,
        root(&later).trace_id,
        "the run's trace"
    );
    let ids = |spans: &[Got]| {
        let mut ids: Vec<String> = spans.iter().map(|s| s.span_id.clone()).collect();
        ids.sort();
        ids
    };
    assert_eq!(ids(&live), ids(&later));
    assert_eq!(shape(&live), shape(&later));
}

#[test]
fn a_forks_root_span_links_to_its_parents_trace_and_root_span() {
    let parents = Collector::start();
    let dir = tempfile::tempdir().unwrap();
    run_exported("checkout_v2_launch.json", &parents.url(), &[], dir.path());
    let parent_spans = parents.spans();
    let parent = root(&parent_spans);
    assert!(parent.links.is_empty(), "a run of a scenario links nowhere");
    let recording = dir.path().join("run.jsonl");
    let fork_recording = dir.path().join("fork.jsonl");
    let forks = Collector::start();
    let output = conclave(
        &[
            "fork",
            recording.to_str().unwrap(),
            "--at",
            "round 2",
            "--flag",
            "legal_analyst=on",
            "--headless",
            "--record",
            fork_recording.to_str().unwrap(),
            "--otlp",
            &forks.url(),
        ],
        &[],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let link = vec![(parent.trace_id.clone(), parent.span_id.clone())];
    let fork_spans = forks.spans();
    let fork = root(&fork_spans);
    assert!(fork.name.starts_with("invoke_workflow"), "{}", fork.name);
    assert_ne!(fork.trace_id, parent.trace_id, "a trace of its own");
    assert_eq!(fork.links, link, "linked to the parent's root span");
    let only_root_links = fork_spans.iter().filter(|s| !s.links.is_empty()).count();
    assert_eq!(only_root_links, 1);
    // The fork's recording exported later links the same way, reading its
    // parent's recording; once that is gone, it goes out without the link.
    let export = |url: &str| {
        conclave(
            &["export", fork_recording.to_str().unwrap(), "--otlp", url],
            &[],
        )
    };
    let later = Collector::start();
    assert_eq!(export(&later.url()).status.code(), Some(0));
    assert_eq!(root(&later.spans()).links, link);
    std::fs::remove_file(&recording).unwrap();
    let orphan = Collector::start();
    let output = export(&orphan.url());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let orphan_spans = orphan.spans();
    assert_eq!(root(&orphan_spans).trace_id, fork.trace_id);
    assert!(root(&orphan_spans).links.is_empty());
}

#[test]
fn a_forks_served_calls_carry_the_recorded_model_and_cost_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let parents = Collector::start();
    run_exported("checkout_v2_launch.json", &parents.url(), &[], dir.path());
    let recording = dir.path().join("run.jsonl");
    let forks = Collector::start();
    let output = conclave(
        &[
            "fork",
            recording.to_str().unwrap(),
            "--at",
            "round 2",
            "--model",
            "fork-model",
            "--headless",
            "--otlp",
            &forks.url(),
        ],
        &[],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let spans = forks.spans();
    let chats = named(&spans, "chat ");
    let (served, live): (Vec<&Got>, Vec<&Got>) = chats
        .into_iter()
        .partition(|s| s.attr("conclave.served") == Some("true"));
    // Round 1's three analysts were served; round 2 and the brief are live.
    assert_eq!(served.len(), 3, "{:#?}", named(&spans, "chat "));
    assert!(!live.is_empty());
    for span in &served {
        assert_eq!(span.name, "chat sim", "the parent's model");
        assert_eq!(span.attr("gen_ai.request.model"), Some("sim"));
        assert_eq!(span.attr("conclave.cost_usd"), Some("0"), "{span:#?}");
        assert!(
            span.attr("gen_ai.usage.input_tokens").is_none(),
            "nothing a backend would price again: {span:#?}"
        );
        assert!(
            span.attr("conclave.served.input_tokens").is_some(),
            "{span:#?}"
        );
    }
    for span in &live {
        assert_eq!(span.name, "chat fork-model");
        assert_eq!(span.attr("gen_ai.request.model"), Some("fork-model"));
        assert!(span.attr("conclave.served").is_none(), "{span:#?}");
        assert!(
            span.attr("gen_ai.usage.input_tokens").is_some(),
            "{span:#?}"
        );
    }
}

/// `sweep --headless` of checkout over `seeds` with legal_analyst on and
/// off, sending to `otlp` when given.
fn sweep(seeds: &str, otlp: Option<&str>) -> Output {
    let mut args = vec![
        "sweep",
        "scenarios/checkout_v2_launch.json",
        "--seeds",
        seeds,
        "--flag",
        "legal_analyst=on,off",
        "--headless",
    ];
    if let Some(url) = otlp {
        args.extend(["--otlp", url]);
    }
    let output = conclave(&args, &[]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    output
}

#[test]
fn a_sweep_sends_each_of_its_runs_as_a_trace_of_its_own() {
    let collector = Collector::start();
    let exported = sweep("1..3", Some(&collector.url()));
    assert_eq!(
        exported.stdout,
        sweep("1..3", None).stdout,
        "exporting changes nothing in the sweep's document"
    );
    assert_eq!(stderr(&exported), "", "nothing to warn of");
    let spans = collector.spans();
    let mut roots: Vec<(String, String)> = spans
        .iter()
        .filter(|s| s.parent.is_empty())
        .map(|s| {
            assert!(s.name.starts_with("invoke_workflow "), "{}", s.name);
            let flags = s.attr("conclave.flags").unwrap_or_default();
            let legal = if flags.contains("legal_analyst=on") {
                "on"
            } else {
                assert!(flags.contains("legal_analyst=off"), "{flags}");
                "off"
            };
            (s.attr("conclave.seed").unwrap().to_string(), legal.into())
        })
        .collect();
    roots.sort();
    let expected: Vec<(String, String)> = ["1", "2", "3"]
        .into_iter()
        .flat_map(|seed| [(seed.into(), "off".into()), (seed.into(), "on".into())])
        .collect();
    assert_eq!(roots, expected, "one root per run of the sweep");
    // Six traces, every span in one of them under its own root.
    let traces: std::collections::BTreeSet<&str> =
        spans.iter().map(|s| s.trace_id.as_str()).collect();
    assert_eq!(traces.len(), 6);
    for span in spans.iter().filter(|s| !s.parent.is_empty()) {
        assert_eq!(parent(&spans, span).trace_id, span.trace_id);
    }
    for trace in traces {
        let chats = named(&spans, "chat ")
            .into_iter()
            .filter(|s| s.trace_id == trace)
            .count();
        assert!(chats > 0, "every run's model calls are in its trace");
    }
}

#[test]
fn a_sweep_on_nats_leaves_the_export_to_its_workers() {
    let output = conclave(
        &[
            "sweep",
            "scenarios/checkout_v2_launch.json",
            "--seeds",
            "1..2",
            "--headless",
            "--nats",
            "nats://127.0.0.1:1",
            "--otlp",
            "http://127.0.0.1:1",
        ],
        &[],
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("give --otlp to each conclave worker"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn export_says_what_is_missing() {
    let output = conclave(&["export", "no/such/file.jsonl", "--otlp"], &[]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("no/such/file.jsonl"),
        "{}",
        stderr(&output)
    );
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("r.jsonl");
    std::fs::write(&record, "").unwrap();
    let output = conclave(&["export", record.to_str().unwrap()], &[]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("--otlp"), "{}", stderr(&output));
    let output = conclave(
        &[
            "run",
            "scenarios/checkout_v2_launch.json",
            "--headless",
            "--otlp",
        ],
        &[("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")],
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("OTEL_EXPORTER_OTLP_PROTOCOL"),
        "{}",
        stderr(&output)
    );
    assert!(output.stdout.is_empty());
}

#[derive(Debug, Default)]
struct Collect(std::sync::Mutex<Vec<Arc<Event>>>);

impl EventSink for Collect {
    fn accept(&self, event: Arc<Event>) {
        self.0.lock().unwrap().push(event);
    }
}

/// In process, on the paused clock: the exporter is one more lossless
/// viewer; with its collector gone the run's events and result are the
/// ones a run without it has, and finishing says so once.
#[tokio::test(start_paused = true)]
async fn the_engine_never_waits_for_the_exporter() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let config = OtlpConfig::to(&format!("http://127.0.0.1:{port}"))
        .unwrap()
        .with_schedule_delay(std::time::Duration::from_millis(10));
    let exporter = Exporter::start(&config, conclave::patterns::trace_shapes()).unwrap();
    let mut runs = Vec::new();
    for exported in [false, true] {
        let seen = Arc::new(Collect::default());
        let mut observers: Vec<Arc<dyn EventSink>> = vec![seen.clone()];
        if exported {
            observers.push(exporter.observer());
        }
        let options = LaunchOptions {
            seed: Some(7),
            observers,
            ..LaunchOptions::default()
        };
        let scenario = common::shipped("checkout_v2_launch.json");
        let handle = engine::launch(scenario, &Hub::default(), options).unwrap();
        let outcome = handle.finish().await.unwrap();
        let events: Vec<(u64, u64, String)> = seen
            .0
            .lock()
            .unwrap()
            .iter()
            .filter(|e| !matches!(e.kind, EventKind::RunStarted(_)))
            .map(|e| (e.seq, e.t_ms, format!("{:?}", e.kind)))
            .collect();
        runs.push((outcome.result, events));
    }
    assert_eq!(runs[0], runs[1]);
    let warning = tokio::task::spawn_blocking(move || exporter.finish())
        .await
        .unwrap();
    assert!(
        warning.is_some_and(|w| w.contains("could not send the trace")),
        "one warning"
    );
}

/// The dashboard sends each run it launched, on quit and on a signal (a
/// run the signal cut short ends with `cancelled`).
#[test]
fn the_dashboard_sends_its_runs_on_quit_and_on_a_signal() {
    use common::pty::Session;
    let home = tempfile::tempdir().unwrap();
    let collector = Collector::start();
    let url = collector.url();
    let mut session = Session::start(
        &[
            "tui",
            "scenarios/checkout_v2_launch.json",
            "--no-record",
            "--otlp",
            &url,
        ],
        home.path(),
    );
    session.wait_text("FINISHED");
    session.press("q");
    assert!(session.wait_exit().success());
    let spans = collector.spans();
    let run = root(&spans);
    assert_eq!(run.name, "invoke_workflow checkout_v2_launch");
    assert_eq!(run.attr("conclave.clock"), Some("real"));
    assert!(!named(&spans, "chat ").is_empty());

    let collector = Collector::start();
    let url = collector.url();
    let mut session = Session::start(
        &[
            "tui",
            "scenarios/checkout_v2_launch.json",
            "--paused",
            "--no-record",
            "--otlp",
            &url,
        ],
        home.path(),
    );
    session.wait_text("PAUSED BEFORE ROUND 1");
    let pid = session.child.process_id().expect("a pid");
    // SAFETY: sending a signal to the child this test started.
    unsafe {
        libc::kill(pid as libc::pid_t, libc::SIGTERM);
    }
    session.wait_exit();
    let spans = collector.spans();
    let run = root(&spans);
    assert_eq!(run.attr("conclave.stop_reason"), Some("cancelled"));
    assert!(
        run.events
            .iter()
            .any(|(name, ..)| name == "conclave.paused"),
        "the pause is in the trace"
    );
}
