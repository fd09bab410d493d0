//! Tokens, dollars and budgets. Against a loopback chat-completions server
//! that reports its own token counts, the result's `usage` is those counts
//! at the pricing table's prices, per agent and in total; on the sim (its
//! tokens estimated from the text, on the virtual clock) the token and
//! dollar budgets stop every pattern at its next gate or model call, the
//! call that went past the limit counted; pausing spends nothing; and a
//! recording made before prices still replays.

use crate::common;
use conclave::patterns::events::PatternEvent;

use conclave::bus::{Event, EventKind, Hub, TokenUsage};
use conclave::engine::{self, LaunchOptions, ProviderChoice};
use conclave::patterns::events::RoundEvent;
use conclave::scenario::{ModelPrice, PriceTable};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

fn table(model: &str, input: f64, output: f64) -> PriceTable {
    [(model.to_string(), ModelPrice::new(input, output))]
        .into_iter()
        .collect()
}

/// A shipped scenario's document with `budget` keys set over its own.
fn shipped_with_budget(file: &str, budget: Value) -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios")
        .join(file);
    let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    if !doc["budget"].is_object() {
        doc["budget"] = json!({});
    }
    for (key, value) in budget.as_object().unwrap() {
        doc["budget"][key] = value.clone();
    }
    doc
}

async fn run_doc(doc: &Value, options: LaunchOptions) -> (Value, Vec<Event>) {
    let (outcome, events) = common::run(common::scenario(doc), options).await;
    (
        std::sync::Arc::unwrap_or_clone(outcome.result).into_value(),
        events,
    )
}

/// Every model call's usage, in the order the calls finished.
fn usages(events: &[Event]) -> Vec<TokenUsage> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::CallFinished {
                tool,
                usage: Some(u),
                ..
            } if tool == "model" => Some(*u),
            _ => None,
        })
        .collect()
}

fn total_tokens(usage: &Value) -> u64 {
    usage["input_tokens"].as_u64().unwrap() + usage["output_tokens"].as_u64().unwrap()
}

// ---------------------------------------------------------------------------
// A server that counts its own tokens.

/// What the server said one call used, and whom the call was for.
#[derive(Clone, Debug)]
struct Reported {
    who: String,
    prompt: u64,
    completion: u64,
}

/// A chat-completions endpoint for a two-analyst round table: each analyst
/// says go, the closing text is prose. It reports tokens of its own
/// making (the request's size, three per character of the answer) and
/// notes them for the test to price.
struct Counting {
    reported: Arc<Mutex<Vec<Reported>>>,
}

impl Respond for Counting {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let body: Value = serde_json::from_slice(&request.body).unwrap();
        let asked: Value =
            serde_json::from_str(body["messages"][1]["content"].as_str().unwrap()).unwrap();
        let (who, content) = match asked["role"].as_str() {
            Some(role) => (
                role.to_string(),
                json!({"agent": role, "stance": "go", "summary": format!("{role} sees no blocker"),
                       "confidence": 0.8, "actions": ["ship"]})
                .to_string(),
            ),
            None => (
                "final_answer".to_string(),
                "Launch on Monday; watch payments.".to_string(),
            ),
        };
        let prompt = request.body.len() as u64;
        let completion = 3 * content.chars().count() as u64;
        self.reported.lock().unwrap().push(Reported {
            who,
            prompt,
            completion,
        });
        ResponseTemplate::new(200).set_body_json(json!({
            "id": "chatcmpl-1", "object": "chat.completion", "model": "mock-model",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                      "total_tokens": prompt + completion}
        }))
    }
}

fn two_analysts() -> Value {
    json!({
        "name": "two_analysts", "pattern": "collaboration",
        "goal": "Decide whether to launch", "context": {"region": "US"},
        "budget": {"max_rounds": 2, "min_go_votes": 2},
        "team": {"roles": {"demand_analyst": {}, "risk_analyst": {}},
                 "sequence": ["demand_analyst", "risk_analyst"]},
        // The scenario's own price loses to the one given at launch.
        "provider": {"kind": "openai", "model": "mock-model",
                     "pricing": {"mock-model": {"input": 5, "output": 5}}}
    })
}

