use super::*;
use crate::bus::cassette::Answer;
use crate::bus::{Event, EventKind, RunStarted};
use serde_json::json;
use std::path::Path;
use std::sync::Arc;

pub(super) fn event(seq: u64, kind: EventKind) -> Arc<Event> {
    Arc::new(Event {
        run: 1,
        seq,
        t_ms: seq * 10,
        kind,
    })
}

pub(super) fn started() -> EventKind {
    let scenario = crate::scenario::parse(
        &json!({"name": "t", "pattern": "swarm", "goal": "g", "context": {}, "entry": "a",
                "agents": {"a": {"description": "A"}}, "budget": {"max_llm_calls": 4},
                "provider": {"kind": "sim", "turns": {"a": [{"reply": "Done."}]}}})
        .to_string(),
        "t.json",
    )
    .unwrap();
    EventKind::RunStarted(RunStarted {
        pattern: scenario.pattern,
        seed: 1,
        goal: "g".into(),
        clock: crate::bus::ClockMode::Virtual,
        flags: Vec::new(),
        source: None,
        started_at_ms: 0,
        model: None,
        forked_from: None,
        scenario: Arc::new(scenario),
    })
}

pub(super) fn finished(call: u64, tool: &str, record: CallRecord) -> EventKind {
    EventKind::CallFinished {
        call,
        tool: tool.into(),
        attempt: 1,
        latency_ms: 40,
        outcome: CallOutcome::Ok,
        usage: None,
        error: None,
        http_status: None,
        first_token_ms: None,
        tokens_per_s: None,
        served: false,
        reasoning: None,
        record: Some(Box::new(record)),
        extracted: None,
        fallback: false,
    }
}

fn model(purpose: &str, hash: &str, text: &str) -> CallRecord {
    CallRecord {
        purpose: Some(purpose.into()),
        prompt_sha256: Some(hash.into()),
        args: None,
        answer: Some(Answer::Text(text.into())),
        span_ms: None,
        ended_us: None,
    }
}

fn tool(args: serde_json::Value) -> CallRecord {
    CallRecord {
        purpose: None,
        prompt_sha256: None,
        args: Some(args),
        answer: Some(Answer::Observation(json!({"ok": true}))),
        span_ms: None,
        ended_us: None,
    }
}

fn cassette() -> Cassette {
    let events = vec![
        event(1, started()),
        event(2, finished(1, "model", model("turn:a", "aaaa", "first"))),
        event(3, finished(2, "lookup", tool(json!({"order": "A-1"})))),
        event(4, finished(3, "model", model("turn:a", "bbbb", "second"))),
        event(5, finished(4, "lookup", tool(json!({"order": "A-2"})))),
    ];
    Cassette::of_events(Path::new("rec.jsonl"), &events).unwrap()
}

fn served_text(serve: Serve) -> String {
    match serve {
        Serve::Served(recorded) => match recorded.record.answer {
            Some(Answer::Text(text)) => text,
            other => panic!("not text: {other:?}"),
        },
        other => panic!("not served: {other:?}"),
    }
}

#[test]
fn model_calls_are_served_by_purpose_and_prompt_in_recorded_order() {
    let cassette = cassette();
    assert_eq!(served_text(cassette.serve_model("turn:a", "aaaa")), "first");
    assert_eq!(
        served_text(cassette.serve_model("turn:a", "bbbb")),
        "second"
    );
    assert!(matches!(
        cassette.serve_model("turn:a", "aaaa"),
        Serve::Miss
    ));
    let words = cassette.missed().unwrap();
    assert!(
        words.contains("model call 3 for turn:a") && words.contains("made 2 such calls"),
        "{words}"
    );
}

#[test]
fn a_changed_prompt_stops_naming_the_field_recorded_and_now() {
    let cassette = cassette();
    assert!(matches!(
        cassette.serve_model("turn:a", "cccc"),
        Serve::Miss
    ));
    let words = cassette.missed().unwrap();
    assert!(
        words.contains("model call 1 for turn:a")
            && words.contains("prompt_sha256: recorded aaaa, now cccc"),
        "{words}"
    );
    assert!(matches!(
        cassette.serve_model("turn:b", "aaaa"),
        Serve::Miss
    ));
    assert_eq!(cassette.missed().unwrap(), words, "the first miss is kept");
}

#[test]
fn tool_calls_are_matched_by_their_args_in_any_order() {
    let cassette = cassette();
    assert!(matches!(
        cassette.serve_tool("lookup", &json!({"order": "A-2"})),
        Serve::Served(_)
    ));
    assert!(matches!(
        cassette.serve_tool("lookup", &json!({"order": "A-1"})),
        Serve::Served(_)
    ));
    let cassette = self::cassette();
    assert!(matches!(
        cassette.serve_tool("lookup", &json!({"order": "A-9"})),
        Serve::Miss
    ));
    let words = cassette.missed().unwrap();
    assert!(
        words.contains(r#"call 1 of tool lookup: args.order: recorded "A-1", now "A-9""#),
        "{words}"
    );
}

#[test]
fn a_miss_goes_live_when_told_and_everything_is_live_after_the_fork() {
    let cassette = cassette().with_miss(MissPolicy::Live);
    assert!(matches!(cassette.serve_model("turn:z", "zz"), Serve::Live));
    assert_eq!(cassette.missed(), None);
    let cassette = self::cassette();
    cassette.go_live();
    assert!(matches!(
        cassette.serve_model("turn:a", "aaaa"),
        Serve::Live
    ));
}

#[test]
fn prompts_are_not_compared_when_a_fork_changed_the_goal() {
    let cassette = cassette().ignoring_prompts();
    assert_eq!(
        served_text(cassette.serve_model("turn:a", "other")),
        "first"
    );
}

#[test]
fn a_recording_made_before_cassettes_is_refused_with_its_line() {
    let mut old = finished(1, "model", model("turn:a", "aaaa", "x"));
    if let EventKind::CallFinished { record, .. } = &mut old {
        *record = None;
    }
    let error = Cassette::of_events(
        Path::new("old.jsonl"),
        &[event(1, started()), event(2, old)],
    )
    .unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("old.jsonl: event 2: call 1 finished without"),
        "{error}"
    );
    let error = Cassette::of_events(Path::new("none.jsonl"), &[]).unwrap_err();
    assert!(error.to_string().contains("no run_started"), "{error}");
}

#[test]
fn a_json_answer_is_written_as_its_text_and_reads_back_whatever_the_reader() {
    let plan = json!({"kind": "plan", "tasks": [{"id": "a", "args": {"n": 1.5}}]});
    let record = CallRecord {
        answer: Some(Answer::Json(crate::bus::cassette::RawJson::of(&plan))),
        ..model("plan", "aaaa", "")
    };
    let event = event(2, finished(1, "model", record.clone()));
    let text = serde_json::to_string(&*event).unwrap();
    assert!(
        text.contains(r#""json":"{\"kind\":\"plan\""#),
        "kept as a string of its text: {text}"
    );
    let read: Event = serde_json::from_str(&text).unwrap();
    let through_a_tree: Event =
        serde_json::from_value(serde_json::from_str(&text).unwrap()).unwrap();
    for read in [read, through_a_tree] {
        let EventKind::CallFinished {
            record: Some(got), ..
        } = read.kind
        else {
            panic!("{read:?}")
        };
        assert_eq!(*got, record);
    }
}
