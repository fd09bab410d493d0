//! What the dashboard shows of a model that does not answer as asked: the
//! endpoint refused the `native` output mode (the header and the log quote
//! it), and an answer that broke its contract is being asked for again
//! (`↻ repair 1/1: …` where the analyst sits, in the log and the header).
//! The refused attempt is a fallback on the model's row, not an error.
//! The run is the shipped round table on the sim up to finance's turn in
//! round 2, and then the events an endpoint's run publishes there.

use crate::common;
use conclave::patterns::events::PatternEvent;

use conclave::bus::{CallOutcome, Event, EventKind};
use conclave::engine::LaunchOptions;
use conclave::patterns::events::RoundEvent;
use conclave::tui::app::{App, AppOptions};
use std::sync::Arc;

/// The shipped round table up to finance's call in round 2.
async fn up_to_finance_in_round_2() -> Vec<Event> {
    let (_, events) = common::run(
        common::shipped("checkout_v2_launch.json"),
        LaunchOptions::default(),
    )
    .await;
    let cut = events
        .iter()
        .position(|e| {
            matches!(&e.kind, EventKind::Pattern(PatternEvent::Round(RoundEvent::ContributionRequested { round: 2, agent })) if agent == "finance_analyst")
        })
        .unwrap();
    events[..=cut].to_vec()
}

/// What an endpoint's run publishes for finance's turn: its first ask is
/// refused for `json_schema`, the next (as a tool call) answers without a
/// stance, and the repair is on its way and has written a little.
fn endpoint_turn() -> Vec<EventKind> {
    let first = 9_001;
    let started = |call: u64, attempt: u32| EventKind::CallStarted {
        call,
        tool: "model".into(),
        attempt,
        label: "round 2 · finance_analyst".into(),
        agent: Some("finance_analyst".into()),
    };
    // A refused feature's attempt is marked a fallback, as the gateway
    // marks it when the run then asks another way.
    let finished =
        |call: u64, attempt: u32, outcome, error: Option<&str>| EventKind::CallFinished {
            call,
            tool: "model".into(),
            attempt,
            latency_ms: 420,
            outcome,
            usage: None,
            error: error.map(str::to_string),
            http_status: None,
            first_token_ms: None,
            tokens_per_s: None,
            served: false,
            reasoning: None,
            record: None,
            extracted: None,
            fallback: outcome == CallOutcome::Error,
        };
    vec![
        started(first, 1),
        finished(
            first,
            1,
            CallOutcome::Error,
            Some("the endpoint refused the request (HTTP 400)"),
        ),
        EventKind::OutputModeChanged {
            from: "native".into(),
            to: "tool".into(),
            said: "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.".into(),
        },
        started(first + 1, 2),
        finished(first + 1, 2, CallOutcome::Ok, None),
        EventKind::CallRepair {
            call: first + 1,
            attempt: 1,
            of: 1,
            error: "missing key \"stance\"".into(),
        },
        started(first + 2, 1),
        EventKind::CallDelta {
            call: first + 2,
            text: "{\"agent\": \"finance_analyst\", \"summary\": \"Margins hold at the".into(),
            reasoning: false,
            arguments: false,
        },
    ]
}

fn app_after(events: Vec<Event>) -> App {
    let last = events.last().unwrap().clone();
    let mut all: Vec<Arc<Event>> = events.into_iter().map(Arc::new).collect();
    for (seq, kind) in (last.seq + 1..).zip(endpoint_turn()) {
        all.push(Arc::new(Event {
            run: last.run,
            seq,
            t_ms: last.t_ms,
            kind,
        }));
    }
    let mut app = App::new(AppOptions::default());
    app.add_from_events(&all, Some("scenarios/checkout_v2_launch.json".into()))
        .expect("events start with run_started");
    app
}

#[tokio::test(start_paused = true)]
async fn a_repair_and_a_refused_output_mode_show_in_the_pane_the_log_and_the_header() {
    let app = app_after(up_to_finance_in_round_2().await);
    let screen = common::screen::of_app(&app, 160, 48);
    assert!(
        screen.contains("↻ repair 1/1: missing key \"stance\""),
        "the analyst's seat says its answer is being asked for again:\n{screen}"
    );
    assert!(
        screen.contains("output tool"),
        "the header says how the endpoint is asked now:\n{screen}"
    );
    assert!(screen.contains("↻ 1 repair"), "{screen}");
    assert!(
        screen.contains("the endpoint refused native output"),
        "the log quotes the refusal:\n{screen}"
    );
    let model = screen
        .lines()
        .find(|line| line.contains("│ model "))
        .unwrap_or_else(|| panic!("the model's row:\n{screen}"));
    assert!(
        model.contains("err   0%"),
        "a fallback is no error on the model's row: {model}"
    );
    assert!(
        screen.contains("fallback 1"),
        "the model's row counts it as a fallback:\n{screen}"
    );
    insta::assert_snapshot!("repair_and_fallback_160x48", screen);
    insta::assert_snapshot!(
        "repair_and_fallback_80x24",
        common::screen::of_app(&app, 80, 24)
    );
}
