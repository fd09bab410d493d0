//! The messy model: an OpenAI-compatible chat-completions endpoint on
//! loopback that answers from a scenario's sim script (`common::script`)
//! the way today's hosted and local models do: in a fence, wrapped in
//! prose, as a reasoning model, as a server without JSON schemas or without
//! any `response_format`, with cached prompts, missing a key, cut short or
//! refusing. It answers what each request asks (a strict schema in the
//! schema's wire form, tools as tool calls, text otherwise), whole or as
//! server-sent events, and keeps every request's body for the test.

mod said;
mod written;

use super::loopback::{Loopback, Reply};
use super::script::{Script, system_of};
use said::{calls_of, text_of};
use serde_json::{Value, json};
use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use written::{Answer, Said, interrupted, stream, whole};

/// Tokens every answer reports.
pub const PROMPT_TOKENS: u64 = 120;
pub const COMPLETION_TOKENS: u64 = 40;
/// Of the prompt tokens, those the endpoint served from its cache
/// (`CachedPrompt`).
pub const CACHED_TOKENS: u64 = 100;
/// Of the completion tokens, those the model spent reasoning (`Reasoner`).
pub const REASONING_TOKENS: u64 = 24;
/// What a reasoning model thinks before each answer.
pub const REASONING: &str =
    "Thinking it over: the facts first, then what the contract asks for, then the answer.";
/// What a model that never saw the tools it was offered writes instead.
pub const IGNORED_TOOLS: &str =
    "Sure, I can help with that. Let me look into it and get back to you shortly.";
/// What a refusing model says instead of answering.
pub const REFUSAL: &str = "I'm sorry, but I can't help with that.";

/// How the endpoint answers: as the script says, and how it gets that wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Behaviour {
    /// As asked.
    Plain,
    /// Each JSON answer in a ```` ```json ```` fence.
    Fenced,
    /// Each JSON answer between a sentence before and one after.
    Prose,
    /// A reasoning model: 400 for a temperature other than 1 and for
    /// `max_tokens`, reasoning tokens in usage, `reasoning_content`.
    Reasoner,
    /// `reasoning_content` before each answer (streamed before the content).
    ReasoningStream,
    /// 400 for a `response_format` of type `json_schema`.
    NoJsonSchema,
    /// 400 for any `response_format` and for `tools`.
    NoResponseFormat,
    /// As llama-cpp-python's server: 500 for a `response_format` of a type
    /// other than `text` and `json_object`, quoting pydantic's validation
    /// error as Python prints it. It takes `max_completion_tokens` and
    /// ignores it (it honours `max_tokens`): a text answer asked for
    /// under that name rambles on past the limit, as a small model does,
    /// in prose, or in blank lines inside `json_object`'s grammar.
    LlamaCppPython,
    /// As llama-cpp-python's server on a request with `stream_options`: 500,
    /// pydantic's `extra_forbidden` error.
    NoStreamOptions,
    /// As llama.cpp's `llama-server`: after each streamed answer it is done
    /// with the connection, though its headers said keep-alive; a request
    /// sent on that connection next is never answered, the connection is
    /// closed under it.
    ClosesAfterStream,
    /// As llama-cpp-python's server with `interrupt_requests` on (its
    /// default) and a second request arriving: the first time each request
    /// is streamed, the answer stops after a few characters with `[DONE]`
    /// and no finish reason; the same request again is answered.
    Interrupts,
    /// As llama-cpp-python's server with `interrupt_requests` on: the 500
    /// for `json_schema` of `LlamaCppPython`, then each request's first
    /// stream interrupted as `Interrupts` interrupts it.
    RefusesThenInterrupts,
    /// As llama-cpp-python's server streams: no usage chunk, whatever
    /// `stream_options` asks (a whole answer still counts its tokens).
    NoStreamUsage,
    /// As llama-cpp-python's server with tools: the 500 for `json_schema`
    /// of `LlamaCppPython`, one function forced by name honoured, and
    /// several with `tool_choice: "required"` ignored (no grammar, the
    /// tools not even in the prompt): the model answers in prose. Its
    /// streams bring no usage, as `NoStreamUsage`'s.
    IgnoresRequired,
    /// As `llama-server` with a chat template without tools: it takes
    /// `tools` and renders none, and ignores `tool_choice`; the model
    /// answers in prose. `json_schema` it enforces.
    IgnoresTools,
    /// As `llama-server -c 512`: every request is past its context, and
    /// refused with its 400 saying how many tokens each side has.
    SmallContext,
    /// As `llama-server --no-jinja`: a 500, "tools param requires --jinja
    /// flag", for any request with tools; schemas it takes.
    NoJinja,
    /// Most of each prompt served from the endpoint's cache.
    CachedPrompt,
    /// The first JSON answer of each kind of call misses a required key; a
    /// repair of it gets the right answer.
    MissingKey,
    /// Every answer cut to half its text, `finish_reason: "length"`.
    Cut,
    /// Every answer a refusal.
    Refusal,
}

