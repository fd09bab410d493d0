//! A chat completion read as it streams (`"stream": true`): server-sent
//! events of `chat.completion.chunk`s, each chunk's text handed on as it
//! comes (scrubbed, a secret split across chunks included), the usage
//! taken from the chunk that carries it (OpenAI's with `choices: []`,
//! LiteLLM's with `choices: [{"index": 0, "delta": {}}]`), to `[DONE]`.
//! Reasoning text (`delta.reasoning_content` or `delta.reasoning`) is
//! handed on marked as such and kept apart from the answer; so are a
//! function call's arguments as they come (tool mode), which the answer
//! is read from once the calls are whole.
//! A stream that breaks off before `[DONE]` or a finish, or a chunk that is
//! no chunk, is a bad response quoting the text so far; a `[DONE]` with no
//! finish reason and no usage before it is an answer the server
//! interrupted, which may go through on another try. A server that
//! ignores `stream` and sends one JSON completion (whatever its content
//! type says) is read as the non-streaming path reads it.
//! A stream that runs on well past the token limit the request sent is
//! cut there: the endpoint took the limit and ignored it (llama-cpp-python
//! does so with `max_completion_tokens`), and the model would otherwise
//! write until the call's timeout. The answer so far is then a cut one,
//! its usage the pieces counted, marked as estimated.

use super::{OpenAiError, parse_completion};
use crate::provider::contract::Contract;
use crate::provider::sse::SseReader;
use crate::provider::{Completion, TextSink};
use crate::secrets;
use futures_util::{Stream, StreamExt};
use reading::Reading;
pub(crate) use reading::pieces_past;

mod reading;

/// The first byte of a body that is one JSON document rather than events.
const DOCUMENT_START: u8 = b'{';

/// Why reading a stream failed, before it becomes the provider's error.
#[derive(Debug)]
pub(super) enum StreamFailure {
    /// The body could not be read on: a timeout, or another transport error.
    Transport(reqwest::Error),
    /// Past the body cap.
    TooLarge { limit: usize },
    /// The stream broke off or carried something that is no chunk.
    Broken(String),
    /// The server ended the stream (`[DONE]`) before the model finished.
    Interrupted(String),
    /// The call's timeout ran out after `pieces` pieces of text had come;
    /// `so_far` says the text so far.
    TimedOut { pieces: u64, so_far: String },
}

/// Read the body of a successful response as a stream of chunks, handing
/// the text to `sink` as it arrives; `limit` caps the body and each event.
/// The request asked for `contract`, and for at most `tokens` tokens.
pub(super) async fn read<S, B>(
    mut body: S,
    limit: usize,
    sink: Option<TextSink>,
    contract: Option<&Contract>,
    tokens: Option<u64>,
) -> Result<Completion, StreamFailure>
where
    S: Stream<Item = Result<B, reqwest::Error>> + Unpin,
    B: AsRef<[u8]>,
{
    let mut reading = Reading::new(sink, tokens.map(pieces_past));
    let mut sse = SseReader::new(limit, limit);
    let mut opening = Vec::new();
    let mut sniffed = false;
    while let Some(bytes) = body.next().await {
        let bytes = bytes.map_err(|e| reading.transport(e))?;
        let bytes = bytes.as_ref();
        let events = if sniffed {
            sse.feed(bytes)
        } else {
            // A server that ignores `stream` answers with one JSON
            // document, sometimes under an event-stream content type.
            opening.extend_from_slice(bytes);
            match opening.iter().find(|b| !b.is_ascii_whitespace()) {
                None if opening.len() > limit => return Err(StreamFailure::TooLarge { limit }),
                None => continue,
                Some(&DOCUMENT_START) => {
                    return whole_document(opening, body, limit, contract).await;
                }
                Some(_) => {
                    sniffed = true;
                    sse.feed(&std::mem::take(&mut opening))
                }
            }
        };
        let events = events.map_err(|e| reading.sse_failure(e))?;
        if reading.take_all(events)? {
            return Ok(reading.end(contract));
        }
    }
    let last = sse.finish().map_err(|e| reading.sse_failure(e))?;
    if reading.take_all(last.into_iter().collect())? || reading.finished {
        return Ok(reading.end(contract));
    }
    Err(reading.broken("the stream ended before the model finished"))
}

/// The rest of a body that turned out to be one JSON completion.
async fn whole_document<S, B>(
    mut document: Vec<u8>,
    mut body: S,
    limit: usize,
    contract: Option<&Contract>,
) -> Result<Completion, StreamFailure>
where
    S: Stream<Item = Result<B, reqwest::Error>> + Unpin,
    B: AsRef<[u8]>,
{
    while let Some(bytes) = body.next().await {
        let bytes = bytes.map_err(StreamFailure::Transport)?;
        if document.len() + bytes.as_ref().len() > limit {
            return Err(StreamFailure::TooLarge { limit });
        }
        document.extend_from_slice(bytes.as_ref());
    }
    if document.len() > limit {
        return Err(StreamFailure::TooLarge { limit });
    }
    parse_completion(&document, contract).map_err(|e| match e {
        OpenAiError::BadResponse(words) => StreamFailure::Broken(words),
        other => StreamFailure::Broken(other.to_string()),
    })
}

/// An endpoint's words, as a message may quote them.
fn quoted(text: &str) -> String {
    let text: String = text.chars().take(300).collect();
    crate::sanitize::clean(&secrets::scrub_model_text(&text)).into_owned()
}
