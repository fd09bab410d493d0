//! Streaming model calls end to end, in process: a loopback endpoint
//! streams a contribution in 20 chunks over 2 s (on the test's paused
//! clock, paced by the endpoint's own `tokio::time`), and the recording
//! holds `call_delta` events no closer than 50 ms for that call whose
//! texts make the final text; `call_finished` times the first token and
//! the tokens a second. A stream cut mid-way stops the run with
//! `llm_bad_response` quoting the text so far, without hanging; a 529
//! before the stream is retried; `--no-stream` and an endpoint that
//! ignores `stream` answer whole.

use crate::common;
use conclave::patterns::events::PatternEvent;

use common::streaming::{self, COMPLETION_TOKENS, Reply, Streamed, asks_for_the_final_answer};
use conclave::bus::{CallOutcome, Event, EventKind, RunStatus};
use conclave::engine::{LaunchOptions, ProviderChoice};
use conclave::patterns::RunOutcome;
use conclave::patterns::events::RoundEvent;
use conclave::scenario::ProviderKind;
use conclave::stop::StopReason;
use serde_json::{Value, json};
use std::time::Duration;

const CONTRIBUTION: &str = "{\"agent\": \"risk_analyst\", \"stance\": \"go\", \"confidence\": 0.8, \"summary\": \"Fraud rates are flat since March and chargebacks sit under the threshold, so checkout v2 can ship to every region.\", \"actions\": [\"Watch chargebacks for a week\"]}";
const FINAL_ANSWER: &str = "Launch checkout v2: the risk analyst sees no blocker.";

fn scenario() -> Value {
    json!({
        "name": "one_analyst", "pattern": "collaboration",
        "goal": "Decide whether to launch checkout v2", "context": {"region": "US"},
        "budget": {"max_rounds": 1, "min_go_votes": 1},
        "team": {"roles": {"risk_analyst": {"focus": "payments"}}, "sequence": ["risk_analyst"]},
        "provider": {"kind": "openai", "model": "mock-model"}
    })
}

fn on(base_url: &str, record: &std::path::Path) -> LaunchOptions {
    LaunchOptions {
        record: Some(record.to_path_buf()),
        provider: ProviderChoice {
            kind: Some(ProviderKind::Openai),
            base_url: Some(base_url.to_string()),
            ..ProviderChoice::default()
        },
        ..LaunchOptions::default()
    }
}

/// Run the scenario against the endpoint; its outcome and its recording.
async fn run(base_url: &str, options: impl FnOnce(&mut LaunchOptions)) -> (RunOutcome, Vec<Event>) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.jsonl");
    let mut launch = on(base_url, &path);
    options(&mut launch);
    let (outcome, _) = common::run(common::scenario(&scenario()), launch).await;
    let recording = std::fs::read_to_string(&path).unwrap();
    let events = recording
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    (outcome, events)
}

/// The model call speaking for `agent`: its id.
fn call_of(events: &[Event], agent: &str) -> u64 {
    events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::CallStarted {
                call,
                agent: Some(a),
                ..
            } if a == agent => Some(*call),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no model call for {agent}"))
}

/// The deltas of call `id`: (t_ms, text).
fn deltas(events: &[Event], id: u64) -> Vec<(u64, String)> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::CallDelta { call, text, .. } if *call == id => Some((e.t_ms, text.clone())),
            _ => None,
        })
        .collect()
}

/// The `call_finished` of call `id`.
fn finished(events: &[Event], id: u64) -> (&Event, &EventKind) {
    events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::CallFinished { call, .. } if *call == id => Some((e, &e.kind)),
            _ => None,
        })
        .unwrap_or_else(|| panic!("call {id} never finished"))
}

fn streams(chunks: usize, every: Duration) -> impl Fn(&Value, usize) -> Reply + Send + Sync {
    move |request, _| {
        let text = if asks_for_the_final_answer(request) {
            FINAL_ANSWER
        } else {
            CONTRIBUTION
        };
        Reply::Stream(Streamed {
            litellm: true,
            ..Streamed::new(text, chunks, every)
        })
    }
}