pub struct Messy {
    /// `http://127.0.0.1:PORT/v1`.
    pub base_url: String,
    server: Loopback,
    endpoint: Arc<Endpoint>,
}

impl Messy {
    /// The arguments that point a run at this endpoint, as the mock model.
    pub fn model_args(&self) -> Vec<&str> {
        vec![
            "--provider",
            "openai",
            "--base-url",
            &self.base_url,
            "--model",
            "mock-model",
        ]
    }

    /// Serve the sim script of scenario `doc`, answering as `behaviour`
    /// says, streamed when `streamed` and the request asks for a stream.
    pub fn serve(doc: &Value, behaviour: Behaviour, streamed: bool) -> Self {
        let endpoint = Arc::new(Endpoint {
            script: Script::of(doc),
            behaviour,
            streamed,
            answered: AtomicUsize::new(0),
            broken: AtomicUsize::new(0),
            interrupted: Mutex::new(HashSet::new()),
        });
        let serving = Arc::clone(&endpoint);
        let server = Loopback::serve(move |request, _| {
            match serde_json::from_slice::<Value>(&request.body) {
                Ok(body) => serving.reply(&body),
                Err(_) => error(400, "the request is not JSON", None, None),
            }
        });
        Messy {
            base_url: server.base_url.clone(),
            server,
            endpoint,
        }
    }

    /// Every request's body, in the order they came.
    pub fn requests(&self) -> Vec<Value> {
        self.server
            .requests()
            .iter()
            .map(|request| serde_json::from_slice(&request.body).unwrap_or(Value::Null))
            .collect()
    }

    /// How many requests were sent on a connection this endpoint had
    /// closed after a streamed answer (`ClosesAfterStream`).
    pub fn closed_under(&self) -> usize {
        self.server.closed_under()
    }

    /// How many requests got a completion (not an error).
    pub fn answered(&self) -> usize {
        self.endpoint.answered.load(Ordering::Acquire)
    }

    /// How many answers missed a key on purpose (`MissingKey`).
    pub fn broken(&self) -> usize {
        self.endpoint.broken.load(Ordering::Acquire)
    }

    /// Whether a request asks for prose (a final brief) rather than JSON.
    pub fn asks_for_prose(&self, request: &Value) -> bool {
        self.endpoint.script.asks_for_prose(system_of(request))
    }
}

/// Whether a request repairs an earlier answer: the conversation goes on
/// past the user's message with the answer as the assistant's turn.
pub fn is_repair(request: &Value) -> bool {
    request["messages"]
        .as_array()
        .is_some_and(|messages| messages.iter().skip(2).any(|m| m["role"] == "assistant"))
}

struct Endpoint {
    script: Script,
    behaviour: Behaviour,
    streamed: bool,
    answered: AtomicUsize,
    broken: AtomicUsize,
    /// The requests interrupted once already (`Interrupts`).
    interrupted: Mutex<HashSet<String>>,
}

