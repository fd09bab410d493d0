//! A streamed answer on its way to the client: each piece the upstream
//! sends is read for its usage (Chat Completions' last chunk, the
//! Responses API's `response.completed`) as it passes. It is passed on as
//! it came, unless the usage chunk was Conclave's to ask for: then each
//! event goes on the moment it is whole, that chunk held back. Only the
//! unfinished tail of an event is ever held, and at most [`MAX_EVENT`]
//! bytes of it.

use super::Api;
use super::prepare::{model_in, usage_in};
use crate::bus::TokenUsage;
use serde_json::Value;

/// The longest event read for its usage; a longer one is passed on
/// unread (an answer's text piece is a few bytes, its usage chunk a few
/// hundred).
const MAX_EVENT: usize = 1 << 20;
#[cfg(test)]
pub(super) const MAX_EVENT_FOR_TESTS: usize = MAX_EVENT;

/// One streamed answer's reading.
#[derive(Debug)]
pub(crate) struct StreamMeter {
    api: Api,
    strip_usage: bool,
    /// The unfinished event so far.
    pub(super) tail: Vec<u8>,
    /// The tail outgrew [`MAX_EVENT`]: the rest of its event is passed
    /// on unread.
    skipping: bool,
    usage: Option<TokenUsage>,
    model: Option<String>,
    done: bool,
}

impl StreamMeter {
    pub(crate) fn new(api: Api, strip_usage: bool) -> Self {
        StreamMeter {
            api,
            strip_usage,
            tail: Vec::new(),
            skipping: false,
            usage: None,
            model: None,
            done: false,
        }
    }

    /// Read `piece`, as the upstream sent it: what to pass on now.
    pub(crate) fn feed(&mut self, piece: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        if !self.strip_usage {
            out.extend_from_slice(piece);
        }
        let mut rest = piece;
        while !rest.is_empty() {
            if self.skipping {
                let Some(end) = event_end(rest) else {
                    if self.strip_usage {
                        out.extend_from_slice(rest);
                    }
                    return out;
                };
                if self.strip_usage {
                    out.extend_from_slice(&rest[..end]);
                }
                rest = &rest[end..];
                self.skipping = false;
                continue;
            }
            let before = self.tail.len();
            self.tail.extend_from_slice(rest);
            // The end of an event may straddle the pieces: look from just
            // before where this piece began.
            let from = before.saturating_sub(3);
            let Some(end) = event_end(&self.tail[from..]).map(|end| end + from) else {
                if self.tail.len() > MAX_EVENT {
                    if self.strip_usage {
                        out.append(&mut self.tail);
                    }
                    self.tail.clear();
                    self.skipping = true;
                }
                return out;
            };
            let taken = end - before;
            let event: Vec<u8> = self.tail.drain(..end).collect();
            self.tail.clear();
            rest = &rest[taken..];
            if self.read(&event) && self.strip_usage {
                out.extend_from_slice(&event);
            }
        }
        out
    }

    /// The stream ended: what is left to pass on (an event without its
    /// blank line, read too).
    pub(crate) fn finish(&mut self) -> Vec<u8> {
        let tail = std::mem::take(&mut self.tail);
        if tail.is_empty() || self.skipping {
            return Vec::new();
        }
        let keep = self.read(&tail);
        if self.strip_usage && keep {
            tail
        } else {
            Vec::new()
        }
    }

    /// The usage the stream reported, if it did.
    pub(crate) fn usage(&self) -> Option<TokenUsage> {
        self.usage
    }

    /// The model the stream named.
    pub(crate) fn model(&self) -> Option<&str> {
        self.model.as_deref()
    }

    /// Whether the stream said it was done (`[DONE]`, or the Responses
    /// API's `response.completed`).
    pub(crate) fn done(&self) -> bool {
        self.done
    }

    /// Read one whole event: whether the client is shown it.
    fn read(&mut self, event: &[u8]) -> bool {
        let Some(data) = data_of(event) else {
            return true;
        };
        if data.trim() == "[DONE]" {
            self.done = true;
            return true;
        }
        let Ok(value) = serde_json::from_str::<Value>(&data) else {
            return true;
        };
        if self.model.is_none() {
            self.model = model_in(&value);
        }
        if value.get("type").and_then(Value::as_str) == Some("response.completed") {
            self.done = true;
        }
        let Some(usage) = usage_in(self.api, &value) else {
            return true;
        };
        self.usage = Some(usage);
        // Only a chunk that is nothing but the usage is held back: one
        // that also carries a choice goes on whole.
        let only_usage = value
            .get("choices")
            .and_then(Value::as_array)
            .is_some_and(Vec::is_empty);
        !(self.strip_usage && self.api == Api::ChatCompletions && only_usage)
    }
}

/// Where the first event of `bytes` ends, after its blank line.
pub(super) fn event_end(bytes: &[u8]) -> Option<usize> {
    let lf = find(bytes, b"\n\n").map(|at| at + 2);
    let crlf = find(bytes, b"\r\n\r\n").map(|at| at + 4);
    match (lf, crlf) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

fn find(bytes: &[u8], needle: &[u8]) -> Option<usize> {
    bytes.windows(needle.len()).position(|w| w == needle)
}

/// The `data:` lines of an event, joined as SSE joins them.
fn data_of(event: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(event).ok()?;
    let lines: Vec<&str> = text
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .map(|data| data.strip_prefix(' ').unwrap_or(data))
        .collect();
    (!lines.is_empty()).then(|| lines.join("\n"))
}