/// These runs talk to a real socket, so they run on tokio's real clock;
/// nothing waits on it but the HTTP round trips.
#[tokio::test]
async fn the_cost_in_the_result_is_the_server_s_tokens_at_the_table_s_prices() {
    let reported = Arc::new(Mutex::new(Vec::new()));
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(Counting {
            reported: Arc::clone(&reported),
        })
        .mount(&server)
        .await;
    let options = LaunchOptions {
        provider: ProviderChoice {
            pricing: Some(table("mock-model", 1.0, 2.0)),
            ..common::endpoint_at(&server.uri())
        },
        ..LaunchOptions::default()
    };
    let (result, events) = run_doc(&two_analysts(), options).await;
    assert_eq!(result["status"], "ok", "{result}");

    let reported = reported.lock().unwrap().clone();
    assert_eq!(reported.len(), 3, "two analysts and the closing text");
    let dollars = |r: &Reported| (r.prompt as f64 * 1.0 + r.completion as f64 * 2.0) / 1e6;
    let usage = &result["usage"];
    assert_eq!(usage["estimated"], false);
    let close = |got: &Value, want: f64| {
        let got = got.as_f64().unwrap_or_else(|| panic!("no cost in {usage}"));
        assert!((got - want).abs() < 1e-9, "{got} ≠ {want}");
    };
    for who in ["demand_analyst", "risk_analyst", "final_answer"] {
        let calls: Vec<&Reported> = reported.iter().filter(|r| r.who == who).collect();
        assert_eq!(calls.len(), 1, "{who}");
        let spent = &usage["by_agent"][who];
        assert_eq!(spent["input_tokens"], calls[0].prompt, "{who}");
        assert_eq!(spent["output_tokens"], calls[0].completion, "{who}");
        close(&spent["cost_usd"], dollars(calls[0]));
    }
    let by_agent = usage["by_agent"].as_object().unwrap();
    assert_eq!(
        by_agent.keys().collect::<Vec<_>>(),
        ["demand_analyst", "risk_analyst", "final_answer"],
        "in the order they spent"
    );
    assert_eq!(
        usage["input_tokens"],
        reported.iter().map(|r| r.prompt).sum::<u64>()
    );
    assert_eq!(
        usage["output_tokens"],
        reported.iter().map(|r| r.completion).sum::<u64>()
    );
    close(&usage["cost_usd"], reported.iter().map(dollars).sum());

    // Each call_finished carries the call's own cost.
    let published = usages(&events);
    assert_eq!(published.len(), 3);
    for (usage, reported) in published.iter().zip(&reported) {
        assert_eq!(
            (usage.input, usage.output),
            (reported.prompt, reported.completion)
        );
        assert!(!usage.estimated);
        let cost = usage.cost_usd.expect("a priced call");
        assert!((cost - dollars(reported)).abs() < 1e-12);
    }
}

// ---------------------------------------------------------------------------
// Budgets on the sim.

/// checkout_v2_launch on the sim: round 1's three calls use 907 tokens
/// (313, 284, 310), round 2's 1100, the closing text 675; round 2 decides.
const ROUND_1_TOKENS: u64 = 907;