#[tokio::test(start_paused = true)]
async fn a_contribution_streamed_in_20_chunks_over_2_s_is_recorded_as_deltas_50_ms_apart() {
    let (base_url, seen) = streaming::serve(streams(20, Duration::from_millis(100))).await;
    let (outcome, events) = run(&base_url, |_| {}).await;
    assert_eq!(outcome.status, RunStatus::Ok, "{:?}", outcome.error);
    let asked = seen.lock().unwrap()[0].clone();
    assert_eq!(asked["stream"], true);
    assert_eq!(asked["stream_options"], json!({"include_usage": true}));

    let id = call_of(&events, "risk_analyst");
    let deltas = deltas(&events, id);
    assert_eq!(
        deltas.iter().map(|(_, t)| t.as_str()).collect::<String>(),
        CONTRIBUTION,
        "the deltas concatenate to the model's text"
    );
    for pair in deltas.windows(2) {
        assert!(
            pair[1].0 >= pair[0].0 + 50,
            "two deltas of one call closer than 50 ms: {deltas:?}"
        );
    }
    // One chunk every 100 ms, each its own delta, as it came.
    assert_eq!(deltas.len(), 20, "{deltas:?}");
    let started = events
        .iter()
        .find(|e| matches!(&e.kind, EventKind::CallStarted { call, .. } if *call == id))
        .unwrap()
        .t_ms;
    assert_eq!(deltas[0].0 - started, 100);
    assert_eq!(deltas[19].0 - started, 2000);

    let (end, kind) = finished(&events, id);
    assert!(
        end.t_ms >= deltas[19].0,
        "the last delta comes before the finish"
    );
    let EventKind::CallFinished {
        outcome: CallOutcome::Ok,
        usage: Some(usage),
        first_token_ms,
        tokens_per_s,
        ..
    } = kind
    else {
        panic!("{kind:?}")
    };
    assert_eq!(usage.output, COMPLETION_TOKENS, "LiteLLM's usage chunk");
    assert_eq!(*first_token_ms, Some(100));
    // 38 tokens from the first chunk (100 ms) to the last (2000 ms).
    assert_eq!(*tokens_per_s, Some(20.0));
    let accepted = events.iter().find_map(|e| match &e.kind {
        EventKind::Pattern(PatternEvent::Round(RoundEvent::ContributionAccepted {
            summary,
            ..
        })) => Some(summary.clone()),
        _ => None,
    });
    assert_eq!(
        accepted.as_deref(),
        Some(
            "Fraud rates are flat since March and chargebacks sit under the threshold, so checkout v2 can ship to every region."
        )
    );
    // The final answer streamed too: the call for no agent.
    let last = call_for_no_agent(&events);
    assert_eq!(
        deltas_text(&events, last),
        FINAL_ANSWER,
        "its deltas make the final answer"
    );
}

fn call_for_no_agent(events: &[Event]) -> u64 {
    events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::CallStarted {
                call, agent: None, ..
            } => Some(*call),
            _ => None,
        })
        .unwrap()
}

fn deltas_text(events: &[Event], id: u64) -> String {
    deltas(events, id).into_iter().map(|(_, t)| t).collect()
}

#[tokio::test(start_paused = true)]
async fn chunks_faster_than_50_ms_are_coalesced_and_none_is_lost() {
    let (base_url, _) = streaming::serve(streams(60, Duration::from_millis(5))).await;
    let (outcome, events) = run(&base_url, |_| {}).await;
    assert_eq!(outcome.status, RunStatus::Ok, "{:?}", outcome.error);
    let id = call_of(&events, "risk_analyst");
    let deltas = deltas(&events, id);
    assert_eq!(deltas_text(&events, id), CONTRIBUTION);
    for pair in deltas.windows(2) {
        assert!(pair[1].0 >= pair[0].0 + 50, "{deltas:?}");
    }
    // 60 chunks over 300 ms: one delta at the first, then one per 50 ms.
    assert!((6..=8).contains(&deltas.len()), "{deltas:?}");
}

