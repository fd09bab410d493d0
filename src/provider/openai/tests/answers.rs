//! Answers read whole and streamed: function calls read back through the
//! request's contract (several calls, calls split across many chunks,
//! arguments that are not JSON), an answer cut at its limit and a refusal.

use super::contracts;
use super::streaming::{events, serving};
use super::*;
use crate::provider::contract::Finish;

fn call(index: u64, name: &str, arguments: &str) -> Value {
    json!({"index": index, "id": format!("call_{index}"), "type": "function",
           "function": {"name": name, "arguments": arguments}})
}

/// A whole answer carrying `message` and `finish_reason`.
fn whole(message: Value, finish_reason: &str) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5}}))
}

async fn ask_whole(response: ResponseTemplate, request: &ModelRequest) -> Completion {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(response)
        .mount(&server)
        .await;
    provider(&server, Duration::from_secs(5))
        .complete(request, None)
        .await
        .unwrap()
}

fn calls_message(calls: Vec<Value>) -> Value {
    json!({"role": "assistant", "content": null, "tool_calls": calls})
}

fn text_of(completion: &Completion) -> &str {
    match &completion.output {
        ModelOutput::Text(text) => text,
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn whole_function_calls_read_back_as_the_contracts_answer() {
    let verdict = contribution().keeping(contracts::verdict());
    let answer = ask_whole(
        whole(
            calls_message(vec![call(
                0,
                "submit_verdict",
                "{\"stance\": \"go\", \"reason\": null}",
            )]),
            "tool_calls",
        ),
        &verdict,
    )
    .await;
    assert_eq!(text_of(&answer), r#"{"stance":"go","reason":null}"#);
    assert_eq!(answer.finish, Finish::Stop);
    let members = contribution().keeping(contracts::members());
    let answer = ask_whole(
        whole(
            calls_message(vec![
                call(0, "billing", "{\"task\": \"refund A-1\"}"),
                call(1, "shipping", "{\"task\": \"track A-1\"}"),
            ]),
            "tool_calls",
        ),
        &members,
    )
    .await;
    let read: Value = serde_json::from_str(text_of(&answer)).unwrap();
    assert_eq!(
        read,
        json!({"call_members": [{"member": "billing", "task": "refund A-1"},
                                {"member": "shipping", "task": "track A-1"}]})
    );
}

#[tokio::test]
async fn calls_that_stand_for_no_answer_come_back_written_out() {
    let verdict = contribution().keeping(contracts::verdict());
    // Arguments that are not JSON keep their text, for the repair to quote.
    let answer = ask_whole(
        whole(
            calls_message(vec![call(0, "submit_verdict", "{\"stance\": \"go\"")]),
            "tool_calls",
        ),
        &verdict,
    )
    .await;
    let written: Value = serde_json::from_str(text_of(&answer)).unwrap();
    assert_eq!(
        written,
        json!([{"name": "submit_verdict", "arguments": "{\"stance\": \"go\""}])
    );
    // Two calls where the contract takes one.
    let answer = ask_whole(
        whole(
            calls_message(vec![
                call(0, "submit_verdict", "{\"stance\": \"go\"}"),
                call(1, "submit_verdict", "{\"stance\": \"no_go\"}"),
            ]),
            "tool_calls",
        ),
        &verdict,
    )
    .await;
    let written: Value = serde_json::from_str(text_of(&answer)).unwrap();
    assert_eq!(written.as_array().unwrap().len(), 2);
    assert_eq!(written[1]["arguments"], json!({"stance": "no_go"}));
    // Calls with no contract asked for: their text.
    let answer = ask_whole(
        whole(
            calls_message(vec![call(0, "lookup", &format!("{{\"key\": \"{KEY}\"}}"))]),
            "tool_calls",
        ),
        &contribution(),
    )
    .await;
    let written: Value = serde_json::from_str(text_of(&answer)).unwrap();
    assert_eq!(written[0]["name"], "lookup");
    assert_eq!(written[0]["arguments"]["key"], crate::secrets::MASK);
}

#[tokio::test]
async fn a_whole_answer_cut_at_its_limit_or_refused_says_so() {
    let cut = ask_whole(
        whole(
            json!({"role": "assistant", "content": "{\"stance\": \"go\", \"rea"}),
            "length",
        ),
        &contribution(),
    )
    .await;
    assert_eq!(cut.finish, Finish::Length);
    assert_eq!(text_of(&cut), "{\"stance\": \"go\", \"rea");
    let refused = ask_whole(
        whole(
            json!({"role": "assistant", "content": null, "refusal": format!("I can't help with that ({KEY}).")}),
            "stop",
        ),
        &contribution(),
    )
    .await;
    assert_eq!(
        refused.finish,
        Finish::Refused(format!(
            "I can't help with that ({}).",
            crate::secrets::MASK
        ))
    );
    assert_eq!(text_of(&refused), "");
    let empty_refusal = ask_whole(
        whole(
            json!({"role": "assistant", "content": "{}", "refusal": null}),
            "stop",
        ),
        &contribution(),
    )
    .await;
    assert_eq!(empty_refusal.finish, Finish::Stop);
}

fn delta_chunk(delta: Value, finish_reason: Option<&str>) -> Value {
    json!({"object": "chat.completion.chunk",
           "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]})
}

async fn ask_streamed(chunks: &[Value], request: &ModelRequest) -> Completion {
    let server = serving(events(chunks, true)).await;
    provider_with(&server, Duration::from_secs(5), true)
        .complete(request, None)
        .await
        .unwrap()
}

#[tokio::test]
async fn streamed_calls_split_across_many_chunks_are_put_back_together() {
    let billing = "{\"task\": \"refund order A-1\"}";
    let shipping = "{\"task\": \"track order A-1\"}";
    let mut chunks = vec![delta_chunk(
        json!({"role": "assistant", "content": null,
               "tool_calls": [{"index": 0, "id": "call_0", "type": "function",
                               "function": {"name": "billing", "arguments": ""}}]}),
        None,
    )];
    // The first call's arguments three characters a chunk, then the
    // second call's, interleaved with the first's last pieces.
    let pieces = |text: &str| -> Vec<String> {
        text.chars()
            .collect::<Vec<_>>()
            .chunks(3)
            .map(|c| c.iter().collect())
            .collect()
    };
    let first = pieces(billing);
    let (early, late) = first.split_at(first.len() - 2);
    for piece in early {
        chunks.push(delta_chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}),
            None,
        ));
    }
    chunks.push(delta_chunk(
        json!({"tool_calls": [{"index": 1, "id": "call_1", "type": "function",
                               "function": {"name": "shipping", "arguments": ""}}]}),
        None,
    ));
    for (i, piece) in pieces(shipping).iter().enumerate() {
        // The second call's name repeated in every piece, as some proxies send it.
        let mut calls =
            vec![json!({"index": 1, "function": {"name": "shipping", "arguments": piece}})];
        if let Some(rest) = late.get(i) {
            calls.push(json!({"index": 0, "function": {"arguments": rest}}));
        }
        chunks.push(delta_chunk(json!({"tool_calls": calls}), None));
    }
    chunks.push(delta_chunk(json!({}), Some("tool_calls")));
    let answer = ask_streamed(&chunks, &contribution().keeping(contracts::members())).await;
    let read: Value = serde_json::from_str(text_of(&answer)).unwrap();
    assert_eq!(
        read,
        json!({"call_members": [{"member": "billing", "task": "refund order A-1"},
                                {"member": "shipping", "task": "track order A-1"}]})
    );
    // Arguments that never become JSON come back written out.
    let broken = vec![
        delta_chunk(
            json!({"tool_calls": [call(0, "submit_verdict", "{\"stance\": ")]}),
            None,
        ),
        delta_chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": "\"go\","}}]}),
            None,
        ),
        delta_chunk(json!({}), Some("tool_calls")),
    ];
    let answer = ask_streamed(&broken, &contribution().keeping(contracts::verdict())).await;
    let written: Value = serde_json::from_str(text_of(&answer)).unwrap();
    assert_eq!(written[0]["arguments"], "{\"stance\": \"go\",");
}