#[tokio::test(start_paused = true)]
async fn the_sim_s_estimates_of_checkout_are_what_these_tests_assume() {
    let (result, events) = run_doc(
        &shipped_with_budget("checkout_v2_launch.json", json!({})),
        LaunchOptions::default(),
    )
    .await;
    let calls: Vec<u64> = usages(&events).iter().map(TokenUsage::total).collect();
    assert_eq!(calls, [313, 284, 310, 372, 360, 368, 675]);
    assert_eq!(calls[..3].iter().sum::<u64>(), ROUND_1_TOKENS);
    assert!(
        usages(&events)
            .iter()
            .all(|u| u.estimated && u.cost_usd.is_none())
    );
    assert_eq!(total_tokens(&result["usage"]), calls.iter().sum::<u64>());
    assert_eq!(result["usage"]["estimated"], true);
    assert!(
        result["usage"].get("cost_usd").is_none(),
        "the sim has no price: the cost is absent, not 0"
    );
}

#[tokio::test(start_paused = true)]
async fn checkout_with_a_token_budget_below_what_round_2_needs_stops_after_round_1() {
    // Round 1's last call takes the run from 597 to 907 tokens, past 900:
    // it finishes and is counted, and the gate before round 2 stops the run.
    let doc = shipped_with_budget("checkout_v2_launch.json", json!({"max_tokens": 900}));
    let (result, events) = run_doc(&doc, LaunchOptions::default()).await;
    assert_eq!(result["status"], "stopped");
    assert_eq!(result["stop_reason"], "max_tokens");
    assert!(result.get("phase").is_none(), "stopped at the round gate");
    assert_eq!(result["history"].as_array().unwrap().len(), 1, "{result}");
    assert_eq!(result["history"][0]["round"], 1);
    assert_eq!(total_tokens(&result["usage"]), ROUND_1_TOKENS);
    assert_eq!(usages(&events).len(), 3, "no call after round 1");
    assert!(
        !events.iter().any(|e| matches!(
            e.kind,
            EventKind::Pattern(PatternEvent::Round(RoundEvent::RoundStarted {
                round: 2,
                ..
            }))
        )),
        "round 2 never starts"
    );
    let (again, _) = run_doc(&doc, LaunchOptions::default()).await;
    assert_eq!(again, result, "deterministic on the virtual clock");
}

#[tokio::test(start_paused = true)]
async fn a_token_budget_that_round_2_goes_past_stops_at_its_next_model_call() {
    // 907 after round 1 is within 1500; round 2's first two calls take the
    // run to 1639, past it: risk_analyst's call never starts.
    let doc = shipped_with_budget("checkout_v2_launch.json", json!({"max_tokens": 1500}));
    let (result, events) = run_doc(&doc, LaunchOptions::default()).await;
    assert_eq!(result["stop_reason"], "max_tokens");
    assert_eq!(result["phase"], "round_2:risk_analyst");
    assert_eq!(result["history"].as_array().unwrap().len(), 1);
    assert_eq!(total_tokens(&result["usage"]), 1639);
    assert_eq!(usages(&events).len(), 5);
}

#[tokio::test(start_paused = true)]
async fn checkout_with_a_dollar_budget_below_what_round_2_needs_stops_after_round_1() {
    // At 1 / 2 USD per million tokens, round 1 costs $0.001148 (666 tokens
    // in, 241 out), past $0.001.
    let doc = shipped_with_budget("checkout_v2_launch.json", json!({"max_cost_usd": 0.001}));
    let options = LaunchOptions {
        provider: ProviderChoice {
            pricing: Some(table("sim", 1.0, 2.0)),
            ..ProviderChoice::default()
        },
        ..LaunchOptions::default()
    };
    let (result, events) = run_doc(&doc, options.clone()).await;
    assert_eq!(result["stop_reason"], "max_cost");
    assert_eq!(result["history"].as_array().unwrap().len(), 1);
    assert_eq!(result["usage"]["cost_usd"], 0.001148);
    assert_eq!(result["usage"]["estimated"], true);
    assert_eq!(usages(&events).len(), 3);
    let (again, _) = run_doc(&doc, options).await;
    assert_eq!(again, result);
}