#[tokio::test(start_paused = true)]
async fn a_stream_cut_mid_way_stops_with_llm_bad_response_and_the_text_so_far() {
    let (base_url, seen) = streaming::serve(|_, _| {
        Reply::Stream(Streamed {
            cut_after: Some(8),
            ..Streamed::new(CONTRIBUTION, 20, Duration::from_millis(100))
        })
    })
    .await;
    let started = tokio::time::Instant::now();
    let (outcome, events) = run(&base_url, |_| {}).await;
    assert_eq!(outcome.stop_reason, StopReason::LlmBadResponse);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "no hang: the cut is seen at once, not at a timeout"
    );
    assert_eq!(
        seen.lock().unwrap().len(),
        1,
        "a broken stream is not retried"
    );
    let so_far: String = Streamed::new(CONTRIBUTION, 20, Duration::ZERO).parts()[..8].concat();
    let id = call_of(&events, "risk_analyst");
    assert_eq!(
        deltas_text(&events, id),
        so_far,
        "every chunk that came was published"
    );
    let (_, kind) = finished(&events, id);
    let EventKind::CallFinished {
        outcome: CallOutcome::Error,
        error: Some(error),
        ..
    } = kind
    else {
        panic!("{kind:?}")
    };
    assert!(error.contains("ended before the model finished"), "{error}");
    assert!(error.contains(&so_far), "the text so far in {error}");
    assert!(
        outcome
            .error
            .as_deref()
            .is_some_and(|e| e.contains(&so_far)),
        "{:?}",
        outcome.error
    );
}

