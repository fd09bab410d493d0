//! What a reasoning model sends besides its answer: its reasoning text,
//! whole (`message.reasoning_content` / `message.reasoning`) or streamed
//! (`delta.reasoning_content` / `delta.reasoning`), and the cached and
//! reasoning parts of its token counts.

use super::*;
use crate::provider::TextPiece;
use tokio::sync::mpsc;

fn provider_of(server: &MockServer, stream: bool) -> OpenAiProvider {
    provider_with(server, Duration::from_secs(5), stream)
}

async fn answering(body: ResponseTemplate) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(body)
        .mount(&server)
        .await;
    server
}

/// Ask; the answer and every piece of text handed over.
async fn ask(provider: &OpenAiProvider) -> (Completion, Vec<TextPiece>) {
    let (sink, mut pieces) = mpsc::unbounded_channel();
    let answer = provider
        .complete(&contribution(), Some(sink))
        .await
        .unwrap();
    let mut got = Vec::new();
    while let Ok(piece) = pieces.try_recv() {
        got.push(piece);
    }
    (answer, got)
}

const ANSWER: &str = "{\"stance\": \"go\"}";

#[tokio::test]
async fn a_whole_answer_keeps_its_reasoning_apart_and_scrubbed() {
    for key in ["reasoning_content", "reasoning"] {
        let mut message = json!({"role": "assistant", "content": ANSWER});
        message[key] = json!(format!("The key is {KEY}; fraud looks fine."));
        let server = answering(ResponseTemplate::new(200).set_body_json(json!({
            "choices": [{"message": message, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 120, "completion_tokens": 30}
        })))
        .await;
        let answer = provider_of(&server, false)
            .complete(&contribution(), None)
            .await
            .unwrap();
        assert_eq!(answer.output, ModelOutput::Text(ANSWER.into()), "{key}");
        let reasoning = answer.reasoning.expect(key);
        assert!(reasoning.ends_with("; fraud looks fine."), "{reasoning}");
        assert!(!reasoning.contains(KEY), "scrubbed: {reasoning}");
    }
    // No reasoning, empty reasoning, or something that is not text: none.
    for message in [
        json!({"role": "assistant", "content": ANSWER}),
        json!({"role": "assistant", "content": ANSWER, "reasoning_content": ""}),
        json!({"role": "assistant", "content": ANSWER, "reasoning": {"effort": "low"}}),
    ] {
        let server = answering(
            ResponseTemplate::new(200).set_body_json(json!({"choices": [{"message": message}]})),
        )
        .await;
        let answer = provider_of(&server, false)
            .complete(&contribution(), None)
            .await
            .unwrap();
        assert_eq!(answer.reasoning, None);
        assert_eq!(answer.output, ModelOutput::Text(ANSWER.into()));
    }
}

#[test]
fn cached_and_reasoning_tokens_are_read_as_parts_of_what_they_are_in() {
    let usage = usage_of(&json!({
        "prompt_tokens": 2006, "completion_tokens": 300, "total_tokens": 2306,
        "prompt_tokens_details": {"cached_tokens": 1920, "audio_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": 192, "audio_tokens": 0}
    }));
    assert_eq!(
        usage,
        TokenUsage {
            input: 2006,
            output: 300,
            cached: 1920,
            reasoning: 192,
            ..TokenUsage::default()
        }
    );
    // A part larger than its whole is held at the whole; absent, null or
    // garbage details read as none.
    let held = usage_of(&json!({
        "prompt_tokens": 10, "completion_tokens": 5,
        "prompt_tokens_details": {"cached_tokens": 64},
        "completion_tokens_details": {"reasoning_tokens": 9}
    }));
    assert_eq!((held.cached, held.reasoning), (10, 5));
    for details in [
        json!({}),
        json!({"prompt_tokens_details": null, "completion_tokens_details": null}),
        json!({"prompt_tokens_details": {"cached_tokens": "many"},
               "completion_tokens_details": {"reasoning_tokens": -3}}),
        json!({"prompt_tokens_details": [1920]}),
    ] {
        let mut usage = details.clone();
        usage["prompt_tokens"] = json!(100);
        usage["completion_tokens"] = json!(20);
        let read = usage_of(&usage);
        assert_eq!((read.input, read.output), (100, 20), "{details}");
        assert_eq!((read.cached, read.reasoning), (0, 0), "{details}");
    }
}

/// A chunk whose delta is `delta`.
fn chunk(delta: Value) -> String {
    let chunk = json!({"object": "chat.completion.chunk",
                       "choices": [{"index": 0, "delta": delta, "finish_reason": null}]});
    format!("data: {chunk}\n\n")
}

#[tokio::test]
async fn streamed_reasoning_is_handed_on_marked_and_kept_apart_from_the_answer() {
    for key in ["reasoning_content", "reasoning"] {
        let thinking = [
            "Fraud ",
            "checks are ",
            "ready; the key ",
            KEY,
            " is not needed.",
        ];
        let mut body = String::new();
        for piece in thinking {
            body.push_str(&chunk(
                json!({"role": "assistant", key: piece, "content": null}),
            ));
        }
        for piece in ["{\"stance\"", ": \"go\"}"] {
            body.push_str(&chunk(json!({"content": piece, key: null})));
        }
        body.push_str(
            "data: {\"choices\": [{\"index\": 0, \"delta\": {}, \"finish_reason\": \"stop\"}]}\n\n",
        );
        body.push_str("data: {\"choices\": [], \"usage\": {\"prompt_tokens\": 50, \"completion_tokens\": 40, \"completion_tokens_details\": {\"reasoning_tokens\": 33}}}\n\n");
        body.push_str("data: [DONE]\n\n");
        let server =
            answering(ResponseTemplate::new(200).set_body_raw(body, "text/event-stream")).await;
        let (answer, pieces) = ask(&provider_of(&server, true)).await;
        assert_eq!(answer.output, ModelOutput::Text(ANSWER.into()), "{key}");
        let reasoning = answer.reasoning.expect(key);
        assert_eq!(
            reasoning,
            "Fraud checks are ready; the key [redacted] is not needed."
        );
        assert_eq!(
            answer.usage.map(|u| (u.output, u.reasoning)),
            Some((40, 33))
        );
        let of = |reasoning: bool| -> String {
            pieces
                .iter()
                .filter(|p| p.reasoning == reasoning)
                .map(|p| p.text.as_str())
                .collect()
        };
        assert_eq!(
            of(true),
            reasoning,
            "the reasoning pieces are the reasoning"
        );
        assert_eq!(
            of(false),
            ANSWER,
            "the answer's pieces are the answer alone"
        );
        let first_answer = pieces.iter().position(|p| !p.reasoning).unwrap();
        assert!(
            pieces[first_answer..].iter().all(|p| !p.reasoning),
            "all the reasoning went out before the answer: {pieces:?}"
        );
    }
}
