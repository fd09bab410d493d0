//! A request the server refused because its prompt does not fit the
//! model's context, told by the server's own words: OpenAI's
//! `context_length_exceeded`, llama.cpp's `llama-server` ("request (10378
//! tokens) exceeds the available context size (8192 tokens)"),
//! llama-cpp-python's ("Requested tokens (2091) exceed context window of
//! 2048"), vLLM's ("maximum context length"). Nothing in the request's
//! model or address is wrong, so the stop says what to change instead.

use super::unsupported::Said;

/// The phrases by which servers say a prompt is past the context.
const PHRASES: [&str; 6] = [
    "context_length_exceeded",
    "exceed_context_size",
    "exceeds the available context size",
    "maximum context length",
    "exceed context window",
    "context length exceeded",
];

/// The server's words, when a refusal with `status` and `body` says the
/// prompt does not fit the context (unscrubbed: the caller shows them).
pub(super) fn context_overflow(status: u16, body: &[u8]) -> Option<String> {
    if !(400..=599).contains(&status) || matches!(status, 401 | 403 | 404 | 408 | 429) {
        return None;
    }
    let said = Said::of(body);
    let words = format!("{} {}", said.words, String::from_utf8_lossy(body)).to_ascii_lowercase();
    PHRASES
        .iter()
        .any(|phrase| words.contains(phrase))
        .then_some(said.message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(status: u16, body: serde_json::Value) -> Option<String> {
        context_overflow(status, body.to_string().as_bytes())
    }

    #[test]
    fn each_servers_words_for_a_prompt_past_the_context_are_read_as_such() {
        let llama_server = json!({"error": {"code": 400,
            "message": "request (10378 tokens) exceeds the available context size (8192 tokens)",
            "type": "exceed_context_size_error", "n_prompt_tokens": 10378, "n_ctx": 8192}});
        assert_eq!(
            read(400, llama_server).as_deref(),
            Some("request (10378 tokens) exceeds the available context size (8192 tokens)")
        );
        let openai = json!({"error": {"message": "This model's maximum context length is 128000 tokens. However, your messages resulted in 130011 tokens.",
            "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}});
        assert!(
            read(400, openai)
                .unwrap()
                .starts_with("This model's maximum context length")
        );
        let llama_cpp_python = json!({"error": {"message": "Requested tokens (2091) exceed context window of 2048",
            "type": "internal_server_error", "param": null, "code": null}});
        assert_eq!(
            read(500, llama_cpp_python).as_deref(),
            Some("Requested tokens (2091) exceed context window of 2048")
        );
    }

    #[test]
    fn other_refusals_and_statuses_are_not_an_overflow() {
        let model =
            json!({"error": {"message": "The model `gpt-9` does not exist", "param": "model"}});
        assert_eq!(read(400, model), None);
        let limited =
            json!({"error": {"message": "maximum context length reached for this key's rate"}});
        assert_eq!(
            read(429, limited),
            None,
            "a rate limit says nothing of the prompt"
        );
        assert_eq!(
            read(200, json!({"error": {"message": "maximum context length"}})),
            None
        );
    }
}
