//! The provider reading streamed answers: OpenAI's and LiteLLM's chunk
//! shapes, a few characters a chunk, the usage chunk, a stream cut short or
//! carrying a chunk that is no chunk, a server that ignores `stream`, the
//! body cap, and a key split across chunks.

use super::*;
use crate::provider::TextPiece;
use tokio::sync::mpsc;

/// A streaming provider for `server`, under `max_body_bytes`.
fn streaming(server: &MockServer, max_body_bytes: usize) -> OpenAiProvider {
    let config = OpenAiConfig {
        base_url: format!("{}/v1", server.uri()),
        model: "test-model".into(),
        timeout: Duration::from_secs(5),
        timeout_origin: crate::provider::openai::config::Origin::Default,
        key: Some(ApiKey::new(KEY.into())),
        max_body_bytes,
        stream: true,
        asking: AskingSettings::default(),
    };
    OpenAiProvider::new(config, Prompts::default()).unwrap()
}

/// A chunk carrying `content`, as OpenAI and LiteLLM send them.
fn chunk(content: &str) -> Value {
    json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "m",
           "choices": [{"index": 0, "delta": {"content": content}, "finish_reason": null}]})
}

fn finish() -> Value {
    json!({"object": "chat.completion.chunk",
           "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
}

/// OpenAI's last chunk: no choices, the usage.
fn openai_usage() -> Value {
    json!({"object": "chat.completion.chunk", "choices": [],
           "usage": {"prompt_tokens": 31, "completion_tokens": 12, "total_tokens": 43}})
}

/// LiteLLM's (1.106) last chunk: still one choice with an empty delta.
fn litellm_usage() -> Value {
    json!({"object": "chat.completion.chunk",
           "choices": [{"index": 0, "delta": {}}],
           "usage": {"prompt_tokens": 31, "completion_tokens": 12, "total_tokens": 43}})
}

/// `text` cut into chunks of `size` characters.
fn chunks_of(text: &str, size: usize) -> Vec<Value> {
    let chars: Vec<char> = text.chars().collect();
    chars
        .chunks(size)
        .map(|part| chunk(&part.iter().collect::<String>()))
        .collect()
}

/// The events of a stream, `[DONE]` last when `done`.
pub(super) fn events(chunks: &[Value], done: bool) -> String {
    let mut body: String = chunks.iter().map(|c| format!("data: {c}\n\n")).collect();
    if done {
        body.push_str("data: [DONE]\n\n");
    }
    body
}

pub(super) async fn serving(body: String) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(
            ResponseTemplate::new(200).set_body_raw(body.into_bytes(), "text/event-stream"),
        )
        .mount(&server)
        .await;
    server
}

/// Ask `provider`; the answer and every piece of text it handed over.
async fn ask(provider: &OpenAiProvider) -> (Result<Completion, OpenAiError>, Vec<TextPiece>) {
    let (sink, mut pieces) = mpsc::unbounded_channel();
    let answer = provider.complete(&contribution(), Some(sink)).await;
    let mut got = Vec::new();
    while let Ok(piece) = pieces.try_recv() {
        got.push(piece);
    }
    (answer, got)
}

fn joined(pieces: &[TextPiece]) -> String {
    pieces.iter().map(|p| p.text.as_str()).collect()
}

const ANSWER: &str = "{\"agent\": \"risk_analyst\", \"stance\": \"caution\", \"summary\": \"Fraud checks are not ready in EU — ship to US first.\", \"confidence\": 0.7, \"actions\": [\"Gate EU\"]}";

#[tokio::test]
async fn openai_and_litellm_streams_give_the_text_and_the_usage() {
    for last in [openai_usage(), litellm_usage()] {
        let mut chunks = vec![json!({"object": "chat.completion.chunk",
                                      "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]})];
        chunks.extend(chunks_of(ANSWER, 3));
        chunks.push(finish());
        chunks.push(last.clone());
        let server = serving(events(&chunks, true)).await;
        let (answer, pieces) = ask(&streaming(&server, http::DEFAULT_MAX_BODY_BYTES)).await;
        let answer = answer.unwrap();
        assert_eq!(answer.output, ModelOutput::Text(ANSWER.into()));
        assert_eq!(
            answer.usage,
            Some(TokenUsage {
                input: 31,
                output: 12,
                ..TokenUsage::default()
            }),
            "{last}"
        );
        assert_eq!(joined(&pieces), ANSWER, "the pieces are the text");
        assert!(pieces.len() > 10, "a piece as each chunk came");
        let sent: Value =
            serde_json::from_slice(&server.received_requests().await.unwrap()[0].body).unwrap();
        assert_eq!(sent["stream"], true);
        assert_eq!(sent["stream_options"], json!({"include_usage": true}));
    }
}

#[tokio::test]
async fn a_stream_that_finishes_without_done_or_usage_is_whole() {
    let mut chunks = chunks_of("Ship it.", 2);
    chunks.push(finish());
    let server = serving(events(&chunks, false)).await;
    let (answer, _) = ask(&streaming(&server, http::DEFAULT_MAX_BODY_BYTES)).await;
    let answer = answer.unwrap();
    assert_eq!(answer.output, ModelOutput::Text("Ship it.".into()));
    // No usage chunk: the tokens are estimated, and marked so.
    let usage = answer.usage.unwrap();
    assert!(usage.estimated, "{usage:?}");
    assert_eq!(usage.output, 2, "\"Ship it.\" is eight characters");
    assert!(usage.input > 0, "{usage:?}");
}

#[tokio::test]
async fn a_stream_cut_short_is_a_bad_response_with_the_text_so_far() {
    let cut = "{\"summary\": \"Fraud checks are";
    let server = serving(events(&chunks_of(cut, 4), false)).await;
    let (answer, pieces) = ask(&streaming(&server, http::DEFAULT_MAX_BODY_BYTES)).await;
    let error = answer.unwrap_err();
    let words = error.to_string();
    assert!(matches!(error, OpenAiError::BadResponse(_)), "{error:?}");
    assert!(words.contains("ended before the model finished"), "{words}");
    assert!(words.contains(cut), "the text so far: {words}");
    assert!(matches!(
        ProviderError::from(error),
        ProviderError::BadResponse(_)
    ));
    assert_eq!(
        joined(&pieces),
        cut,
        "every piece came out before the error"
    );
}

/// llama-cpp-python interrupts a stream when another request arrives: the
/// text so far, then `[DONE]`, with no finish reason and no usage.
#[tokio::test]
async fn a_stream_the_server_ends_early_with_done_is_interrupted_and_may_be_tried_again() {
    let cut = "{\"summary\": \"Fraud checks are";
    for (said, chunks) in [(cut, chunks_of(cut, 4)), ("", Vec::new())] {
        let server = serving(events(&chunks, true)).await;
        let (answer, _) = ask(&streaming(&server, http::DEFAULT_MAX_BODY_BYTES)).await;
        let error = answer.unwrap_err();
        let words = error.to_string();
        assert!(matches!(error, OpenAiError::Interrupted(_)), "{error:?}");
        assert!(
            words.contains("the server ended the stream before the model finished"),
            "{words}"
        );
        assert!(words.contains(said), "the text so far: {words}");
        assert!(
            matches!(
                ProviderError::from(error),
                ProviderError::Unavailable { .. }
            ),
            "tried again as an endpoint that failed is, not judged as an answer"
        );
    }
    // The usage chunk comes only after the finish: with it, `[DONE]` ends
    // a whole answer whose finish chunk a server left out.
    let mut chunks = chunks_of("Ship it.", 2);
    chunks.push(openai_usage());
    let server = serving(events(&chunks, true)).await;
    let (answer, _) = ask(&streaming(&server, http::DEFAULT_MAX_BODY_BYTES)).await;
    assert_eq!(answer.unwrap().output, ModelOutput::Text("Ship it.".into()));
}

#[tokio::test]
async fn a_chunk_that_is_no_chunk_is_a_bad_response_with_the_text_so_far() {
    let cases = [
        (
            "data: {\"choices\": [{\"delta\": {\"content\": \"ab",
            "not JSON",
        ),
        ("data: [1, 2]", "not a JSON object"),
        ("data: {\"choices\": {}}", "choices are not a list"),
        (
            "data: {\"choices\": [{\"delta\": {\"content\": 7}}]}",
            "not text",
        ),
        (
            "data: {\"error\": {\"message\": \"overloaded\", \"type\": \"server_error\"}}",
            "the stream reported an error: overloaded",
        ),
        (
            "event: error\ndata: {\"message\": \"quota\"}",
            "the stream reported an error",
        ),
    ];
    for (bad, says) in cases {
        let body = format!(
            "{}{bad}\n\n{}",
            events(&chunks_of("So far", 2), false),
            events(&[finish()], true)
        );
        let server = serving(body).await;
        let (answer, _) = ask(&streaming(&server, http::DEFAULT_MAX_BODY_BYTES)).await;
        let words = answer.unwrap_err().to_string();
        assert!(words.contains(says), "{bad}: {words}");
        assert!(words.contains("So far"), "{bad}: {words}");
    }
}

#[tokio::test]
async fn a_server_that_ignores_stream_is_read_as_one_answer() {
    // A JSON completion, under either content type.
    for content_type in ["application/json", "text/event-stream"] {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(200).set_body_raw(
                format!("\n  {}", completion("{\"stance\": \"go\"}")).into_bytes(),
                content_type,
            ))
            .mount(&server)
            .await;
        let (answer, pieces) = ask(&streaming(&server, http::DEFAULT_MAX_BODY_BYTES)).await;
        let answer = answer.unwrap();
        assert_eq!(
            answer.output,
            ModelOutput::Text("{\"stance\": \"go\"}".into())
        );
        assert_eq!(answer.usage.map(|u| u.output), Some(30));
        assert!(pieces.is_empty(), "{content_type}: nothing streamed");
    }
}

#[tokio::test]
async fn a_stream_past_the_cap_stops_at_it() {
    let long = "x".repeat(40_000);
    let server = serving(events(&chunks_of(&long, 64), true)).await;
    let (answer, _) = ask(&streaming(&server, 16 * 1024)).await;
    assert_eq!(
        answer.unwrap_err(),
        OpenAiError::TooLarge { limit: 16 * 1024 }
    );
}

#[tokio::test]
async fn a_key_split_across_chunks_never_leaves_the_provider() {
    let text = format!("{{\"summary\": \"echo {KEY} and {}\"}}", &KEY[5..17]);
    for size in [1, 3, 5, 7] {
        let mut chunks = chunks_of(&text, size);
        chunks.push(finish());
        let server = serving(events(&chunks, true)).await;
        let (answer, pieces) = ask(&streaming(&server, http::DEFAULT_MAX_BODY_BYTES)).await;
        let streamed = joined(&pieces);
        assert_no_key(&streamed);
        assert_eq!(
            streamed, "{\"summary\": \"echo [redacted] and [redacted]\"}",
            "chunks of {size}"
        );
        // The answer is scrubbed whole (as JSON, so it may be written
        // out again): the same document.
        let ModelOutput::Text(answer) = answer.unwrap().output else {
            panic!("a text answer")
        };
        assert_eq!(
            serde_json::from_str::<Value>(&answer).unwrap(),
            serde_json::from_str::<Value>(&streamed).unwrap(),
        );
    }
}

#[tokio::test]
async fn a_function_calls_arguments_are_handed_on_as_they_come_marked_and_scrubbed() {
    // Tool mode: the answer comes as a function call's arguments, a few
    // characters a chunk, a key split across them.
    let arguments = format!("{{\"summary\": \"echo {KEY} and {}\"}}", &KEY[5..17]);
    for size in [1, 4, 9] {
        let mut chunks = vec![
            json!({"object": "chat.completion.chunk", "choices": [{"index": 0,
            "delta": {"role": "assistant", "content": null, "tool_calls": [{"index": 0,
                "id": "call_0", "type": "function",
                "function": {"name": "submit_contribution", "arguments": ""}}]}}]}),
        ];
        let chars: Vec<char> = arguments.chars().collect();
        for part in chars.chunks(size) {
            let part: String = part.iter().collect();
            chunks.push(
                json!({"object": "chat.completion.chunk", "choices": [{"index": 0,
                "delta": {"tool_calls": [{"index": 0, "function": {"arguments": part}}]},
                "finish_reason": null}]}),
            );
        }
        chunks.push(json!({"object": "chat.completion.chunk",
                           "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}));
        let server = serving(events(&chunks, true)).await;
        let (answer, pieces) = ask(&streaming(&server, http::DEFAULT_MAX_BODY_BYTES)).await;
        answer.unwrap();
        assert!(
            pieces.iter().all(|p| p.arguments && !p.reasoning),
            "every piece is marked as arguments: {pieces:?}"
        );
        assert!(
            pieces.iter().filter(|p| p.new).count() >= chars.len() / size,
            "handed on as they came, not at the end: {pieces:?}"
        );
        let streamed = joined(&pieces);
        assert_no_key(&streamed);
        assert_eq!(
            streamed, "{\"summary\": \"echo [redacted] and [redacted]\"}",
            "chunks of {size}"
        );
    }
}