#[tokio::test(start_paused = true)]
async fn every_pattern_names_who_spent_what() {
    let cases = [
        (
            "checkout_v2_launch.json",
            vec![
                "demand_analyst",
                "finance_analyst",
                "risk_analyst",
                "final_answer",
            ],
        ),
        ("morning_ops_report.json", vec!["planner", "final_answer"]),
        ("support_swarm.json", vec!["triage", "billing", "refunds"]),
        (
            "launch_coordinator.json",
            vec![
                "launch_lead",
                "risk_analyst",
                "market_analyst",
                "legal_reviewer",
            ],
        ),
        (
            "payments_incident_research.json",
            vec!["plan", "synthesize"],
        ),
    ];
    for (file, names) in cases {
        let (result, events) = run_doc(
            &shipped_with_budget(file, json!({})),
            LaunchOptions::default(),
        )
        .await;
        let usage = &result["usage"];
        let by_agent = usage["by_agent"].as_object().unwrap();
        assert_eq!(by_agent.keys().collect::<Vec<_>>(), names, "{file}");
        let summed: u64 = by_agent.values().map(total_tokens).sum();
        assert_eq!(summed, total_tokens(usage), "{file}");
        assert_eq!(
            total_tokens(usage),
            usages(&events).iter().map(TokenUsage::total).sum::<u64>(),
            "{file}: the result sums what call_finished published"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn every_pattern_stops_on_its_token_budget() {
    // (scenario, budget, where it stops)
    let cases = [
        // The plan's 254 tokens are past 100: no task is dispatched.
        ("morning_ops_report.json", 100, Some("dispatch")),
        // Research stops at the gate of the step after the plan.
        ("payments_incident_research.json", 100, Some("search")),
        // Swarm and coordinator stop at the next turn.
        ("support_swarm.json", 300, None),
        ("launch_coordinator.json", 300, None),
    ];
    for (file, max, phase) in cases {
        let doc = shipped_with_budget(file, json!({"max_tokens": max}));
        let (result, events) = run_doc(&doc, LaunchOptions::default()).await;
        assert_eq!(result["stop_reason"], "max_tokens", "{file}: {result}");
        assert_eq!(result.get("phase").and_then(Value::as_str), phase, "{file}");
        let used = total_tokens(&result["usage"]);
        assert!(used > max, "{file}: the call that went past is counted");
        let calls = usages(&events);
        let before_last: u64 = calls[..calls.len() - 1].iter().map(TokenUsage::total).sum();
        // One call at a time but in the coordinator, whose members run
        // side by side (see the next test).
        assert!(
            before_last <= max || file == "launch_coordinator.json",
            "{file}: only the last call went past ({before_last} before it)"
        );
        if let Some(llm_calls) = result.get("llm_calls") {
            assert_eq!(
                llm_calls,
                calls.len(),
                "{file}: a turn the budget stops is not counted"
            );
        }
    }
    let doc = shipped_with_budget("morning_ops_report.json", json!({"max_tokens": 100}));
    let (result, events) = run_doc(&doc, LaunchOptions::default()).await;
    assert!(result["plan"].is_array(), "the plan is kept");
    assert!(
        !events
            .iter()
            .any(|e| matches!(e.kind, EventKind::AttemptStarted { .. })),
        "no task was dispatched"
    );
}

#[tokio::test(start_paused = true)]
async fn a_call_in_flight_past_the_limit_finishes_and_is_counted() {
    // The coordinator's first turn calls three members side by side. With
    // a budget of exactly what that turn used, all three start (the run is
    // at its limit, not past it); the first to answer takes the run past
    // it, and the two still in flight finish and are counted all the same.
    // Only the next turn (risk_analyst's, after its tool call) is refused.
    let free = shipped_with_budget("launch_coordinator.json", json!({}));
    let (_, events) = run_doc(&free, LaunchOptions::default()).await;
    let lead_turn = usages(&events)[0].total();
    let doc = shipped_with_budget("launch_coordinator.json", json!({"max_tokens": lead_turn}));
    let (result, events) = run_doc(&doc, LaunchOptions::default()).await;
    assert_eq!(result["stop_reason"], "max_tokens", "{result}");
    let calls = usages(&events);
    assert_eq!(calls.len(), 4, "the lead's turn and three member calls");
    assert!(calls[1..].iter().all(|u| u.total() > 0));
    assert_eq!(
        total_tokens(&result["usage"]),
        calls.iter().map(TokenUsage::total).sum::<u64>()
    );
    let over_after: Vec<u64> = calls
        .iter()
        .scan(0, |sum, u| {
            *sum += u.total();
            Some(*sum)
        })
        .collect();
    assert!(
        over_after[1] > lead_turn && over_after[3] > over_after[1],
        "two calls finished after the run went past its budget: {over_after:?}"
    );
    let stopped: Vec<&Value> = result["member_calls"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["stop_reason"] == "max_tokens")
        .collect();
    assert_eq!(stopped.len(), 1, "{result}");
    assert_eq!(stopped[0]["member"], "risk_analyst");

    // On the round table, the first call alone is past a budget of one
    // token: it is counted whole, and the next call never starts.
    let doc = shipped_with_budget("checkout_v2_launch.json", json!({"max_tokens": 1}));
    let (result, events) = run_doc(&doc, LaunchOptions::default()).await;
    assert_eq!(result["stop_reason"], "max_tokens");
    assert_eq!(result["phase"], "round_1:finance_analyst");
    assert_eq!(total_tokens(&result["usage"]), 313);
    let started = events
        .iter()
        .filter(|e| matches!(e.kind, EventKind::CallStarted { .. }))
        .count();
    assert_eq!(started, 1);
}

#[tokio::test(start_paused = true)]
async fn pausing_spends_nothing() {
    let doc = shipped_with_budget("checkout_v2_launch.json", json!({"max_tokens": 100_000}));
    let (unpaused, _) = run_doc(&doc, LaunchOptions::default()).await;

    let hub = Hub::new(1 << 16);
    let mut sub = hub.subscribe();
    let handle = engine::launch(
        common::scenario(&doc),
        &hub,
        LaunchOptions {
            start_paused: true,
            ..LaunchOptions::default()
        },
    )
    .unwrap();
    // A minute held at the first gate: no call, no token, no dollar.
    tokio::time::sleep(Duration::from_secs(60)).await;
    let held = common::drain(&mut sub);
    assert!(matches!(
        held.last().unwrap().kind,
        EventKind::Paused { .. }
    ));
    assert!(usages(&held).is_empty());
    assert!(
        !held
            .iter()
            .any(|e| matches!(e.kind, EventKind::CallStarted { .. }))
    );
    // Step round 1, hold again for a minute, then let it run out.
    handle.controller.step().unwrap();
    tokio::time::sleep(Duration::from_secs(60)).await;
    let stepped = common::drain(&mut sub);
    let after_round_1 = usages(&stepped).len();
    tokio::time::sleep(Duration::from_secs(60)).await;
    assert!(
        usages(&common::drain(&mut sub)).is_empty(),
        "held before round 2: nothing more spent"
    );
    assert_eq!(after_round_1, 3);
    handle.controller.resume().unwrap();
    let outcome = handle.finish().await.unwrap();
    assert_eq!(
        outcome.result["usage"], unpaused["usage"],
        "a paused run spends what an unpaused one does"
    );
    assert_eq!(outcome.result["status"], "ok");
}

// ---------------------------------------------------------------------------
// Recordings made before prices.

/// A recording as a build without prices wrote it: no `usage` in the
/// result, no `cost_usd` or `estimated` in any call's usage (the sim's
/// calls had none at all), no `pricing` in the scenario.
fn as_before_prices(line: &str) -> String {
    let mut event: Value = serde_json::from_str(line).unwrap();
    match event["type"].as_str().unwrap() {
        "call_finished" => {
            let usage = event.as_object_mut().unwrap().remove("usage");
            if let Some(usage) = usage {
                event["usage"] = json!({"input": usage["input"], "output": usage["output"]});
            }
        }
        "run_finished" => {
            event["result"].as_object_mut().unwrap().remove("usage");
        }
        _ => {}
    }
    event.to_string()
}

#[tokio::test(start_paused = true)]
async fn a_recording_without_cost_fields_replays() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.jsonl");
    let doc = shipped_with_budget("checkout_v2_launch.json", json!({}));
    run_doc(
        &doc,
        LaunchOptions {
            record: Some(path.clone()),
            ..LaunchOptions::default()
        },
    )
    .await;
    let old: Vec<String> = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .map(as_before_prices)
        .collect();
    let priced = old
        .iter()
        .find(|l| l.contains("\"cost_usd\"") || l.contains("\"estimated\""));
    assert_eq!(priced, None);
    let old_path = dir.path().join("old.jsonl");
    std::fs::write(&old_path, old.join("\n") + "\n").unwrap();

    let recording = conclave::record::read_recording(&old_path).unwrap();
    assert!(recording.problems.is_empty(), "{:?}", recording.problems);
    let calls: Vec<TokenUsage> = recording
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::CallFinished { usage: Some(u), .. } => Some(*u),
            _ => None,
        })
        .collect();
    assert_eq!(calls.len(), 7);
    assert!(calls.iter().all(|u| u.cost_usd.is_none() && !u.estimated));

    let output = common::cli::conclave(&["replay", old_path.to_str().unwrap(), "--headless"]);
    assert_eq!(output.status.code(), Some(0));
    let result = common::cli::result(&output);
    assert_eq!(result["final_decision"], "go_with_caution");
    assert!(result.get("usage").is_none());

    let app = header_app(&recording.events);
    let header = header_text(&app);
    assert!(header.contains("2.7k tok · price unknown"), "{header}");
}

