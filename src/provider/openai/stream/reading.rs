//! What one stream has given so far: the answer's text, its reasoning
//! and its function calls' arguments, each handed on as it comes through
//! a scrubber of its own, the usage, whether the model finished, and how
//! many pieces came, against the token limit the request sent.

use super::super::answer::Extras;
use super::super::{reasoning_of, usage_of};
use super::{StreamFailure, quoted};
use crate::bus::TokenUsage;
use crate::provider::contract::Contract;
use crate::provider::sse::{SseError, SseEvent};
use crate::provider::{Completion, ModelOutput, TextPiece, TextSink};
use crate::secrets::{self, StreamScrubber};
use serde_json::Value;

/// How much of the text so far a failed stream's message quotes.
const QUOTED_CHARS: usize = 2000;

/// How many pieces of text a stream asked for at most `tokens` tokens may
/// bring before the limit is known to be ignored. A server sends a token
/// a chunk at most, so an honoured limit never gets past `tokens`; the
/// margin spares a server that splits a token's bytes over two chunks.
pub(crate) fn pieces_past(tokens: u64) -> u64 {
    tokens.saturating_add(tokens / 4).saturating_add(16)
}

/// What one stream has given so far.
pub(super) struct Reading {
    sink: Option<TextSink>,
    scrubber: StreamScrubber,
    /// The model's text as it came, not yet scrubbed whole.
    text: String,
    /// Its reasoning text, the same way, with a scrubber of its own: the
    /// two are separate texts, a secret is split within one of them.
    reasoning: String,
    reasoning_scrubber: StreamScrubber,
    /// The scrubber of the function calls' arguments as they come, a text
    /// of their own too.
    arguments_scrubber: StreamScrubber,
    usage: Option<TokenUsage>,
    /// A chunk said why the model stopped (`finish_reason`).
    pub(super) finished: bool,
    /// Function calls, a refusal and a cut, as they came.
    extras: Extras,
    /// Deltas that brought text: content, reasoning or arguments.
    pieces: u64,
    /// Past this many pieces the request's token limit is ignored.
    past: Option<u64>,
}

impl Reading {
    pub(super) fn new(sink: Option<TextSink>, past: Option<u64>) -> Self {
        Reading {
            sink,
            scrubber: StreamScrubber::default(),
            text: String::new(),
            reasoning: String::new(),
            reasoning_scrubber: StreamScrubber::default(),
            arguments_scrubber: StreamScrubber::default(),
            usage: None,
            finished: false,
            extras: Extras::default(),
            pieces: 0,
            past,
        }
    }

    /// Whether the stream has run past its token limit.
    fn over(&self) -> bool {
        self.past.is_some_and(|past| self.pieces > past)
    }

    /// The answer: whole, or cut where it ran past its limit.
    pub(super) fn end(self, contract: Option<&Contract>) -> Completion {
        if self.over() {
            self.cut_off(contract)
        } else {
            self.done(contract)
        }
    }

    /// Take the events read; whether the stream is done (`[DONE]`) or
    /// read no further (past its limit).
    pub(super) fn take_all(&mut self, events: Vec<SseEvent>) -> Result<bool, StreamFailure> {
        for event in events {
            if self.take(event)? || self.over() {
                return Ok(true);
            }
        }
        Ok(false)
    }

    fn take(&mut self, event: SseEvent) -> Result<bool, StreamFailure> {
        let data = event.data.trim();
        if data == "[DONE]" {
            // `[DONE]` before any chunk said why the model stopped (or
            // brought the usage that comes after it) is a server ending
            // the answer early: llama-cpp-python does so to a stream
            // whenever another request arrives. What came is not the
            // model's answer; a stream cut for running past its limit is
            // Conclave's own cut, and whole as far as it goes.
            if !self.finished && self.usage.is_none() && !self.over() {
                return Err(self.interrupted());
            }
            return Ok(true);
        }
        if event.name == "error" {
            return Err(self.broken(&format!("the stream reported an error: {}", quoted(data))));
        }
        if data.is_empty() {
            return Ok(false);
        }
        let chunk: Value = serde_json::from_str(data)
            .map_err(|e| self.broken(&format!("a chunk of the stream is not JSON ({e})")))?;
        let Some(fields) = chunk.as_object() else {
            return Err(self.broken("a chunk of the stream is not a JSON object"));
        };
        if let Some(error) = fields.get("error").filter(|e| !e.is_null()) {
            let words = error
                .get("message")
                .and_then(Value::as_str)
                .map_or_else(|| error.to_string(), str::to_string);
            return Err(self.broken(&format!("the stream reported an error: {}", quoted(&words))));
        }
        if let Some(usage) = fields.get("usage").filter(|u| u.is_object()) {
            self.usage = Some(usage_of(usage));
        }
        let choice = match fields.get("choices") {
            None | Some(Value::Null) => return Ok(false),
            Some(Value::Array(choices)) => match choices.first() {
                None => return Ok(false),
                Some(choice) => choice,
            },
            Some(_) => return Err(self.broken("a chunk's choices are not a list")),
        };
        self.apply_choice(choice)?;
        Ok(false)
    }

    /// A chunk's first choice: its delta's text taken, and its
    /// `finish_reason` noted.
    fn apply_choice(&mut self, choice: &Value) -> Result<(), StreamFailure> {
        if let Some(delta) = choice.get("delta") {
            self.add_reasoning(delta);
        }
        match choice.pointer("/delta/content") {
            None | Some(Value::Null) => {}
            Some(Value::String(content)) => self.add(content),
            Some(_) => return Err(self.broken("a chunk's delta content is not text")),
        }
        let arguments = self.extras.take_delta(choice);
        self.add_arguments(&arguments);
        if choice
            .get("finish_reason")
            .is_some_and(|reason| !reason.is_null())
        {
            self.finished = true;
        }
        Ok(())
    }

