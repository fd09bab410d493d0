//! The endpoint's cassette: which recorded call serves which, the misses
//! named, and a recorded answer served as the client got it.

use super::*;

fn recorded(n: u64) -> EndpointCall {
    EndpointCall {
        call: Some(n),
        api: "chat.completions".into(),
        model: Some("m".into()),
        status: Some(200),
        prompt_sha256: Some(format!("{n}").repeat(64)),
        answer: Some(RecordedAnswer::default()),
        ..EndpointCall::default()
    }
}

fn asked(number: u64, hash: &str, stream: bool) -> Asked<'_> {
    Asked {
        number,
        api: Api::ChatCompletions,
        model: Some("m"),
        stream,
        prompt_sha256: hash,
    }
}

#[test]
fn call_n_is_served_from_call_n_and_the_first_difference_is_named() {
    let one = "1".repeat(64);
    let cassette = EndpointCassette::new(vec![recorded(1), recorded(2)], MissPolicy::Stop);
    assert!(
        matches!(cassette.serve(&asked(1, &one, false)), Serve::Served(c) if c.call == Some(1))
    );
    let Serve::Miss { words, first } = cassette.serve(&asked(2, &one, true)) else {
        panic!("a stream where the recording has none misses");
    };
    assert!(first);
    assert_eq!(
        words,
        "the recording does not hold model call 2 (chat.completions m): stream: recorded false, now true"
    );
    let Serve::Miss { first, .. } = cassette.serve(&asked(2, &"2".repeat(64), false)) else {
        panic!("after a miss every call misses");
    };
    assert!(!first, "only the first miss ends the run");
    assert_eq!(cassette.served_and_live(), (1, 0));

    let live = EndpointCassette::new(vec![recorded(1)], MissPolicy::Live);
    assert!(matches!(live.serve(&asked(1, "ab", false)), Serve::Live));
    assert!(matches!(live.serve(&asked(2, "ab", false)), Serve::Live));
    assert_eq!(live.served_and_live(), (0, 2));

    let short = EndpointCassette::new(vec![recorded(1)], MissPolicy::Stop);
    let Serve::Miss { words, .. } = short.serve(&asked(2, "ab", false)) else {
        panic!("a call past the recording's misses");
    };
    assert_eq!(
        words,
        "the recording holds no model call 2 (chat.completions m): it made 1 call"
    );
    let mut lost = recorded(1);
    lost.answer = None;
    lost.answer_not_kept = Some("the stream is over 8388608 bytes".into());
    let lost = EndpointCassette::new(vec![lost], MissPolicy::Stop);
    let Serve::Miss { words, .. } = lost.serve(&asked(1, &one, false)) else {
        panic!("a call whose answer was not kept cannot be served");
    };
    assert!(
        words.ends_with("(the stream is over 8388608 bytes)"),
        "{words}"
    );
}