// ---------------------------------------------------------------------------
// The header: tokens, dollars and the budget gauge.

fn header_app(events: &[Arc<Event>]) -> conclave::tui::app::App {
    let mut app = conclave::tui::app::App::new(Default::default());
    app.add_from_events(events, Some("scenarios/checkout_v2_launch.json".into()))
        .unwrap();
    app
}

fn header_text(app: &conclave::tui::app::App) -> String {
    let run = app.run().unwrap().view();
    let mut terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(120, 2)).unwrap();
    terminal
        .draw(|frame| conclave::tui::panes::header::draw(frame, frame.area(), Some(&run), None))
        .unwrap();
    common::screen::text(terminal.backend().buffer())
}

/// The checkout run up to the end of round 1, on `options`.
async fn checkout_after_round_1(doc: &Value, options: LaunchOptions) -> Vec<Arc<Event>> {
    let (_, events) = common::run(common::scenario(doc), options).await;
    let cut = events
        .iter()
        .position(|e| {
            matches!(
                e.kind,
                EventKind::Pattern(PatternEvent::Round(RoundEvent::RoundFinished {
                    round: 1,
                    ..
                }))
            )
        })
        .unwrap();
    events[..=cut].iter().cloned().map(Arc::new).collect()
}

#[tokio::test(start_paused = true)]
async fn the_header_shows_tokens_dollars_and_the_budget_spent() {
    let priced = LaunchOptions {
        provider: ProviderChoice {
            pricing: Some(table("sim", 1.0, 2.0)),
            ..ProviderChoice::default()
        },
        ..LaunchOptions::default()
    };
    // 907 tokens of 1500: 60 %.
    let doc = shipped_with_budget("checkout_v2_launch.json", json!({"max_tokens": 1500}));
    let app = header_app(&checkout_after_round_1(&doc, priced.clone()).await);
    insta::assert_snapshot!("header_priced_with_token_budget", header_text(&app));

    // $0.001148 of $0.0015 is closer to its end than 907 of 1500 tokens.
    let doc = shipped_with_budget(
        "checkout_v2_launch.json",
        json!({"max_tokens": 1500, "max_cost_usd": 0.0015}),
    );
    let app = header_app(&checkout_after_round_1(&doc, priced.clone()).await);
    insta::assert_snapshot!("header_dollar_budget_closest", header_text(&app));

    // Without a price the header says so; without a budget, no gauge.
    let doc = shipped_with_budget("checkout_v2_launch.json", json!({}));
    let app = header_app(&checkout_after_round_1(&doc, LaunchOptions::default()).await);
    insta::assert_snapshot!("header_price_unknown", header_text(&app));

    // A stopped run's gauge goes past 100 % and its stop reads in words.
    let doc = shipped_with_budget("checkout_v2_launch.json", json!({"max_tokens": 900}));
    let (_, events) = common::run(common::scenario(&doc), priced).await;
    let events: Vec<Arc<Event>> = events.into_iter().map(Arc::new).collect();
    let app = header_app(&events);
    insta::assert_snapshot!("header_stopped_past_its_budget", header_text(&app));
    let run = app.run().unwrap().view();
    let mut terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(100, 6)).unwrap();
    terminal
        .draw(|frame| conclave::tui::panes::result::draw(frame, frame.area(), &run, 0, false))
        .unwrap();
    let screen = format!("{:?}", terminal.backend().buffer());
    assert!(
        screen.contains("the token budget ran out (907 of 900 tokens used)"),
        "{screen}"
    );
}