#[tokio::test(start_paused = true)]
async fn a_529_before_the_stream_is_retried_and_the_stream_then_answers() {
    let stream = streams(5, Duration::from_millis(100));
    let (base_url, seen) = streaming::serve(move |request, n| {
        if n == 0 {
            Reply::Status(529)
        } else {
            stream(request, n)
        }
    })
    .await;
    let (outcome, events) = run(&base_url, |_| {}).await;
    assert_eq!(outcome.status, RunStatus::Ok, "{:?}", outcome.error);
    assert_eq!(
        seen.lock().unwrap().len(),
        3,
        "529, the contribution, the final answer"
    );
    let retried = events.iter().any(|e| {
        matches!(&e.kind, EventKind::RetryScheduled { tool, attempt: 2, .. } if tool == "model")
    });
    assert!(retried, "the 529 is retried like any 5xx");
    let model: Vec<(CallOutcome, bool)> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::CallFinished {
                tool,
                outcome,
                error,
                ..
            } if tool == "model" => Some((
                *outcome,
                error.as_deref().is_some_and(|e| e.contains("529")),
            )),
            _ => None,
        })
        .collect();
    assert_eq!(
        model,
        [
            (CallOutcome::Error, true),
            (CallOutcome::Ok, false),
            (CallOutcome::Ok, false)
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn no_stream_and_an_endpoint_that_ignores_stream_answer_whole() {
    let whole = |request: &Value, _| {
        Reply::Whole(
            if asks_for_the_final_answer(request) {
                FINAL_ANSWER
            } else {
                CONTRIBUTION
            }
            .to_string(),
        )
    };
    // --no-stream: whole answers asked for.
    let (base_url, seen) = streaming::serve(whole).await;
    let (outcome, events) = run(&base_url, |launch| launch.provider.no_stream = true).await;
    assert_eq!(outcome.status, RunStatus::Ok, "{:?}", outcome.error);
    let asked = seen.lock().unwrap()[0].clone();
    assert!(asked.get("stream").is_none(), "{asked}");
    assert!(asked.get("stream_options").is_none(), "{asked}");
    assert!(
        !events
            .iter()
            .any(|e| matches!(e.kind, EventKind::CallDelta { .. }))
    );
    // Streaming asked for, a whole answer given.
    let (base_url, seen) = streaming::serve(whole).await;
    let (streamed_outcome, events) = run(&base_url, |_| {}).await;
    assert_eq!(seen.lock().unwrap()[0]["stream"], true);
    assert_eq!(
        streamed_outcome.result, outcome.result,
        "the same run either way"
    );
    assert!(
        !events
            .iter()
            .any(|e| matches!(e.kind, EventKind::CallDelta { .. }))
    );
    let timed = events.iter().any(|e| {
        matches!(
            e.kind,
            EventKind::CallFinished {
                first_token_ms: Some(_),
                ..
            }
        )
    });
    assert!(!timed, "nothing streamed, nothing timed");
}

#[tokio::test(start_paused = true)]
async fn the_scenario_can_turn_streaming_off() {
    let (base_url, seen) = streaming::serve(|request: &Value, _| {
        Reply::Whole(
            if asks_for_the_final_answer(request) {
                FINAL_ANSWER
            } else {
                CONTRIBUTION
            }
            .to_string(),
        )
    })
    .await;
    let mut doc = scenario();
    doc["provider"]["stream"] = json!(false);
    let dir = tempfile::tempdir().unwrap();
    let (outcome, _) = common::run(
        common::scenario(&doc),
        on(&base_url, &dir.path().join("run.jsonl")),
    )
    .await;
    assert_eq!(outcome.status, RunStatus::Ok, "{:?}", outcome.error);
    assert!(seen.lock().unwrap()[0].get("stream").is_none());
}

#[test]
fn a_key_the_endpoint_streams_back_a_few_characters_a_chunk_is_in_no_delta_or_output() {
    const KEY: &str = "sk-stream-test-4c1d9e7f2a6b8053";
    let echo = json!({"agent": "risk_analyst", "stance": "go", "confidence": 0.8,
                      "summary": format!("Ready; the key was {KEY} (Bearer …{})", &KEY[KEY.len() - 12..]),
                      "actions": ["Ship"]})
    .to_string();
    let (base_url, _) = streaming::serve_in_background(move |request, _| {
        let text = if asks_for_the_final_answer(request) {
            FINAL_ANSWER
        } else {
            &echo
        };
        // Three characters a chunk, each its own delta: no chunk holds a
        // run of eight, and the deltas put together would hold the key.
        Reply::Stream(Streamed::new(
            text,
            text.chars().count() / 3,
            Duration::from_millis(60),
        ))
    });
    let work = tempfile::tempdir().unwrap();
    let file = work.path().join("one_analyst.json");
    std::fs::write(&file, scenario().to_string()).unwrap();
    let recording = work.path().join("run.jsonl");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_conclave"))
        .args([
            "run",
            "--headless",
            "--provider",
            "openai",
            "--base-url",
            &base_url,
        ])
        .arg("--record")
        .arg(&recording)
        .arg(&file)
        .env("OPENAI_API_KEY", KEY)
        .env("XDG_STATE_HOME", work.path().join("state"))
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let recorded = std::fs::read_to_string(&recording).unwrap();
    let deltas: Vec<String> = recorded
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|e| e["type"] == "call_delta")
        .map(|e| e["text"].as_str().unwrap().to_string())
        .collect();
    assert!(
        deltas.len() > 20,
        "the answer streamed in many deltas: {deltas:?}"
    );
    let written = deltas.concat();
    let chars: Vec<char> = KEY.chars().collect();
    for window in chars.windows(8) {
        let window: String = window.iter().collect();
        for (what, text) in [
            ("the recording", recorded.as_str()),
            ("the deltas put together", written.as_str()),
            ("stdout", &String::from_utf8_lossy(&output.stdout)),
            ("stderr", &String::from_utf8_lossy(&output.stderr)),
        ] {
            assert!(
                !text.contains(&window),
                "{what} holds {window:?} of the key"
            );
        }
    }
    assert!(recorded.contains("[redacted]"), "{recorded}");
}
