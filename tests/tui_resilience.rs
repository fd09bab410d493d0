//! Snapshots of the resilience pane drawn into ratatui's TestBackend: one
//! breaker open, one half-open, one closed behind a full bulkhead, and the
//! model; as a boxed pane, as the 80-column strip and on whole screens; and
//! the vendor outage caught mid-run from a real run on the virtual clock.

use crate::common;

use conclave::bus::{
    BreakerReason, BreakerState, CallOutcome, ClockMode, Event, EventKind, FlagState, RunStarted,
};
use conclave::engine::LaunchOptions;
use conclave::stop::StopReason;
use conclave::tui::app::{App, AppOptions};
use conclave::tui::keymap::{Action, PaneId};
use conclave::tui::{panes, view};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::Color;
use serde_json::json;
use std::sync::Arc;

fn app_with(events: &[Arc<Event>]) -> App {
    let mut app = App::new(AppOptions::default());
    app.add_from_events(events, Some("scenarios/test.json".into()))
        .expect("events start with run_started");
    app
}

fn screen(app: &App, width: u16, height: u16) -> Buffer {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|frame| view::draw(frame, app)).unwrap();
    terminal.backend().buffer().clone()
}

fn text(buffer: &Buffer) -> String {
    let area = buffer.area;
    let mut out = String::new();
    for y in 0..area.height {
        let mut line = String::new();
        for x in 0..area.width {
            line.push_str(buffer[(x, y)].symbol());
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn pane(app: &App, width: u16, height: u16) -> (String, Buffer) {
    drawn(app, width, height, false)
}

/// The selected run's resilience pane, drawn alone.
fn drawn(app: &App, width: u16, height: u16, focused: bool) -> (String, Buffer) {
    let run = app.run().unwrap().view();
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal
        .draw(|frame| {
            panes::resilience::draw(
                frame,
                frame.area(),
                &run.state.resilience,
                &run.ui.gateway_tools,
                run.scenario.resilience.is_some(),
                run.now_ms,
                focused,
            )
        })
        .unwrap();
    let buffer = terminal.backend().buffer().clone();
    (text(&buffer), buffer)
}

/// The colour of the first cell that starts `word` on screen.
fn colour_of(buffer: &Buffer, word: &str) -> Color {
    let width = buffer.area.width as usize;
    let cells = buffer.content();
    for start in 0..cells.len() {
        let found: String = cells[start..]
            .iter()
            .take(word.chars().count())
            .map(|c| c.symbol())
            .collect();
        if found == word && start % width + word.chars().count() <= width {
            return cells[start].fg;
        }
    }
    panic!("no {word:?} on screen:\n{}", text(buffer));
}

/// Four tools caught at 6 s: the vendor's breaker open since 4 s, search
/// half-open with one of two probes out, orders closed with its bulkhead
/// full and a call waiting, and the model healthy.
fn four_tools() -> Vec<Arc<Event>> {
    let scenario = common::scenario(&json!({
        "name": "gateway_states", "title": "Four tools, four states",
        "pattern": "orchestrator", "goal": "Report.", "context": {},
        "workers": {"orders_worker": {}, "vendor_worker": {}, "search_worker": {}},
        "flags": {"breakers": {"default": true, "gateway": "circuit_breaker"}},
        "resilience": {
            "circuit_breaker": {"fail_threshold": 3, "open_for_ms": 5000, "half_open_probes": 2},
            "tools": {"orders_worker": {"bulkhead": {"max_in_flight": 2, "max_wait_ms": 400}}}
        },
        "provider": {"kind": "sim"}
    }));
    let mut kinds: Vec<(u64, EventKind)> = vec![(
        0,
        EventKind::RunStarted(RunStarted {
            pattern: scenario.pattern,
            seed: 1,
            goal: scenario.goal.clone(),
            clock: ClockMode::Virtual,
            flags: vec![FlagState {
                name: "breakers".into(),
                on: true,
            }],
            source: None,
            started_at_ms: 0,
            model: None,
            scenario: Arc::clone(&scenario),
            forked_from: None,
        }),
    )];
    let mut id = 0;
    let mut call = |kinds: &mut Vec<(u64, EventKind)>, tool: &str, at: u64, took: u64, outcome| {
        id += 1;
        kinds.push((
            at,
            EventKind::CallStarted {
                call: id,
                tool: tool.into(),
                attempt: 1,
                label: format!("t · {tool}"),
                agent: None,
            },
        ));
        if let Some(outcome) = outcome {
            kinds.push((
                at + took,
                EventKind::CallFinished {
                    call: id,
                    tool: tool.into(),
                    attempt: 1,
                    latency_ms: took,
                    outcome,
                    usage: None,
                    error: None,
                    http_status: None,
                    first_token_ms: None,
                    tokens_per_s: None,
                    reasoning: None,
                    record: None,
                    served: false,
                    extracted: None,
                    fallback: false,
                },
            ));
        }
    };
    let moved = |tool: &str, from, to, reason| EventKind::BreakerTransition {
        tool: tool.into(),
        from,
        to,
        reason,
    };
    call(&mut kinds, "model", 0, 400, Some(CallOutcome::Ok));
    for at in [400, 450, 500] {
        call(
            &mut kinds,
            "search_worker",
            at,
            2000,
            Some(CallOutcome::Timeout),
        );
    }
    kinds.push((
        2500,
        moved(
            "search_worker",
            BreakerState::Closed,
            BreakerState::Open,
            BreakerReason::FailureThreshold,
        ),
    ));
    for at in [1000, 1500, 2000, 2500, 3000] {
        call(&mut kinds, "orders_worker", at, 300, Some(CallOutcome::Ok));
    }
    for (at, outcome) in [
        (3000, CallOutcome::Ok),
        (3400, CallOutcome::Error),
        (3600, CallOutcome::Error),
        (3800, CallOutcome::Error),
    ] {
        call(&mut kinds, "vendor_worker", at, 200, Some(outcome));
    }
    kinds.push((
        4000,
        moved(
            "vendor_worker",
            BreakerState::Closed,
            BreakerState::Open,
            BreakerReason::FailureThreshold,
        ),
    ));
    for (at, attempt) in [(4200, 1), (4500, 2), (5000, 1), (5800, 1)] {
        kinds.push((
            at,
            EventKind::CallRejected {
                tool: "vendor_worker".into(),
                attempt,
                reason: StopReason::CircuitOpen {
                    tool: "vendor_worker".into(),
                },
            },
        ));
    }
    kinds.push((
        4300,
        EventKind::RetryScheduled {
            tool: "vendor_worker".into(),
            task: None,
            attempt: 2,
            delay_ms: 180,
            after: "worker_error:vendor_worker".parse().unwrap(),
        },
    ));
    let bulkhead = |in_flight, queued| EventKind::Bulkhead {
        tool: "orders_worker".into(),
        in_flight,
        max: 2,
        queued,
    };
    kinds.extend([
        (5200, bulkhead(1, 0)),
        (5300, bulkhead(2, 0)),
        (5400, bulkhead(2, 1)),
        (5800, bulkhead(2, 0)),
        (
            5800,
            EventKind::CallRejected {
                tool: "orders_worker".into(),
                attempt: 1,
                reason: StopReason::BulkheadFull {
                    tool: "orders_worker".into(),
                },
            },
        ),
        (5900, bulkhead(2, 1)),
    ]);
    call(&mut kinds, "orders_worker", 5200, 0, None);
    call(&mut kinds, "orders_worker", 5300, 0, None);
    kinds.push((
        5500,
        moved(
            "search_worker",
            BreakerState::Open,
            BreakerState::HalfOpen,
            BreakerReason::CooledDown,
        ),
    ));
    call(&mut kinds, "search_worker", 5500, 0, None);
    call(&mut kinds, "model", 5600, 400, Some(CallOutcome::Ok));
    kinds.sort_by_key(|(t, _)| *t);
    kinds
        .into_iter()
        .enumerate()
        .map(|(i, (t_ms, kind))| {
            Arc::new(Event {
                run: 1,
                seq: i as u64 + 1,
                t_ms,
                kind,
            })
        })
        .collect()
}

#[test]
fn the_pane_shows_open_half_open_closed_and_a_full_bulkhead() {
    let app = app_with(&four_tools());
    let (boxed, buffer) = pane(&app, 100, 14);
    insta::assert_snapshot!("pane_resilience_boxed", boxed);
    assert_eq!(colour_of(&buffer, "● OPEN"), Color::Red);
    assert_eq!(colour_of(&buffer, "◐ HALF-OPEN"), Color::Yellow);
    assert_eq!(colour_of(&buffer, "● CLOSED"), Color::Green);
    // Sickest first by band: both tools that are down (search first: it
    // went down first and keeps its place), then the strained one, then
    // the healthy model.
    let order = ["search_worker", "vendor_worker", "orders_worker", "model"];
    let rows: Vec<usize> = order
        .iter()
        .map(|tool| boxed.lines().position(|l| l.contains(tool)).unwrap())
        .collect();
    assert!(
        rows.windows(2).all(|w| w[0] < w[1]),
        "sickest first: {rows:?}"
    );
    assert!(
        boxed.contains("▲orders_worker"),
        "its full bulkhead made it sicker since the last ranking"
    );
    assert!(boxed.contains("OPEN 3.0s"), "the countdown to half-open");
    assert!(boxed.contains("HALF-OPEN 1/2"), "probes used of allowed");
    assert!(boxed.contains("2/2 q1 ✗1"), "the full bulkhead");

    let (strip, _) = pane(&app, 80, 5);
    insta::assert_snapshot!("pane_resilience_strip", strip);
    let (two_rows, _) = pane(&app, 100, 10);
    insta::assert_snapshot!("pane_resilience_two_rows", two_rows);

    for (width, height) in [(80, 24), (160, 48)] {
        insta::assert_snapshot!(
            format!("gateway_states_{width}x{height}"),
            text(&screen(&app, width, height))
        );
    }
}

#[test]
fn the_pane_is_focused_with_5_scrolls_with_j_and_details_with_enter() {
    let mut app = app_with(&four_tools());
    app.update(Action::Focus(5));
    assert_eq!(app.focus, PaneId::Resilience);
    app.update(Action::Down);
    app.update(Action::Down);
    let (strip, _) = drawn(&app, 80, 3, true);
    assert!(
        strip.contains("orders_worker"),
        "scrolled to the third:\n{strip}"
    );
    app.update(Action::Details);
    let details = match &app.overlay {
        Some(conclave::tui::view_state::Overlay::Details(details)) => details.text(),
        _ => panic!("Enter opens the tool's details"),
    };
    let tool: serde_json::Value = serde_json::from_str(&details).unwrap();
    assert_eq!(tool["tool"], "orders_worker");
    assert_eq!(tool["bulkhead"]["queued"], 1);
    assert_eq!(tool["breaker"]["state"], "closed");
    for size in [(1, 1), (20, 5), (40, 10), (300, 5), (5, 100)] {
        let _ = screen(&app, size.0, size.1);
    }
}

#[tokio::test(start_paused = true)]
async fn the_vendor_outage_mid_run() {
    let (_, events) = common::run(
        common::shipped("vendor_outage.json"),
        LaunchOptions::default(),
    )
    .await;
    let events: Vec<Arc<Event>> = events.into_iter().map(Arc::new).collect();
    // Cut as the breaker reopens after its first probe failed.
    let cut = events
        .iter()
        .position(|e| {
            matches!(
                e.kind,
                EventKind::BreakerTransition {
                    reason: BreakerReason::ProbeFailed,
                    ..
                }
            )
        })
        .unwrap();
    let app = app_with(&events[..=cut + 4]);
    for (width, height) in [(80, 24), (160, 48)] {
        insta::assert_snapshot!(
            format!("vendor_outage_{width}x{height}"),
            text(&screen(&app, width, height))
        );
    }
}

/// The pane's reducer counts failures, probes and traffic as the gateway
/// does: checked against real runs, event by event.
#[tokio::test(start_paused = true)]
async fn the_reducer_counts_as_the_gateway_does() {
    use conclave::tui::state::RunState;
    let runs = [
        ("vendor_outage.json", vec![]),
        ("vendor_outage.json", vec![("breakers".to_string(), false)]),
        ("slow_dependency.json", vec![]),
    ];
    for (file, flags) in runs {
        let (_, events) = common::run(
            common::shipped(file),
            LaunchOptions {
                flags,
                ..LaunchOptions::default()
            },
        )
        .await;
        let mut state = RunState::new(1);
        let mut opened = 0;
        for event in &events {
            if let EventKind::BreakerTransition {
                tool, from, reason, ..
            } = &event.kind
            {
                let health = state.resilience.tools.iter().find(|t| &t.name == tool);
                let breaker = health.and_then(|t| t.breaker.as_ref()).unwrap();
                assert_eq!(breaker.state, *from, "{file} at {}", event.t_ms);
                if *reason == BreakerReason::FailureThreshold {
                    assert_eq!(Some(breaker.failures), breaker.threshold, "{file}");
                    opened += 1;
                }
                if *from == BreakerState::HalfOpen {
                    assert!(breaker.probes_used >= 1 && breaker.probes_used <= breaker.probes);
                }
            }
            state.apply(Arc::new(event.clone()));
        }
        for tool in &state.resilience.tools {
            let of = |test: &dyn Fn(&EventKind) -> bool| {
                events.iter().filter(|e| test(&e.kind)).count() as u64
            };
            let name = tool.name.as_str();
            assert_eq!(
                tool.calls,
                of(&|k| matches!(k, EventKind::CallStarted { tool, .. } if tool == name)),
                "{file}: {name}"
            );
            assert_eq!(
                tool.retries,
                of(&|k| matches!(k, EventKind::RetryScheduled { tool, .. } if tool == name))
            );
            assert_eq!(
                tool.rejected,
                of(&|k| matches!(k, EventKind::CallRejected { tool, .. } if tool == name))
            );
            if let Some(b) = &tool.bulkhead {
                assert_eq!((b.in_flight, b.queued), (0, 0), "{file}: all calls ended");
            }
        }
        let breakers_on = state
            .resilience
            .switched_on(conclave::scenario::GatewayMechanism::CircuitBreaker);
        assert_eq!(
            opened > 0,
            file == "vendor_outage.json" && breakers_on,
            "{file}"
        );
    }
}

/// Error rate over the last 10 s, latency percentiles and calls per second,
/// from calls at known times.
#[test]
fn the_pane_s_figures_come_from_the_calls_times() {
    use conclave::tui::state::{ERROR_WINDOW_MS, RunState};
    let mut events = four_tools()[..1].to_vec();
    let mut seq = 1;
    let mut push = |events: &mut Vec<Arc<Event>>, t_ms: u64, kind: EventKind| {
        seq += 1;
        events.push(Arc::new(Event {
            run: 1,
            seq,
            t_ms,
            kind,
        }));
    };
    // 20 calls, one every 500 ms, 100 ms to 2000 ms long; every 4th fails.
    for i in 0..20u64 {
        let at = i * 500;
        push(
            &mut events,
            at,
            EventKind::CallStarted {
                call: i,
                tool: "vendor_worker".into(),
                attempt: 1,
                label: String::new(),
                agent: None,
            },
        );
        push(
            &mut events,
            at,
            EventKind::CallFinished {
                call: i,
                tool: "vendor_worker".into(),
                attempt: 1,
                latency_ms: (i + 1) * 100,
                outcome: if i % 4 == 3 {
                    CallOutcome::Error
                } else {
                    CallOutcome::Ok
                },
                usage: None,
                error: None,
                http_status: None,
                first_token_ms: None,
                tokens_per_s: None,
                reasoning: None,
                record: None,
                served: false,
                extracted: None,
                fallback: false,
            },
        );
    }
    let state = RunState::from_events(1, &events);
    let vendor = state
        .resilience
        .tools
        .iter()
        .find(|t| t.name == "vendor_worker")
        .unwrap();
    assert_eq!(vendor.calls, 20);
    assert_eq!(vendor.failures, 5);
    // At 9.5 s the window holds every call: 5 of 20 failed.
    assert_eq!(vendor.error_rate(9_500), Some(0.25));
    // At 19.5 s only the calls from 9.5 s on count: the last one, a failure.
    assert_eq!(vendor.error_rate(9_500 + ERROR_WINDOW_MS), Some(1.0));
    assert_eq!(vendor.error_rate(30_000), None, "nothing in the last 10 s");
    assert_eq!(vendor.latency(50), Some(1000));
    assert_eq!(vendor.latency(95), Some(1900));
    assert_eq!(vendor.latency(100), Some(2000));
    let model = state.resilience.tools.iter().find(|t| t.name == "model");
    assert_eq!(model.map(|m| m.calls), Some(0));
}