// ---------------------------------------------------------------------------
// Bad prices and budgets are the user's to fix: placed errors, exit 2.

fn write(dir: &std::path::Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn a_bad_pricing_file_is_refused_with_its_place_and_what_was_expected() {
    let dir = tempfile::tempdir().unwrap();
    let bad = write(
        dir.path(),
        "prices.json",
        "{\n  \"gpt-4o\": {\"input\": -1, \"output\": 10}\n}\n",
    );
    for command in ["run", "tui"] {
        let mut args = vec![command, "scenarios/checkout_v2_launch.json"];
        if command == "run" {
            args.push("--headless");
        }
        args.extend(["--pricing", bad.as_str()]);
        let output = common::cli::conclave(&args);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{command}: {}",
            stderr(&output)
        );
        assert!(output.stdout.is_empty());
        let words = stderr(&output);
        assert!(
            words.contains(&format!(
                "{bad}:2:23: gpt-4o.input: expected US dollars per million input tokens, a number ≥ 0, found whole number -1"
            )),
            "{command}: {words}"
        );
    }
    let broken = write(dir.path(), "broken.json", "{\"gpt-4o\": {\"input\": 1,}}");
    let output = common::cli::conclave(&[
        "run",
        "scenarios/checkout_v2_launch.json",
        "--headless",
        "--pricing",
        &broken,
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains(&format!("{broken}:1:")),
        "{}",
        stderr(&output)
    );
    assert!(stderr(&output).contains("not valid JSON"));
    let missing = dir.path().join("none.json").display().to_string();
    let output = common::cli::conclave(&[
        "run",
        "scenarios/checkout_v2_launch.json",
        "--headless",
        "--pricing",
        &missing,
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("cannot read the file"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_pricing_file_prices_the_sim_and_model_names_pick_compiled_in_prices() {
    let dir = tempfile::tempdir().unwrap();
    let prices = write(
        dir.path(),
        "prices.json",
        r#"{"sim": {"input": 1, "output": 2}}"#,
    );
    let run = |extra: &[&str]| {
        let mut args = vec!["run", "scenarios/checkout_v2_launch.json", "--headless"];
        args.extend(extra);
        let output = common::cli::conclave(&args);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        common::cli::result(&output)["usage"].clone()
    };
    let priced = run(&["--pricing", &prices]);
    // 2108 estimated tokens in and 574 out at 1 and 2 USD per million.
    assert_eq!(priced["cost_usd"], 0.003256);
    assert_eq!(priced["estimated"], true);
    assert!(priced["by_agent"]["final_answer"]["cost_usd"].is_number());
    // The sim standing in for a model with a compiled-in price.
    let mini = run(&["--model", "gpt-4o-mini"]);
    assert_eq!(mini["cost_usd"], 0.0006606);
    assert!(run(&[]).get("cost_usd").is_none());
}

#[test]
fn bad_budgets_and_prices_in_a_scenario_are_placed_errors() {
    let doc: Value = serde_json::from_str(
        &std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("scenarios/checkout_v2_launch.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let cases = [
        (
            "/budget/max_tokens",
            json!(0),
            "budget.max_tokens: expected a number ≥ 1, found whole number 0",
        ),
        (
            "/budget/max_tokens",
            json!(-5),
            "budget.max_tokens: expected a number ≥ 1, found whole number -5",
        ),
        (
            "/budget/max_tokens",
            json!(1.5),
            "budget.max_tokens: expected a whole number, found number 1.5",
        ),
        (
            "/budget/max_cost_usd",
            json!(0),
            "budget.max_cost_usd: expected US dollars above 0 (e.g. 0.5), found 0",
        ),
        (
            "/budget/max_cost_usd",
            json!(-0.5),
            "budget.max_cost_usd: expected US dollars above 0 (e.g. 0.5), found -0.5",
        ),
        (
            "/budget/max_cost_usd",
            json!("1"),
            "budget.max_cost_usd: expected a number, found string \"1\"",
        ),
        (
            "/provider/pricing",
            json!({"sim": {"input": -1, "output": 2}}),
            "provider.pricing.sim.input: expected a number ≥ 0, found whole number -1",
        ),
        (
            "/provider/pricing",
            json!({"sim": {"input": 1}}),
            "provider.pricing.sim: missing field \"output\"",
        ),
    ];
    for (pointer, value, expected) in cases {
        let text = common::files::edit(doc.clone(), pointer, Some(value));
        let errors = common::files::errors_of(&text).to_string();
        assert!(errors.contains(expected), "{pointer}: {errors}");
        assert!(errors.starts_with("bad.json:"), "{errors}");
    }
}

#[test]
fn a_dollar_budget_without_a_price_is_refused_before_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let text = serde_json::to_string_pretty(&shipped_with_budget(
        "checkout_v2_launch.json",
        json!({"max_cost_usd": 0.01}),
    ))
    .unwrap();
    let file = write(dir.path(), "capped.json", &text);
    let record = dir.path().join("run.jsonl");
    let output = common::cli::conclave(&[
        "run",
        &file,
        "--headless",
        "--record",
        record.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let words = stderr(&output);
    assert!(
        words.contains("budget.max_cost_usd needs a price for the model \"sim\""),
        "{words}"
    );
    assert!(words.contains("--pricing"), "{words}");
    assert!(!record.exists(), "nothing ran, nothing was recorded");
}

#[test]
fn the_schema_describes_the_budgets_their_stop_reasons_and_prices() {
    let output = common::cli::conclave(&["schema"]);
    assert_eq!(output.status.code(), Some(0));
    let schema: Value = serde_json::from_slice(&output.stdout).unwrap();
    let text = schema.to_string();
    let budget = &schema["$defs"]["Budget"]["properties"];
    assert!(
        budget["max_tokens"]["description"]
            .as_str()
            .unwrap()
            .contains("`max_tokens`")
    );
    assert!(
        budget["max_cost_usd"]["description"]
            .as_str()
            .unwrap()
            .contains("`max_cost`")
    );
    assert!(text.contains("ModelPrice"), "{text}");
    assert!(schema["$defs"]["ProviderSpec"]["properties"]["pricing"].is_object());
}
