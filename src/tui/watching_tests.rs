//! The watch's runs on the dashboard, without a terminal: each trace the
//! watch tells becomes a run of the dashboard (numbered as the dashboard
//! numbers runs, drawn by the watched unit), finished ones beyond what
//! the watch holds are let go (never the one on screen), and the
//! receiver's troubles reach the attention line (steering is
//! `watching_steer_tests`).

use super::app::{App, AppOptions};
use crate::watch::consume::{Watch, WatchFeed, WatchOptions};
use crate::watch::receive::{Batch, ForwardCounts, ReceiverStatus};
use crate::watch::runs::Limits;
use crossterm::event::{KeyCode, KeyEvent};
use opentelemetry_proto::tonic::trace::v1::Span;
use std::time::Duration;

/// Span `id` of trace `trace` (`parent` none: its top span).
fn span(trace: u128, id: u64, parent: Option<u64>, name: &str, attrs: &[(&str, &str)]) -> Span {
    crate::watch::tests::proto_of(trace, id, parent, name, attrs)
}

pub(super) fn batch(spans: Vec<Span>) -> Batch {
    Batch {
        request: crate::watch::tests::request("opentelemetry.instrumentation.openai_agents", spans),
        received: tokio::time::Instant::now(),
        bytes: 0,
    }
}

/// A whole run of trace `trace`: an agent's tool call, the agent, the top.
pub(super) fn whole_run(trace: u128) -> Vec<Span> {
    vec![
        span(
            trace,
            3,
            Some(2),
            "execute_tool lookup",
            &[
                ("gen_ai.operation.name", "execute_tool"),
                ("gen_ai.tool.name", "lookup"),
            ],
        ),
        span(
            trace,
            2,
            Some(1),
            "invoke_agent triage",
            &[
                ("gen_ai.operation.name", "invoke_agent"),
                ("gen_ai.agent.name", "triage"),
            ],
        ),
        span(trace, 1, None, &format!("workflow {trace}"), &[]),
    ]
}

pub(super) fn watching_app(keep: usize, steered: bool) -> App {
    let mut app = App::new(AppOptions::default());
    app.watching("listening on http://127.0.0.1:4318".into(), keep, steered);
    app
}

pub(super) fn watch() -> Watch {
    Watch::new(WatchOptions {
        limits: Limits {
            settle: Duration::from_millis(100),
            ..Limits::default()
        },
        tell: true,
        ..WatchOptions::default()
    })
}

pub(super) fn take_all(app: &mut App, feed: Vec<WatchFeed>) {
    for item in feed {
        app.take_watch(item);
    }
}

pub(super) fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::from(code)
}

#[tokio::test(start_paused = true)]
async fn each_trace_is_a_run_of_the_dashboard_numbered_as_its_runs_are() {
    let mut app = watching_app(64, false);
    let mut watch = watch();
    take_all(&mut app, watch.take(&batch(whole_run(11)[..1].to_vec())));
    take_all(&mut app, watch.take(&batch(whole_run(12)[..2].to_vec())));
    assert_eq!(app.runs.len(), 2);
    let runs: Vec<_> = app.runs.iter().collect();
    for (n, slot) in runs.iter().enumerate() {
        assert_eq!(
            slot.state.run,
            n as u32 + 1,
            "numbered as the dashboard's runs"
        );
        assert!(slot.is_watched() && slot.is_live());
        assert!(slot.watched_trace().is_some());
        assert!(
            slot.state
                .log
                .events
                .iter()
                .all(|e| e.run == slot.state.run),
            "every event renumbered to its run"
        );
    }
    assert_eq!(runs[0].watched_trace(), Some(11));
    assert!(
        runs[0].state.log.events.iter().any(|e| matches!(
            e.kind,
            crate::bus::EventKind::SpanArrived {
                under_placeholder: true,
                ..
            }
        )),
        "a span whose parent has not come is told so"
    );
    assert_eq!(runs[1].scenario.name, "watch_shop");
    // The first run is shown; a later one does not take the screen.
    assert_eq!(app.runs.selected, 0);
    // The rest of the first run, then its end.
    take_all(&mut app, watch.take(&batch(whole_run(11)[1..].to_vec())));
    tokio::time::advance(Duration::from_millis(200)).await;
    take_all(&mut app, watch.settle(tokio::time::Instant::now()));
    let first = app.runs.iter().next().unwrap();
    assert!(!first.is_live(), "finished with its trace");
    assert_eq!(first.state.root_span.as_deref(), Some("workflow 11"));
    assert!(first.watched_trace().is_none(), "no hook steers it now");
    let again = app.watching.as_ref().unwrap();
    assert!(!again.shown_as.contains_key(&11), "its trace is let go");
}

/// Trace `trace`'s whole run sent, settled and taken.
async fn run_whole(app: &mut App, watch: &mut Watch, trace: u128) {
    take_all(app, watch.take(&batch(whole_run(trace))));
    tokio::time::advance(Duration::from_millis(200)).await;
    take_all(app, watch.settle(tokio::time::Instant::now()));
}

/// The runs on the dashboard, by their top span.
fn kept(app: &App) -> Vec<String> {
    app.runs
        .iter()
        .map(|s| s.state.root_span.clone().unwrap_or_default())
        .collect()
}

#[tokio::test(start_paused = true)]
async fn finished_runs_beyond_those_the_watch_holds_are_let_go_never_the_one_shown() {
    let mut app = watching_app(2, false);
    let mut watch = watch();
    for trace in 1..=5 {
        run_whole(&mut app, &mut watch, trace).await;
    }
    // The first run stays while it is shown; the oldest others go.
    assert_eq!(kept(&app), vec!["workflow 1", "workflow 5"]);
    assert_eq!(app.runs.selected, 0);
    // Another run on screen: the first may go when the next one ends.
    app.runs.selected = 1;
    run_whole(&mut app, &mut watch, 6).await;
    assert_eq!(kept(&app), vec!["workflow 5", "workflow 6"]);
    assert_eq!(
        app.run().unwrap().state.root_span.as_deref(),
        Some("workflow 5"),
        "the run on screen stays on screen"
    );
}

#[test]
fn what_went_wrong_in_the_watch_is_said_with_its_target() {
    let mut app = watching_app(64, false);
    assert!(app.areas(app.screen).attention.height == 0);
    let mut status = ReceiverStatus::default();
    status.counts.requests_accepted = 3;
    status.counts.spans_accepted = 12;
    status.forwards.push(ForwardCounts {
        target: "http://127.0.0.1:9".into(),
        failed: 2,
        last_failure: Some("connection refused".into()),
        ..ForwardCounts::default()
    });
    assert!(app.watch_status(status.clone()), "changed");
    assert!(!app.watch_status(status), "the same counts change nothing");
    app.take_watch(WatchFeed::Late(4));
    app.take_watch(WatchFeed::Dropped(7));
    let watching = app.watching.as_ref().unwrap();
    assert_eq!(
        watching.warnings(),
        vec![
            "⚠ 7 spans dropped: every run held waits for its root".to_string(),
            "⚠ forward to http://127.0.0.1:9: 2 failed, 0 dropped (last: connection refused)"
                .to_string(),
        ]
    );
    assert_eq!(
        watching.counts(),
        "watch: 12 spans in 3 requests · refused 0 · rejected 0 · forwarded 0 · 4 late spans"
    );
    assert_eq!(app.areas(app.screen).attention.height, 1);
}
