//! OTLP export against collectors that do not behave: one that accepts
//! every request and never answers, and one that redirects elsewhere.
//! The built binary runs against real loopback servers; a hanging
//! collector costs a sweep and a run's exit at most the flush bound, and a
//! redirect is not followed, so a secret header stays with the collector
//! it was meant for.

use crate::common;

use common::loopback::{Body, Loopback, Reply};
use std::io::Read;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Every variable that would change where or how a child exports.
const OTEL_VARIABLES: [&str; 10] = [
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "OTEL_EXPORTER_OTLP_PROTOCOL",
    "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
    "OTEL_EXPORTER_OTLP_HEADERS",
    "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
    "OTEL_SERVICE_NAME",
    "OTEL_BSP_SCHEDULE_DELAY",
    "OTEL_EXPORTER_OTLP_TIMEOUT",
    "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT",
];

/// What a process may take past its bound for starting and stopping on a
/// loaded machine; the failures these tests catch took 10 to 200 s.
const SLACK: Duration = Duration::from_secs(4);

fn conclave(args: &[&str], env: &[(&str, &str)]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_conclave"));
    command.args(args).current_dir(env!("CARGO_MANIFEST_DIR"));
    for name in OTEL_VARIABLES {
        command.env_remove(name);
    }
    for (name, value) in env {
        command.env(name, value);
    }
    command
}

/// Run to its end; the output and how long it took.
fn timed(args: &[&str], env: &[(&str, &str)]) -> (Output, Duration) {
    let start = Instant::now();
    let output = conclave(args, env).output().expect("the binary runs");
    (output, start.elapsed())
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A collector that reads each request and never answers.
fn hanging_collector() -> Loopback {
    Loopback::serve(|_, _| Reply {
        status: String::new(),
        headers: Vec::new(),
        body: Body::Stall,
        closes_after: false,
    })
}

/// `http://127.0.0.1:PORT` of a loopback server (its base URL ends in
/// `/v1`, which the exporter would take as the whole path).
fn origin(server: &Loopback) -> String {
    server.base_url.trim_end_matches("/v1").to_string()
}

/// The one warning about the trace, asserting there is exactly one.
fn the_warning(output: &Output) -> String {
    let said: Vec<&str> = std::str::from_utf8(&output.stderr)
        .unwrap()
        .lines()
        .filter(|line| line.contains("could not send the trace"))
        .collect();
    assert_eq!(said.len(), 1, "one warning:\n{}", stderr(output));
    said[0].to_string()
}

#[test]
fn a_collector_that_never_answers_costs_a_sweep_at_most_the_flush_bound() {
    let collector = hanging_collector();
    let sweep = [
        "sweep",
        "scenarios/checkout_v2_launch.json",
        "--seeds",
        "1..40",
        "--headless",
    ];
    let (plain, without) = timed(&sweep, &[]);
    assert_eq!(plain.status.code(), Some(0), "{}", stderr(&plain));
    let url = origin(&collector);
    let exported_args = [&sweep[..], &["--otlp", &url]].concat();
    let (exported, with) = timed(&exported_args, &[]);
    assert_eq!(exported.status.code(), Some(0), "{}", stderr(&exported));
    let bound = Duration::from_secs(1);
    assert!(
        with <= without * 2 + bound + SLACK,
        "the sweep took {with:?} exporting to a silent collector, {without:?} without"
    );
    let document = |output: &Output| -> serde_json::Value {
        let mut value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        // Where the sweep ran and how long it took differ between runs.
        for volatile in ["engine", "elapsed_ms", "wall_ms"] {
            if let Some(object) = value.as_object_mut() {
                object.remove(volatile);
            }
        }
        value
    };
    assert_eq!(document(&exported), document(&plain), "the same sweep");
    let warning = the_warning(&exported);
    assert!(
        warning.contains("no answer within the flush bound of 1 s")
            && warning.contains("OTEL_EXPORTER_OTLP_TIMEOUT")
            && warning.contains("0 of 640 spans sent"),
        "{warning}"
    );
    assert!(
        !collector.requests().is_empty(),
        "the collector was asked (the export happened)"
    );
}

#[test]
fn a_run_exits_within_the_flush_bound_after_its_result() {
    let collector = hanging_collector();
    let url = origin(&collector);
    for (env, bound, said) in [
        (vec![], Duration::from_secs(1), "flush bound of 1 s"),
        // The variable bounds each request too, which then fails first.
        (
            vec![("OTEL_EXPORTER_OTLP_TIMEOUT", "300")],
            Duration::from_millis(300),
            "0 of 16 spans sent",
        ),
    ] {
        let mut child = conclave(
            &[
                "run",
                "scenarios/checkout_v2_launch.json",
                "--headless",
                "--otlp",
                &url,
            ],
            &env,
        )
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
        // Read until the result is whole: the moment it was printed.
        let mut stdout = child.stdout.take().unwrap();
        let mut printed = Vec::new();
        let mut chunk = [0u8; 4096];
        while serde_json::from_slice::<serde_json::Value>(&printed).is_err() {
            let n = stdout.read(&mut chunk).unwrap();
            assert!(n > 0, "stdout ended before a whole result");
            printed.extend_from_slice(&chunk[..n]);
        }
        let result_at = Instant::now();
        let output = child.wait_with_output().unwrap();
        let after = result_at.elapsed();
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        assert!(
            after <= bound + SLACK,
            "exited {after:?} after its result with a flush bound of {bound:?}"
        );
        let warning = the_warning(&output);
        assert!(warning.contains(said), "{warning}");
    }
}

#[test]
fn a_redirect_is_not_followed_and_the_secret_header_stays_home() {
    let elsewhere = Loopback::serve(|_, _| Reply::text(200, "{}"));
    let target = format!("{}/traces", elsewhere.base_url);
    let collector = Loopback::serve(move |_, _| {
        Reply::new(307, Body::Bytes(Vec::new())).header("location", &target)
    });
    let secret = "otlp-secret-value-4417";
    let (output, _) = timed(
        &[
            "run",
            "scenarios/checkout_v2_launch.json",
            "--headless",
            "--otlp",
            &origin(&collector),
        ],
        &[("OTEL_EXPORTER_OTLP_HEADERS", &format!("x-api-key={secret}"))],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let asked = collector.requests();
    assert!(!asked.is_empty(), "the collector was asked");
    assert_eq!(
        asked[0].header("x-api-key").as_deref(),
        Some(secret),
        "the header went where it was meant to"
    );
    assert!(
        elsewhere.requests().is_empty(),
        "the redirect was followed: {:?}",
        elsewhere
            .requests()
            .iter()
            .map(|r| r.head.clone())
            .collect::<Vec<_>>()
    );
    let warning = the_warning(&output);
    assert!(warning.contains("307"), "{warning}");
    assert!(!stderr(&output).contains(secret), "{}", stderr(&output));
}

#[test]
fn the_dashboard_quits_within_the_flush_bound_with_a_collector_that_never_answers() {
    use common::pty::Session;
    let home = tempfile::tempdir().unwrap();
    let collector = hanging_collector();
    let url = origin(&collector);
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
    let asked = Instant::now();
    session.press("q");
    assert!(session.wait_exit().success());
    let took = asked.elapsed();
    assert!(
        took <= Duration::from_secs(1) + SLACK,
        "the dashboard took {took:?} to quit"
    );
}
