//! A `--forward` target where nothing listens, through the real binary:
//! headless, the counts on stderr name the target and its failures; on
//! the screen, the footer does, in the error colour.

use crate::common;
use crate::watch_dashboard::{free_port, post};

use common::pty::Session;
use common::steer::{PATIENCE, Watch};
use opentelemetry_proto::tonic::trace::v1::Span;
use std::time::Instant;

/// One finished span of trace `n`.
fn a_span(n: u8) -> Vec<Span> {
    vec![Span {
        trace_id: [n; 16].to_vec(),
        span_id: [n; 8].to_vec(),
        name: "workflow".into(),
        start_time_unix_nano: 1_700_000_000_000_000_000,
        end_time_unix_nano: 1_700_000_000_100_000_000,
        ..Default::default()
    }]
}

/// A port that was free a moment ago: nothing listens there.
fn dead_target() -> String {
    format!("http://127.0.0.1:{}", free_port())
}

#[test]
fn headless_the_failed_forwards_are_said_with_their_target() {
    let target = dead_target();
    let watch = Watch::start(&["--forward", &target]);
    let port: u16 = watch.url.rsplit(':').next().unwrap().parse().unwrap();
    post(port, a_span(7));
    // The counts are said at most once a second: a line may come before
    // the forward has failed (`0 failed`); the failure is said by a later
    // one.
    let began = Instant::now();
    let said = loop {
        let line = watch
            .stderr
            .recv_timeout(PATIENCE)
            .expect("the watch says its counts");
        if line.contains("forward to") && line.contains("failed (last:") {
            break line;
        }
        assert!(began.elapsed() < PATIENCE, "no failed forward said: {line}");
    };
    assert!(said.contains(&format!("forward to {target}:")), "{said}");
}

#[test]
fn on_the_screen_the_failed_forwards_are_shown_with_their_target() {
    let home = tempfile::tempdir().unwrap();
    let target = dead_target();
    let port = free_port();
    let listen = format!("127.0.0.1:{port}");
    let args = [
        "watch",
        "--listen",
        &listen,
        "--no-grpc",
        "--forward",
        &target,
    ];
    let mut screen = Session::start_sized(&args, home.path(), &[], (160, 48));
    screen.wait_text("Waiting for the first span");
    post(port, a_span(9));
    screen.wait_for("the forward's failures", |t| {
        t.contains(&format!("⚠ forward to {target}: 1 failed"))
    });
    screen.press("q");
    assert!(screen.wait_exit().success());
}