#[tokio::test]
async fn a_streamed_answer_cut_at_its_limit_or_refused_says_so() {
    let cut = [
        delta_chunk(json!({"content": "{\"stance\": "}), None),
        delta_chunk(json!({"content": "\"go\", \"su"}), None),
        delta_chunk(json!({}), Some("length")),
    ];
    let answer = ask_streamed(&cut, &contribution()).await;
    assert_eq!(answer.finish, Finish::Length);
    assert_eq!(text_of(&answer), "{\"stance\": \"go\", \"su");
    let refused = [
        delta_chunk(
            json!({"role": "assistant", "content": null, "refusal": ""}),
            None,
        ),
        delta_chunk(json!({"refusal": "I'm sorry, "}), None),
        delta_chunk(json!({"refusal": "I can't help with that."}), None),
        delta_chunk(json!({}), Some("stop")),
    ];
    let answer = ask_streamed(&refused, &contribution()).await;
    assert_eq!(
        answer.finish,
        Finish::Refused("I'm sorry, I can't help with that.".into())
    );
    assert_eq!(text_of(&answer), "");
}

/// A stream of `pieces` one-word chunks to a request for at most 400
/// tokens, from a server that ignores the limit.
async fn ask_streamed_limited(pieces: usize) -> Completion {
    let mut chunks: Vec<Value> = (0..pieces)
        .map(|_| delta_chunk(json!({"content": "word "}), None))
        .collect();
    chunks.push(delta_chunk(json!({}), Some("stop")));
    let server = serving(events(&chunks, true)).await;
    let mut provider = provider_with(&server, Duration::from_secs(5), true);
    provider.config.asking.max_output_tokens = Some(400);
    provider.complete(&contribution(), None).await.unwrap()
}

#[tokio::test]
async fn a_stream_running_far_past_its_token_limit_is_cut_there_and_its_pieces_counted() {
    let cut = ask_streamed_limited(2000).await;
    assert_eq!(cut.finish, Finish::Length);
    // 400 and a quarter, and 16 to spare: the 517th piece is one too many.
    assert_eq!(text_of(&cut), "word ".repeat(517));
    let usage = cut.usage.unwrap();
    assert!(usage.estimated);
    assert_eq!(usage.output, 517);
    assert!(usage.input > 0, "the prompt estimated: {usage:?}");
    // Up to the margin the stream is read whole, as the endpoint ends it.
    let whole = ask_streamed_limited(516).await;
    assert_eq!(whole.finish, Finish::Stop);
    assert_eq!(text_of(&whole), "word ".repeat(516));
    // No usage came with it: its tokens are estimated from its text.
    let usage = whole.usage.unwrap();
    assert!(usage.estimated);
    assert_eq!(usage.output, (516 * 5_u64).div_ceil(4));
}
