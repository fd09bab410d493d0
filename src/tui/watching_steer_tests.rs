//! A hooked watched run steered with the dashboard's keys, each decided
//! as an effect for the watch's steering: pause, step, flags, stop (asked
//! first), an approval opened by itself and rejected with a reason, a run
//! without a hook that says why, and a run whose hook speaks before its
//! first span.

use super::app::App;
use super::effect::Effect;
use super::view_state::Overlay;
use super::watching_tests::{batch, key, take_all, watch, watching_app, whole_run};
use crate::span::trace_hex;
use crate::watch::consume::{Watch, WatchOptions};
use crate::watch::steer::protocol::WaitView;
use crate::watch::steer::{Ask, ControlOp, RunView};
use crossterm::event::KeyCode;

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
            Effect::Steer { trace: Some(9), op } => Some(op.clone()),
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
    // x asks first: Esc keeps the run going; Enter stops it with the
    // reason typed.
    app.key(key(KeyCode::Char('x')));
    assert!(steered(&app.key(key(KeyCode::Esc))).is_empty());
    assert!(app.overlay.is_none());
    app.key(key(KeyCode::Char('x')));
    for c in "a loop".chars() {
        app.key(key(KeyCode::Char(c)));
    }
    assert_eq!(
        steered(&app.key(key(KeyCode::Enter))),
        vec![ControlOp::Stop {
            reason: Some("stopped by a person: a loop".into())
        }]
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
    for _ in 0..3 {
        app.key(key(KeyCode::Down));
    }
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

#[tokio::test(start_paused = true)]
async fn quitting_with_a_held_run_asks_first_and_p_holds_every_run() {
    let mut app = hooked(view(false)).await;
    // Nothing held: q quits at once.
    assert_eq!(app.key(key(KeyCode::Char('q'))), vec![Effect::Quit]);
    app.steering_listed(vec![view(true)]);
    assert!(app.key(key(KeyCode::Char('q'))).is_empty());
    assert!(matches!(app.overlay, Some(Overlay::Quit { .. })));
    assert_eq!(app.held(), vec![format!("{} paused", &trace_hex(9)[..8])]);
    app.key(key(KeyCode::Esc));
    assert!(app.overlay.is_none());
    // P: every run held, new ones too; again, every run runs on.
    let all = |effects: &[Effect]| -> Vec<ControlOp> {
        effects
            .iter()
            .filter_map(|e| match e {
                Effect::Steer { trace: None, op } => Some(op.clone()),
                _ => None,
            })
            .collect()
    };
    assert_eq!(
        all(&app.key(key(KeyCode::Char('P')))),
        vec![ControlOp::Pause]
    );
    app.steering_globals(true, Vec::new());
    assert_eq!(
        all(&app.key(key(KeyCode::Char('P')))),
        vec![ControlOp::RunOn]
    );
    // b: the breakpoint typed is set, and cleared when set.
    app.key(key(KeyCode::Char('b')));
    for c in "lookup".chars() {
        app.key(key(KeyCode::Char(c)));
    }
    let set = ControlOp::SetBreak {
        name: "lookup".into(),
        on: true,
    };
    assert_eq!(all(&app.key(key(KeyCode::Enter))), vec![set]);
    app.steering_globals(false, vec!["lookup".into()]);
    app.key(key(KeyCode::Char('b')));
    for c in "lookup".chars() {
        app.key(key(KeyCode::Char(c)));
    }
    let cleared = ControlOp::SetBreak {
        name: "lookup".into(),
        on: false,
    };
    assert_eq!(all(&app.key(key(KeyCode::Enter))), vec![cleared]);
}

#[tokio::test(start_paused = true)]
async fn an_approval_is_approved_for_the_run_or_with_the_arguments_typed() {
    let mut waiting = view(false);
    waiting.waiting.push(WaitView {
        id: 5,
        waited_ms: 10,
        ask: Ask::Approval {
            tool: "refund".into(),
            agent: Some("billing".into()),
            arguments: serde_json::json!({"amount": 120}),
        },
    });
    let mut app = hooked(view(false)).await;
    app.steering_listed(vec![waiting.clone()]);
    app.key(key(KeyCode::Down));
    assert_eq!(
        steered(&app.key(key(KeyCode::Enter))),
        vec![ControlOp::Approve {
            id: 5,
            arguments: None,
            for_the_run: true
        }]
    );
    app.key(key(KeyCode::Char('d')));
    app.key(key(KeyCode::Down));
    app.key(key(KeyCode::Down));
    // Not JSON: said, nothing sent.
    app.key(key(KeyCode::Char('x')));
    assert!(steered(&app.key(key(KeyCode::Enter))).is_empty());
    assert!(app.notice.as_deref().is_some_and(|n| n.contains("JSON")));
    app.key(key(KeyCode::Backspace));
    for c in r#"{"amount": 60}"#.chars() {
        app.key(key(KeyCode::Char(c)));
    }
    assert_eq!(
        steered(&app.key(key(KeyCode::Enter))),
        vec![ControlOp::Approve {
            id: 5,
            arguments: Some(serde_json::json!({"amount": 60})),
            for_the_run: false
        }]
    );
}