#[test]
fn a_fork_serves_the_calls_before_its_call_answers_it_from_its_file_and_sends_the_rest() {
    let (one, two) = ("1".repeat(64), "2".repeat(64));
    let edited = EditedAnswer::of(Api::ChatCompletions, serde_json::json!({"choices": []}));
    let fork = |edited: Option<EditedAnswer>| {
        let recorded = vec![recorded(1), recorded(2), recorded(3)];
        EndpointCassette::forking(recorded, ForkPoint { at: 2, edited })
    };
    let cassette = fork(Some(edited.clone()));
    assert_eq!(
        cassette.calls().len(),
        1,
        "only the calls before the fork are served"
    );
    assert!(matches!(
        cassette.serve(&asked(1, &one, false)),
        Serve::Served(_)
    ));
    // Call 2's request is the program's own: it is answered whatever it asks.
    assert!(matches!(cassette.serve(&asked(2, "ff", true)), Serve::Edited(e) if *e == edited));
    assert!(matches!(
        cassette.serve(&asked(3, "ff", false)),
        Serve::Live
    ));
    assert_eq!((cassette.served_and_live(), cassette.edited()), ((1, 1), 1));

    let live = fork(None);
    assert!(matches!(
        live.serve(&asked(1, &one, false)),
        Serve::Served(_)
    ));
    assert!(matches!(live.serve(&asked(2, &two, false)), Serve::Live));
    assert_eq!(live.served_and_live(), (1, 1));

    let changed = fork(Some(edited.clone()));
    let Serve::Miss { words, first } = changed.serve(&asked(1, &two, false)) else {
        panic!("a call before the fork that asks otherwise misses");
    };
    assert!(
        first && words.contains("does not hold model call 1"),
        "{words}"
    );
    assert!(
        matches!(
            changed.serve(&asked(2, &two, false)),
            Serve::Miss { first: false, .. }
        ),
        "after a miss nothing is answered from the file"
    );

    let other_api = fork(Some(EditedAnswer::of(
        Api::Responses,
        serde_json::json!({"output": []}),
    )));
    other_api.serve(&asked(1, &one, false));
    let Serve::Miss { words, .. } = other_api.serve(&asked(2, &two, false)) else {
        panic!("an answer of another API misses");
    };
    assert_eq!(
        words,
        "model call 2 asks chat.completions, and edited.json holds an answer of responses"
    );
}

/// What a served stream's client reads: each piece, or the break.
async fn pieces(served: Served) -> Vec<Result<Vec<u8>, String>> {
    let ServedBody::Stream(mut body) = served.body else {
        panic!("a stream is served as one");
    };
    let mut read = Vec::new();
    while let Some(piece) = body.recv().await {
        read.push(piece);
    }
    read
}

#[tokio::test]
async fn a_recorded_answer_and_the_model_list_are_served_as_the_client_got_them() {
    let mut whole = recorded(1);
    whole.status = Some(400);
    whole.answer = Some(RecordedAnswer {
        content_type: "application/json".into(),
        body: Some(r#"{"error":{"message":"no"}}"#.into()),
        events: Vec::new(),
    });
    let served = answer_of(&whole);
    assert_eq!(
        (served.status, served.content_type.as_str()),
        (400, "application/json")
    );
    assert!(matches!(&served.body, ServedBody::Whole(b) if b == br#"{"error":{"message":"no"}}"#));

    let mut cut = recorded(2);
    cut.stream = true;
    cut.error = Some("the upstream's stream ended before it said it was done".into());
    cut.answer = Some(RecordedAnswer {
        content_type: "text/event-stream".into(),
        body: None,
        events: vec!["data: {\"a\":1}\n\n".into(), "data: {\"b\":2}\n\n".into()],
    });
    let served = answer_of(&cut);
    assert_eq!(served.status, 200);
    assert_eq!(
        pieces(served).await,
        [
            Ok(b"data: {\"a\":1}\n\n".to_vec()),
            Ok(b"data: {\"b\":2}\n\n".to_vec()),
            Err("the upstream's stream ended before it said it was done".to_string()),
        ],
        "each event a piece, and broken where the recorded stream was cut"
    );

    let mut dated = recorded(2);
    dated.answered_by = Some("m-2026-01-01".into());
    let models = models_of(&EndpointCassette::new(
        vec![recorded(1), dated],
        MissPolicy::Stop,
    ));
    let ServedBody::Whole(listed) = models.body else {
        panic!("the model list is whole");
    };
    let listed: serde_json::Value = serde_json::from_slice(&listed).unwrap();
    let ids: Vec<&str> = listed["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        ["m", "m-2026-01-01"],
        "each model named once: {listed}"
    );

    let mut unreachable = recorded(3);
    unreachable.status = None;
    unreachable.answer = None;
    unreachable.error = Some("could not reach the upstream: connection refused".into());
    let served = answer_of(&unreachable);
    assert_eq!(served.status, 502);
    let ServedBody::Whole(body) = served.body else {
        panic!("a refusal is whole");
    };
    assert!(
        String::from_utf8_lossy(&body).contains("could not reach the upstream"),
        "{}",
        String::from_utf8_lossy(&body)
    );
}