    /// New text from the model: kept, and handed on as far as the
    /// scrubber lets it out.
    fn add(&mut self, content: &str) {
        if content.is_empty() {
            return;
        }
        self.pieces += 1;
        // The reasoning is over when the answer begins: what its scrubber
        // holds goes out before the answer, not after it.
        self.let_out_reasoning();
        self.text.push_str(content);
        let text = self.scrubber.push(content);
        self.send(TextPiece {
            text,
            new: true,
            reasoning: false,
            arguments: false,
        });
    }

    /// Function call arguments as they came in a delta: handed on marked
    /// as such, as far as their scrubber lets them out (the calls
    /// themselves are gathered by `extras`).
    fn add_arguments(&mut self, arguments: &str) {
        if arguments.is_empty() {
            return;
        }
        self.pieces += 1;
        self.let_out_reasoning();
        let text = self.arguments_scrubber.push(arguments);
        self.send(TextPiece {
            text,
            new: true,
            reasoning: false,
            arguments: true,
        });
    }

    /// A delta's reasoning text, if it brings some: kept apart from the
    /// answer and handed on marked as reasoning.
    fn add_reasoning(&mut self, delta: &Value) {
        let Some(piece) = reasoning_of(delta).filter(|piece| !piece.is_empty()) else {
            return;
        };
        self.pieces += 1;
        self.reasoning.push_str(piece);
        let text = self.reasoning_scrubber.push(piece);
        self.send(TextPiece {
            text,
            new: true,
            reasoning: true,
            arguments: false,
        });
    }

    fn send(&self, piece: TextPiece) {
        if let Some(sink) = &self.sink {
            // A closed sink only means nobody shows the text any more.
            let _ = sink.send(piece);
        }
    }

    /// Let out what the reasoning's scrubber still holds.
    fn let_out_reasoning(&mut self) {
        let reasoning = self.reasoning_scrubber.finish();
        if !reasoning.is_empty() {
            self.send(TextPiece {
                text: reasoning,
                new: false,
                reasoning: true,
                arguments: false,
            });
        }
    }

    /// Let out what the scrubber still holds: the text is complete, or
    /// broke off where it is.
    fn flush(&mut self) {
        self.let_out_reasoning();
        for arguments in [false, true] {
            let scrubber = if arguments {
                &mut self.arguments_scrubber
            } else {
                &mut self.scrubber
            };
            let text = scrubber.finish();
            if !text.is_empty() {
                self.send(TextPiece {
                    text,
                    new: false,
                    reasoning: false,
                    arguments,
                });
            }
        }
    }

    fn done(mut self, contract: Option<&Contract>) -> Completion {
        self.flush();
        let content = secrets::scrub_model_text(&self.text).into_owned();
        let calls = self.extras.calls();
        let (text, finish) = self.extras.finish(content, contract);
        Completion {
            calls,
            usage: self.usage,
            reasoning: (!self.reasoning.is_empty())
                .then(|| secrets::scrub_model_text(&self.reasoning).into_owned()),
            finish,
            ..Completion::from(ModelOutput::Text(text))
        }
    }

    /// The answer so far, cut where the stream ran past its limit: the
    /// endpoint never cut it, so Conclave does, and counts what came.
    fn cut_off(mut self, contract: Option<&Contract>) -> Completion {
        self.extras.cut_here();
        let pieces = self.pieces;
        let mut completion = self.done(contract);
        completion.usage = Some(TokenUsage {
            output: pieces,
            estimated: true,
            ..TokenUsage::default()
        });
        completion.cut_after = Some(pieces);
        completion
    }

    /// The server ended the stream before the model finished.
    fn interrupted(&mut self) -> StreamFailure {
        let why = "the server ended the stream before the model finished ([DONE] came with no finish reason): it was interrupted, not answered";
        match self.broken(why) {
            StreamFailure::Broken(words) => StreamFailure::Interrupted(words),
            other => other,
        }
    }

    /// The stream is unusable; `why`, and the text so far.
    pub(super) fn broken(&mut self, why: &str) -> StreamFailure {
        self.flush();
        StreamFailure::Broken(format!("{why}; {}", self.so_far()))
    }

    /// The text so far, in words: how long, and quoted (scrubbed, clean).
    fn so_far(&self) -> String {
        let chars = self.text.chars().count();
        if chars == 0 {
            return "no text had come".to_string();
        }
        let text = secrets::scrub_model_text(&self.text);
        let quoted: String = text.chars().take(QUOTED_CHARS).collect();
        let more = if chars > QUOTED_CHARS { "…" } else { "" };
        format!(
            "the text so far ({chars} characters): {}{more}",
            crate::sanitize::clean(&quoted)
        )
    }

    /// The body could not be read on. A timeout after text had come is
    /// the model still writing: what came is kept, in words, and counted.
    pub(super) fn transport(&mut self, error: reqwest::Error) -> StreamFailure {
        if error.is_timeout() {
            self.flush();
            if self.pieces > 0 {
                return StreamFailure::TimedOut {
                    pieces: self.pieces,
                    so_far: self.so_far(),
                };
            }
            return StreamFailure::Transport(error);
        }
        let why = format!(
            "the stream broke off ({})",
            secrets::scrub(&crate::sanitize::clean(&error.to_string()))
        );
        self.broken(&why)
    }

    pub(super) fn sse_failure(&mut self, error: SseError) -> StreamFailure {
        match error {
            SseError::TooLarge { limit } | SseError::EventTooLarge { limit } => {
                self.flush();
                StreamFailure::TooLarge { limit }
            }
            SseError::NotUtf8 => self.broken("a chunk of the stream is not UTF-8"),
        }
    }
}