impl Endpoint {
    fn reply(&self, body: &Value) -> Reply {
        if let Some(refused) = self.refuses(body) {
            return refused;
        }
        let streams = self.streamed && body["stream"] == true;
        if self.ignores_tools(body) {
            // The model never saw the tools: its prose answers nothing the
            // script holds, so the script does not move on.
            let answer = Answer {
                said: Said::Text(IGNORED_TOOLS.to_string()),
                finish: "stop",
                reasoning: None,
                usage: self.usage(),
            };
            return if streams {
                Reply::text(200, &self.events(&answer)).header("content-type", "text/event-stream")
            } else {
                Reply::json(200, &whole(&answer))
            };
        }
        if matches!(
            self.behaviour,
            Behaviour::Interrupts | Behaviour::RefusesThenInterrupts
        ) && streams
            && self.interrupted.lock().unwrap().insert(body.to_string())
        {
            return Reply::text(200, &interrupted("{\"summ"))
                .header("content-type", "text/event-stream");
        }
        let system = system_of(body);
        let Some(rule) = self.script.rule_of(system) else {
            return error(
                400,
                &format!("no script for the prompt {system:?}"),
                None,
                None,
            );
        };
        let (entry, broken) = if is_repair(body) {
            (self.script.again(rule), false)
        } else {
            let (entry, first) = self.script.next(rule);
            match (self.behaviour, first, without_a_key(&entry)) {
                (Behaviour::MissingKey, true, Some(broken)) => (broken, true),
                _ => (entry, false),
            }
        };
        if broken {
            self.broken.fetch_add(1, Ordering::AcqRel);
        }
        self.answered.fetch_add(1, Ordering::AcqRel);
        let answer = self.answer(body, &entry, broken);
        if self.streamed && body["stream"] == true {
            let reply = Reply::text(200, &self.events(&answer))
                .header("content-type", "text/event-stream")
                .header("connection", "keep-alive");
            if self.behaviour == Behaviour::ClosesAfterStream {
                reply.then_closes()
            } else {
                reply
            }
        } else {
            Reply::json(200, &whole(&answer))
        }
    }

    /// `answer` as this endpoint streams it: llama-cpp-python's shapes
    /// without the usage chunk.
    fn events(&self, answer: &Answer) -> String {
        let events = stream(answer);
        match self.behaviour {
            Behaviour::NoStreamUsage | Behaviour::IgnoresRequired => without_usage(&events),
            _ => events,
        }
    }

    /// Whether this endpoint ignores the tools `body` offers.
    fn ignores_tools(&self, body: &Value) -> bool {
        let tools = body.get("tools").is_some_and(|t| !t.is_null());
        tools
            && match self.behaviour {
                Behaviour::IgnoresTools => true,
                Behaviour::IgnoresRequired => body["tool_choice"] == "required",
                _ => false,
            }
    }

    /// The 400 an endpoint of this behaviour answers the request with, in
    /// the words such servers use.
    fn refuses(&self, body: &Value) -> Option<Reply> {
        let format = body.get("response_format").filter(|f| !f.is_null());
        match self.behaviour {
            Behaviour::Reasoner => {
                let temperature = body.get("temperature").filter(|t| !t.is_null());
                if let Some(t) = temperature.filter(|t| t.as_f64() != Some(1.0)) {
                    let said = format!("Unsupported value: 'temperature' does not support {t} with this model. Only the default (1) value is supported.");
                    return Some(error(400, &said, Some("temperature"), Some("unsupported_value")));
                }
                body.get("max_tokens").filter(|m| !m.is_null()).map(|_| {
                    let said = "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.";
                    error(400, said, Some("max_tokens"), Some("unsupported_parameter"))
                })
            }
            Behaviour::NoJsonSchema => format.filter(|f| f["type"] == "json_schema").map(|_| {
                let said = "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.";
                error(400, said, Some("response_format"), None)
            }),
            Behaviour::LlamaCppPython
            | Behaviour::IgnoresRequired
            | Behaviour::RefusesThenInterrupts => format
                .filter(|f| f["type"] != "text" && f["type"] != "json_object")
                .map(|f| pydantic_error(&f["type"])),
            Behaviour::NoStreamOptions => body
                .get("stream_options")
                .map(|_| extra_forbidden("stream_options")),
            Behaviour::SmallContext => {
                let asked = body.to_string().len() / 4;
                Some(Reply::json(
                    400,
                    &json!({"error": {"code": 400,
                        "message": format!("request ({asked} tokens) exceeds the available context size (512 tokens), try increasing it"),
                        "type": "exceed_context_size_error", "n_prompt_tokens": asked, "n_ctx": 512}}),
                ))
            }
            Behaviour::NoJinja => body.get("tools").filter(|t| !t.is_null()).map(|_| {
                Reply::json(
                    500,
                    &json!({"error": {"code": 500, "message": "tools param requires --jinja flag",
                                      "type": "server_error"}}),
                )
            }),
            // As llama.cpp's server answers parameters it does not take.
            Behaviour::NoResponseFormat if format.is_some() => Some(llama_error("response_format")),
            Behaviour::NoResponseFormat if body.get("tools").is_some() => {
                Some(llama_error("tools"))
            }
            _ => None,
        }
    }

