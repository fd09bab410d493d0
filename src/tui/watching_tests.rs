//! The watch's runs on the dashboard, without a terminal: each trace the
//! watch tells becomes a run of the dashboard (numbered as the dashboard
//! numbers runs, drawn by the watched unit), finished ones beyond what
//! the watch holds are let go (never the one on screen), the receiver's
//! troubles reach the attention line, and a hooked run is steered with
//! the dashboard's keys, each decided as an effect for the watch's
//! steering.

use super::app::{App, AppOptions};
use super::effect::Effect;
use super::view_state::Overlay;
use crate::watch::consume::{Watch, WatchFeed, WatchOptions};
use crate::watch::receive::{Batch, ForwardCounts, ReceiverStatus};
use crate::watch::runs::Limits;
use crate::watch::span::trace_hex;
use crate::watch::steer::protocol::WaitView;
use crate::watch::steer::{Ask, ControlOp, RunView};
use crossterm::event::{KeyCode, KeyEvent};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, InstrumentationScope, KeyValue, any_value};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span};
use std::time::Duration;

fn kv(key: &str, value: &str) -> KeyValue {
    KeyValue {
        key: key.into(),
        value: Some(AnyValue {
            value: Some(any_value::Value::StringValue(value.into())),
        }),
        ..KeyValue::default()
    }
}

/// Span `id` of trace `trace` (`parent` none: its top span).
fn span(trace: u128, id: u64, parent: Option<u64>, name: &str, attrs: &[(&str, &str)]) -> Span {
    Span {
        trace_id: trace.to_be_bytes().to_vec(),
        span_id: id.to_be_bytes().to_vec(),
        parent_span_id: parent.map(|p| p.to_be_bytes().to_vec()).unwrap_or_default(),
        name: name.into(),
        start_time_unix_nano: 1_000_000_000 + id * 10_000_000,
        end_time_unix_nano: 1_000_000_000 + id * 10_000_000 + 5_000_000,
        attributes: attrs.iter().map(|(k, v)| kv(k, v)).collect(),
        ..Span::default()
    }
}

fn batch(spans: Vec<Span>) -> Batch {
    Batch {
        request: ExportTraceServiceRequest {
            resource_spans: vec![ResourceSpans {
                resource: Some(Resource {
                    attributes: vec![kv("service.name", "shop")],
                    ..Resource::default()
                }),
                scope_spans: vec![ScopeSpans {
                    scope: Some(InstrumentationScope {
                        name: "opentelemetry.instrumentation.openai_agents".into(),
                        ..InstrumentationScope::default()
                    }),
                    spans,
                    ..ScopeSpans::default()
                }],
                ..ResourceSpans::default()
            }],
        },
        received: tokio::time::Instant::now(),
        bytes: 0,
    }
}

