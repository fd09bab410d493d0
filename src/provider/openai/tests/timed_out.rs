//! A stream whose call timed out while the model was still writing: the
//! words say it was writing, how much had come and quote it (not "no
//! answer"), and its tokens are counted, estimated; a stream that brought
//! nothing before its timeout is still no answer.

use super::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// A server on loopback that answers one request with the head of an
/// event stream and `chunks`, then writes nothing more and keeps the
/// connection open, as a model that is still generating.
async fn stalling(chunks: Vec<Value>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        let mut request = vec![0_u8; 65_536];
        let _ = socket.read(&mut request).await;
        let mut head = String::from(
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n\r\n",
        );
        for chunk in chunks {
            head.push_str(&format!("data: {chunk}\n\n"));
        }
        socket.write_all(head.as_bytes()).await.unwrap();
        socket.flush().await.unwrap();
        std::future::pending::<()>().await;
    });
    format!("http://{address}/v1")
}

fn provider_at(base_url: String) -> OpenAiProvider {
    let config = OpenAiConfig {
        base_url,
        model: "test-model".into(),
        timeout: Duration::from_secs(6),
        timeout_origin: crate::provider::openai::config::Origin::Default,
        key: Some(ApiKey::new(KEY.into())),
        max_body_bytes: 1 << 20,
        stream: true,
        asking: AskingSettings::default(),
    };
    OpenAiProvider::new(config, Prompts::default()).unwrap()
}

fn piece(content: &str) -> Value {
    json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "m",
           "choices": [{"index": 0, "delta": {"content": content}, "finish_reason": null}]})
}

#[tokio::test(start_paused = true)]
async fn a_timeout_after_text_keeps_the_text_and_says_the_model_was_writing() {
    let pieces = ["{\"agent\": ", "\"risk_analyst\", ", "\"stance\": \"cau"];
    let url = stalling(pieces.iter().map(|p| piece(p)).collect()).await;
    let provider = provider_at(url);
    let error = provider.complete(&contribution(), None).await.unwrap_err();
    let OpenAiError::TimedOutWriting { words, spent } = &error else {
        panic!("{error:?}");
    };
    assert!(
        words.starts_with(
            "the model was still writing when the timeout per call ran out after 6 s (the default): 3 pieces had come, not a whole answer; the text so far (40 characters): {\"agent\": \"risk_analyst\", \"stance\": \"cau"
        ),
        "{words}"
    );
    assert!(!words.contains("gave no answer"), "{words}");
    assert!(
        words.ends_with("raise it with --call-timeout SECONDS"),
        "{words}"
    );
    // The endpoint read the whole prompt and wrote three pieces: both
    // counted, estimated.
    assert_eq!(spent.output, 3);
    assert!(spent.input > 50, "{spent:?}");
    assert!(spent.estimated);
    // On its way to the gateway: a timeout (retried as one, stopping
    // `llm_timeout`) with its words and its tokens.
    let error = ProviderError::from(error);
    assert_eq!(error.spent().map(|s| s.usage.output), Some(3));
    assert!(error.to_string().contains("still writing"), "{error}");
}

#[tokio::test(start_paused = true)]
async fn a_timeout_before_any_text_is_still_no_answer() {
    let url = stalling(Vec::new()).await;
    let provider = provider_at(url);
    let error = provider.complete(&contribution(), None).await.unwrap_err();
    assert_eq!(error, OpenAiError::Timeout(Duration::from_secs(6)));
    assert_eq!(ProviderError::from(error), ProviderError::Timeout);
}