    /// The scripted `entry` as the answer to `body`, as this behaviour
    /// writes it.
    fn answer(&self, body: &Value, entry: &Value, broken: bool) -> Answer {
        let said = if body.get("tools").is_some_and(|t| !t.is_null()) {
            Said::Calls(calls_of(body, entry, broken))
        } else {
            Said::Text(text_of(body, entry, broken))
        };
        let said = match (self.behaviour, said) {
            (Behaviour::Refusal, _) => Said::Refusal(REFUSAL.to_string()),
            (Behaviour::Fenced, Said::Text(text)) if entry.is_object() => {
                Said::Text(format!("```json\n{text}\n```"))
            }
            (Behaviour::Prose, Said::Text(text)) if entry.is_object() => {
                Said::Text(format!("Here is my answer:\n{text}\nI hope this helps."))
            }
            (Behaviour::Cut, Said::Text(text)) => Said::Text(half(&text)),
            (Behaviour::Cut, Said::Calls(calls)) => Said::Calls(
                calls
                    .into_iter()
                    .map(|(name, arguments)| (name, half(&arguments)))
                    .collect(),
            ),
            (_, said) => said,
        };
        let mut usage = self.usage();
        let said = match (said, self.limit_of(body)) {
            (Said::Text(text), Limit::Ignored(tokens)) => {
                let ramble = ramble(body, tokens);
                usage["completion_tokens"] = json!(COMPLETION_TOKENS + ramble.len() as u64 / 4);
                Said::Text(text + &ramble)
            }
            (Said::Text(text), Limit::Honoured(tokens)) if tokens < COMPLETION_TOKENS => {
                usage["completion_tokens"] = json!(tokens);
                let kept = (tokens * 4) as usize;
                return Answer {
                    said: Said::Text(text.chars().take(kept).collect()),
                    finish: "length",
                    reasoning: None,
                    usage,
                };
            }
            (said, _) => said,
        };
        let finish = match (&said, self.behaviour) {
            (_, Behaviour::Cut) => "length",
            (Said::Calls(_), _) => "tool_calls",
            _ => "stop",
        };
        let reasoning = matches!(
            self.behaviour,
            Behaviour::Reasoner | Behaviour::ReasoningStream
        )
        .then_some(REASONING);
        Answer {
            said,
            finish,
            reasoning,
            usage,
        }
    }

    /// The token limit `body` sends, as this endpoint takes it.
    fn limit_of(&self, body: &Value) -> Limit {
        if let Some(tokens) = body.get("max_tokens").and_then(Value::as_u64) {
            return Limit::Honoured(tokens);
        }
        match body.get("max_completion_tokens").and_then(Value::as_u64) {
            Some(tokens) if self.behaviour == Behaviour::LlamaCppPython => Limit::Ignored(tokens),
            Some(tokens) => Limit::Honoured(tokens),
            None => Limit::None,
        }
    }

    fn usage(&self) -> Value {
        let mut usage = json!({"prompt_tokens": PROMPT_TOKENS, "completion_tokens": COMPLETION_TOKENS,
                               "total_tokens": PROMPT_TOKENS + COMPLETION_TOKENS});
        match self.behaviour {
            Behaviour::CachedPrompt => {
                usage["prompt_tokens_details"] = json!({"cached_tokens": CACHED_TOKENS});
            }
            Behaviour::Reasoner => {
                usage["completion_tokens_details"] = json!({"reasoning_tokens": REASONING_TOKENS});
            }
            _ => {}
        }
        usage
    }
}