/// A whole run of trace `trace`: an agent's tool call, the agent, the top.
fn whole_run(trace: u128) -> Vec<Span> {
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

fn watching_app(keep: usize, steered: bool) -> App {
    let mut app = App::new(AppOptions::default());
    app.watching("listening on http://127.0.0.1:4318".into(), keep, steered);
    app
}

fn watch() -> Watch {
    Watch::new(WatchOptions {
        limits: Limits {
            settle: Duration::from_millis(100),
            ..Limits::default()
        },
        tell: true,
        ..WatchOptions::default()
    })
}

fn take_all(app: &mut App, feed: Vec<WatchFeed>) {
    for item in feed {
        app.take_watch(item);
    }
}

fn key(code: KeyCode) -> KeyEvent {
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

/// A watch with one live run of trace 9, shown, and its hook listed as
/// `view` says.
async fn hooked(view: RunView) -> App {
    let mut app = watching_app(64, true);
    let mut watch = watch();
    take_all(&mut app, watch.take(&batch(whole_run(9)[..1].to_vec())));
    app.steering_listed(vec![view]);
    app
}

fn view(paused: bool) -> RunView {
    RunView {
        trace_id: trace_hex(9),
        paused,
        passes: 0,
        steered: true,
        stopped: None,
        gates: 2,
        flags: vec![crate::watch::steer::protocol::FlagView {
            name: "legal_check".into(),
            on: true,
            default: true,
            description: "the legal check runs".into(),
        }],
        waiting: Vec::new(),
    }
}

fn steered(effects: &[Effect]) -> Vec<ControlOp> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Steer { trace: 9, op } => Some(op.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test(start_paused = true)]
async fn a_hooked_run_is_paused_stepped_and_flagged_with_the_dashboards_keys() {
    let mut app = hooked(view(false)).await;
    assert_eq!(
        steered(&app.key(key(KeyCode::Char(' ')))),
        vec![ControlOp::Pause]
    );
    // Stepping a run that goes on pauses it first.
    assert_eq!(
        steered(&app.key(key(KeyCode::Char('s')))),
        vec![ControlOp::Pause, ControlOp::Step { gates: 1 }]
    );
    app.steering_listed(vec![view(true)]);
    assert_eq!(
        steered(&app.key(key(KeyCode::Char(' ')))),
        vec![ControlOp::RunOn]
    );
    assert_eq!(
        steered(&app.key(key(KeyCode::Char('s')))),
        vec![ControlOp::Step { gates: 1 }]
    );
    // f: the hook's flags; Enter toggles the selected one.
    assert!(app.key(key(KeyCode::Char('f'))).is_empty());
    assert!(matches!(app.overlay, Some(Overlay::Steer(_))));
    assert_eq!(
        steered(&app.key(key(KeyCode::Enter))),
        vec![ControlOp::SetFlag {
            name: "legal_check".into(),
            on: false
        }]
    );
    app.key(key(KeyCode::Esc));
    assert!(app.overlay.is_none());
    // x asks first: any key but y keeps the run going.
    app.key(key(KeyCode::Char('x')));
    assert!(steered(&app.key(key(KeyCode::Char('n')))).is_empty());
    assert!(app.overlay.is_none());
    app.key(key(KeyCode::Char('x')));
    assert_eq!(
        steered(&app.key(key(KeyCode::Char('y')))),
        vec![ControlOp::Stop { reason: None }]
    );
}

#[tokio::test(start_paused = true)]
async fn an_approval_opens_by_itself_and_is_rejected_with_the_reason_typed() {
    let mut waiting = view(false);
    waiting.waiting.push(WaitView {
        id: 4,
        waited_ms: 10,
        ask: Ask::Approval {
            tool: "refund".into(),
            agent: Some("billing".into()),
            arguments: serde_json::json!({"amount": 120}),
        },
    });
    let mut app = hooked(view(false)).await;
    app.steering_listed(vec![waiting.clone()]);
    assert!(
        matches!(app.overlay, Some(Overlay::Steer(_))),
        "the decision opens"
    );
    // Esc puts it off: it does not open again by itself, `d` reopens it.
    app.key(key(KeyCode::Esc));
    app.steering_listed(vec![waiting.clone()]);
    assert!(app.overlay.is_none());
    app.key(key(KeyCode::Char('d')));
    app.key(key(KeyCode::Down));
    for c in "too big".chars() {
        app.key(key(KeyCode::Char(c)));
    }
    assert_eq!(
        steered(&app.key(key(KeyCode::Enter))),
        vec![ControlOp::Reject {
            id: 4,
            reason: "too big".into()
        }]
    );
}

#[tokio::test(start_paused = true)]
async fn a_watched_run_without_a_hook_is_not_steered_and_says_why() {
    let mut app = watching_app(64, true);
    let mut watch = watch();
    take_all(&mut app, watch.take(&batch(whole_run(5)[..1].to_vec())));
    for c in [' ', 's', 'f', 'd', 'x'] {
        assert!(app.key(key(KeyCode::Char(c))).is_empty());
        assert_eq!(
            app.notice.as_deref(),
            Some("this run has no steering hook (docs/steer.md)"),
            "{c}"
        );
    }
    assert!(app.overlay.is_none());
}

#[tokio::test(start_paused = true)]
async fn a_run_whose_hook_speaks_first_is_shown_at_once_and_seated_by_its_first_span() {
    use crate::watch::steer::{HookOp, HookRequest, Steering};
    let steering = Steering::new(Default::default(), Default::default());
    let declared = steering
        .hook(HookRequest {
            trace_id: trace_hex(9),
            session: "hook".into(),
            wait_ms: None,
            passed: 0,
            op: HookOp::Declare {
                flags: vec![crate::watch::steer::protocol::FlagDecl {
                    name: "legal".into(),
                    default: true,
                    description: String::new(),
                }],
            },
        })
        .await;
    assert!(declared.is_ok());
    let mut watch = Watch::new(WatchOptions {
        steering: Some(steering),
        tell: true,
        ..WatchOptions::default()
    });
    let mut app = watching_app(64, true);
    take_all(
        &mut app,
        watch.steering_changed(tokio::time::Instant::now()),
    );
    let slot = app.run().expect("the hooked run is shown before any span");
    assert_eq!(slot.watched_trace(), Some(9));
    assert_eq!(slot.scenario.name, "watch_", "its service is not known yet");
    let said: Vec<String> = slot
        .state
        .log
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            crate::bus::EventKind::Steered { said, .. } => Some(said.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(said, vec!["flags declared: legal on".to_string()]);
    // Its first span seats it; no second run opens for its trace.
    take_all(&mut app, watch.take(&batch(whole_run(9)[..1].to_vec())));
    assert_eq!(app.runs.len(), 1);
    assert_eq!(app.run().unwrap().scenario.name, "watch_shop");
    // A change of the steering tells nothing twice.
    assert!(
        watch
            .steering_changed(tokio::time::Instant::now())
            .is_empty()
    );
}