/// A request's token limit, as the endpoint takes it.
enum Limit {
    None,
    Honoured(u64),
    /// Taken and ignored: the model writes on past it.
    Ignored(u64),
}

/// What a model writes on past an ignored limit of `tokens`: twice as
/// many pieces as the limit and then some, in prose, or in blank lines
/// where `json_object`'s grammar allows nothing else after the object.
fn ramble(body: &Value, tokens: u64) -> String {
    let pieces = (tokens * 2 + 64) as usize;
    if body["response_format"]["type"] == "json_object" {
        return "\n".repeat(pieces * written::CHUNK_CHARS);
    }
    let words = "\n\nTo add more: the team should weigh it again. ";
    words.repeat(pieces * written::CHUNK_CHARS / words.len() + 1)
}

/// `entry` without one key the contract requires, when it has one: a
/// contribution without `stance`, a plan without `tasks` or `steps`, a
/// synthesis without `citations`, a turn whose action key is gone (a
/// transfer as its message only, a reply as `{"text": ..}`).
fn without_a_key(entry: &Value) -> Option<Value> {
    let map = entry.as_object()?;
    let renamed = |from: &str, to: &str| {
        let mut map = map.clone();
        let value = map.remove(from)?;
        map.insert(to.to_string(), value);
        Some(Value::Object(map))
    };
    if map.contains_key("reply") {
        return renamed("reply", "text");
    }
    if map.contains_key("call_members") {
        return renamed("call_members", "members");
    }
    let key = [
        "stance",
        "tasks",
        "steps",
        "notes",
        "citations",
        "transfer_to",
        "call",
    ]
    .into_iter()
    .find(|key| map.contains_key(*key))?;
    let mut map = map.clone();
    map.remove(key);
    Some(Value::Object(map))
}

/// A stream's events without the chunk that carries the usage.
fn without_usage(events: &str) -> String {
    events
        .split_inclusive("\n\n")
        .filter(|event| !event.contains("\"usage\""))
        .collect()
}

/// The first half of `text`, by characters.
fn half(text: &str) -> String {
    let count = text.chars().count();
    text.chars().take(count / 2).collect()
}

fn error(status: u16, message: &str, param: Option<&str>, code: Option<&str>) -> Reply {
    Reply::json(
        status,
        &json!({"error": {"message": message, "type": "invalid_request_error",
                          "param": param, "code": code}}),
    )
}

/// llama.cpp's answer to a parameter it does not take.
fn llama_error(param: &str) -> Reply {
    Reply::json(
        400,
        &json!({"error": {"code": 400, "message": format!("Unsupported param: {param}"),
                          "type": "invalid_request_error"}}),
    )
}

/// llama-cpp-python's answer to a `response_format` its schema does not
/// take (llama_cpp/server/errors.py): the validation error goes through
/// its route handler's catch-all, so it is a 500 whose message is
/// `str(error)`, pydantic's errors as Python prints a list of dicts.
fn pydantic_error(given: &Value) -> Reply {
    let input = given.as_str().unwrap_or_default();
    let message = format!(
        "[{{'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\", 'input': '{input}', 'ctx': {{'expected': \"'text' or 'json_object'\"}}}}]"
    );
    Reply::json(
        500,
        &json!({"error": {"message": message, "type": "internal_server_error",
                          "param": null, "code": null}}),
    )
}

/// llama-cpp-python's answer to a parameter its schema does not have.
fn extra_forbidden(param: &str) -> Reply {
    let message = format!(
        "[{{'type': 'extra_forbidden', 'loc': ('body', '{param}'), 'msg': 'Extra inputs are not permitted', 'input': {{'include_usage': True}}}}]"
    );
    Reply::json(
        500,
        &json!({"error": {"message": message, "type": "internal_server_error",
                          "param": null, "code": null}}),
    )
}
