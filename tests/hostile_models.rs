//! A corpus of hostile model endpoints, each served by a raw loopback
//! server to the real binary (`run --headless --provider openai --record`)
//! with a recognisable key in OPENAI_API_KEY: endpoints that echo the key
//! whole, in part, escaped, in JSON, in headers and error bodies; bodies
//! that are huge, endless, stalled, not JSON or not a completion; every 4xx
//! and 5xx status and the odd ones; Retry-After huge, negative, not a
//! number or a date; control characters in the text. Every run must end
//! without a panic, within a bound, with its documented exit status and
//! stop reason, and with no run of eight characters of the key in stdout,
//! stderr, the recording, or any prompt sent back to the endpoint.

use crate::common;

use common::loopback::{Body, Captured, Loopback, Reply};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const KEY: &str = "sk-Hq7vR2mX9pL4wZ8nB3kT6yJ1cD5fG0sA";
const MASK: &str = "[redacted]";
/// Longer than any run of the corpus may take: a run still going then
/// hangs. Each run's own clock ends it within a minute (a 1 s model
/// timeout, `max_seconds: 40`); the rest is the debug binary's CPU on the
/// 7 MiB answers, which a loaded machine can stretch past two minutes, so
/// the bound is far off what a run needs and still ends a hang.
const BOUND: Duration = Duration::from_secs(300);
/// Runs of the corpus at once.
const PARALLEL: usize = 3;

type Respond = Arc<dyn Fn(&Captured, usize) -> Reply + Send + Sync>;

/// The scenario a case runs.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Setup {
    /// One analyst, one round, a 1 s model timeout, one quick retry.
    Quick,
    /// The same without a resilience section: the remote model's own
    /// retries, and `max_seconds: 40`.
    Plain,
}

struct Case {
    name: String,
    setup: Setup,
    respond: Respond,
    env: Vec<(&'static str, String)>,
    exit: i32,
    /// The stop reason, or its start when it ends in `*`.
    stop: &'static str,
    /// Text stdout or stderr must show (`[redacted]` where the echo went).
    shows: Option<(Stream, String)>,
}

#[derive(Clone, Copy, Debug)]
enum Stream {
    Stdout,
    Stderr,
}

fn case(name: impl Into<String>, exit: i32, stop: &'static str, respond: Respond) -> Case {
    Case {
        name: name.into(),
        setup: Setup::Quick,
        respond,
        env: Vec::new(),
        exit,
        stop,
        shows: None,
    }
}

impl Case {
    fn plain(mut self) -> Self {
        self.setup = Setup::Plain;
        self
    }

    fn env(mut self, name: &'static str, value: &str) -> Self {
        self.env.push((name, value.to_string()));
        self
    }

    fn shows(mut self, stream: Stream, text: &str) -> Self {
        self.shows = Some((stream, text.to_string()));
        self
    }
}

fn scenario(dir: &Path, setup: Setup) -> PathBuf {
    let mut doc = json!({
        "name": "hostile", "pattern": "collaboration",
        "goal": "Decide whether to launch", "context": {"region": "US"},
        "budget": {"max_rounds": 1, "min_go_votes": 1, "max_seconds": 30},
        "team": {"roles": {"risk_analyst": {"focus": "payments"}}, "sequence": ["risk_analyst"]},
        "provider": {"kind": "openai", "model": "hostile-model", "timeout_seconds": 1}
    });
    match setup {
        Setup::Quick => {
            doc["resilience"] =
                json!({"retries": {"max_attempts": 2, "backoff_ms": [5], "jitter": "none"}});
        }
        Setup::Plain => doc["budget"]["max_seconds"] = json!(40),
    }
    let file = dir.join("hostile.json");
    std::fs::write(&file, doc.to_string()).unwrap();
    file
}

/// What a run left behind.
struct Ran {
    exit: Option<i32>,
    signal: Option<i32>,
    stdout: String,
    stderr: String,
    recording: String,
}

/// Run the binary against `server`, waiting at most [`BOUND`].
fn run(case: &Case, server: &Loopback) -> Ran {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path();
    let (out, err) = (dir.join("stdout"), dir.join("stderr"));
    let mut command = Command::new(env!("CARGO_BIN_EXE_conclave"));
    command
        .args(["run", "--headless", "--provider", "openai", "--base-url"])
        .arg(&server.base_url)
        .arg("--record")
        .arg(dir.join("run.jsonl"))
        .arg(scenario(dir, case.setup))
        .env("OPENAI_API_KEY", KEY)
        .env("XDG_STATE_HOME", dir.join("state"))
        .env_remove("OPENAI_BASE_URL")
        .env_remove("OPENAI_TIMEOUT_SECONDS")
        .env_remove("CONCLAVE_MAX_BODY_BYTES")
        .env("RUST_BACKTRACE", "1")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap());
    for (name, value) in &case.env {
        command.env(name, value);
    }
    let finished = common::bounded::run(command, BOUND, &case.name);
    let read = |path: &Path| {
        String::from_utf8_lossy(&std::fs::read(path).unwrap_or_default()).into_owned()
    };
    Ran {
        exit: finished.exit,
        signal: finished.signal,
        stdout: read(&out),
        stderr: read(&err),
        recording: read(&dir.join("run.jsonl")),
    }
}

/// Every run of eight characters of the key found in `text`.
fn fragments(text: &str) -> Vec<&'static str> {
    (0..=KEY.len() - 8)
        .map(|i| &KEY[i..i + 8])
        .filter(|window| text.contains(window))
        .collect()
}

fn has_terminal_controls(text: &str) -> bool {
    text.chars().any(|c| {
        (c.is_control() && c != '\n' && c != '\t')
            || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    })
}

/// The stop reason the recording's last event carries.
fn recorded_stop(recording: &str) -> Option<String> {
    let last: Value = serde_json::from_str(recording.lines().last()?).ok()?;
    (last["type"] == "run_finished").then(|| last["stop_reason"].as_str().unwrap_or("").to_string())
}

/// Check one run; the problems found, if any.
fn check(case: &Case) -> Vec<String> {
    let server = Loopback::serve({
        let respond = Arc::clone(&case.respond);
        move |request: &Captured, n: usize| respond(request, n)
    });
    let ran = run(case, &server);
    let mut problems = Vec::new();
    let mut problem = |what: String| problems.push(format!("{}: {what}", case.name));
    if ran.exit != Some(case.exit) {
        problem(format!(
            "exit {:?} (signal {:?}), expected {}; stderr:\n{}",
            ran.exit, ran.signal, case.exit, ran.stderr
        ));
    }
    if ran.stderr.contains("panicked") {
        problem(format!("panicked:\n{}", ran.stderr));
    }
    match recorded_stop(&ran.recording) {
        Some(stop) if stop == case.stop => {}
        Some(stop)
            if case.stop.ends_with('*') && stop.starts_with(case.stop.trim_end_matches('*')) => {}
        other => problem(format!("stopped with {other:?}, expected {}", case.stop)),
    }
    for (stream, text) in [
        ("stdout", &ran.stdout),
        ("stderr", &ran.stderr),
        ("the recording", &ran.recording),
    ] {
        let found = fragments(text);
        if !found.is_empty() {
            problem(format!("{stream} holds {found:?} of the key"));
        }
    }
    for (n, request) in server.requests().iter().enumerate() {
        let found = fragments(&String::from_utf8_lossy(&request.body));
        if !found.is_empty() {
            problem(format!("prompt {n} sends {found:?} of the key back"));
        }
        if request.header("authorization").as_deref() != Some(&format!("Bearer {KEY}")) {
            problem(format!("request {n} is not authorised with the key"));
        }
    }
    if has_terminal_controls(&ran.stderr) {
        problem(format!(
            "stderr carries terminal controls: {:?}",
            ran.stderr
        ));
    }
    if let Some((stream, text)) = &case.shows {
        let shown = match stream {
            Stream::Stdout => &ran.stdout,
            Stream::Stderr => &ran.stderr,
        };
        if !shown.contains(text.as_str()) {
            problem(format!("{stream:?} does not show {text:?}:\n{shown}"));
        }
    }
    problems
}

/// Run every case, [`PARALLEL`] at a time and in the order given (a slow
/// case listed first runs beside the rest), and fail with every problem.
fn run_corpus(mut cases: Vec<Case>) {
    let total = cases.len();
    // Taken from the end: the first case first.
    cases.reverse();
    let queue = Arc::new(Mutex::new(cases));
    let problems = Arc::new(Mutex::new(Vec::new()));
    let workers: Vec<_> = (0..PARALLEL)
        .map(|_| {
            let (queue, problems) = (Arc::clone(&queue), Arc::clone(&problems));
            std::thread::spawn(move || {
                loop {
                    let Some(case) = queue.lock().unwrap().pop() else {
                        return;
                    };
                    let found = check(&case);
                    problems.lock().unwrap().extend(found);
                }
            })
        })
        .collect();
    for worker in workers {
        worker.join().unwrap();
    }
    let problems = problems.lock().unwrap();
    assert!(
        problems.is_empty(),
        "{} of {total} hostile endpoints misbehaved:\n{}",
        problems.len(),
        problems.join("\n\n")
    );
}

// --- What the endpoints answer -------------------------------------------

fn completion(content: Value) -> Value {
    json!({"id": "chatcmpl-x", "object": "chat.completion",
           "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}],
           "usage": {"prompt_tokens": 10, "completion_tokens": 5}})
}

fn contribution(summary: &str) -> Value {
    json!({"agent": "risk_analyst", "stance": "go", "summary": summary,
           "confidence": 0.8, "actions": ["Ship it"]})
}

fn is_brief(request: &Captured) -> bool {
    String::from_utf8_lossy(&request.body).contains("final operations brief")
}

/// An endpoint that answers the analyst with `analyst(authorization)` and
/// the brief with a plain brief.
fn analyst(answer: impl Fn(&str) -> Reply + Send + Sync + 'static) -> Respond {
    Arc::new(move |request, _| {
        if is_brief(request) {
            Reply::json(200, &completion(json!("Launch.")))
        } else {
            answer(&request.header("authorization").unwrap_or_default())
        }
    })
}

/// An endpoint whose analyst says `summary(authorization)` in a valid
/// contribution.
fn says(summary: impl Fn(&str) -> String + Send + Sync + 'static) -> Respond {
    analyst(move |auth| {
        Reply::json(
            200,
            &completion(json!(contribution(&summary(auth)).to_string())),
        )
    })
}

fn always(reply: Reply) -> Respond {
    Arc::new(move |_, _| reply.clone())
}

// --- The corpus ----------------------------------------------------------

fn echoes() -> Vec<Case> {
    let ok = |name: &str, respond: Respond| {
        case(name, 0, "success", respond).shows(Stream::Stdout, MASK)
    };
    let mut cases = vec![
        ok("the whole header in a summary", says(|auth| format!("You sent {auth}"))),
        ok("the key alone", says(|auth| auth[7..].to_string())),
        ok("a partial echo of the last 12", says(|auth| format!("Bearer *** {}", &auth[auth.len() - 12..]))),
        ok("the key twice, glued", says(|auth| format!("{0}{0}", &auth[7..]))),
        ok("the key in the actions", analyst(|auth| {
            let mut c = contribution("Ready.");
            c["actions"] = json!([format!("rotate {auth}"), auth[15..].to_string()]);
            Reply::json(200, &completion(json!(c.to_string())))
        })),
        case("the key as a JSON key", 0, "success", analyst(|auth| {
            let mut c = contribution("Ready.");
            c["notes"] = json!({auth[7..].to_string(): auth});
            Reply::json(200, &completion(json!(c.to_string())))
        })),
        ok("the key behind JSON escapes", analyst(|auth| {
            let escaped: String = auth.chars().map(|c| format!("\\u{:04x}", c as u32)).collect();
            let text = contribution("ESCAPED").to_string().replace("ESCAPED", &escaped);
            Reply::json(200, &completion(json!(text)))
        })),
        ok("every fourth character escaped", analyst(|auth| {
            let escaped: String = auth
                .chars()
                .enumerate()
                .map(|(i, c)| if i % 4 == 0 { format!("\\u{:04x}", c as u32) } else { c.to_string() })
                .collect();
            let text = contribution("ESCAPED").to_string().replace("ESCAPED", &escaped);
            Reply::json(200, &completion(json!(text)))
        })),
        ok("the key split over text parts", analyst(|auth| {
            let text = contribution(auth).to_string();
            let parts: Vec<Value> = text
                .as_bytes()
                .chunks(5)
                .map(|p| json!({"type": "text", "text": String::from_utf8_lossy(p)}))
                .collect();
            Reply::json(200, &completion(Value::Array(parts)))
        })),
        ok("the key in the brief", Arc::new(|request: &Captured, _| {
            let auth = request.header("authorization").unwrap_or_default();
            if is_brief(request) {
                Reply::json(200, &completion(json!(format!("Brief. Debug: {auth}"))))
            } else {
                Reply::json(200, &completion(json!(contribution("Ready.").to_string())))
            }
        })),
        case("the key in a response header", 0, "success", analyst(|auth| {
            Reply::json(200, &completion(json!(contribution("Ready.").to_string())))
                .header("x-echo-authorization", auth)
        })),
        case("the key in a rejected contribution", 3, "invalid_contribution:*", analyst(|auth| {
            let mut c = contribution(auth);
            c["stance"] = json!(auth);
            Reply::json(200, &completion(json!(c.to_string())))
        })),
        case("the key in plain text content", 3, "invalid_contribution:*", analyst(|auth| {
            Reply::json(200, &completion(json!(format!("I will not answer. Your header: {auth}"))))
        })),
        case("the key in a non-string content", 3, "llm_bad_response", analyst(|auth| {
            Reply::json(200, &completion(json!({"auth": auth, "again": [auth[9..].to_string()]})))
        }))
        .shows(Stream::Stderr, MASK),
        case("the key in a content list that is not text", 3, "llm_bad_response", analyst(|auth| {
            Reply::json(200, &completion(json!([auth, 1, {"k": auth}])))
        }))
        .shows(Stream::Stderr, MASK),
        case("the key in a body without choices", 3, "llm_bad_response", analyst(|auth| {
            Reply::json(200, &json!({"error": {"message": auth}}))
        })),
        case("the key in a body that is not JSON", 3, "llm_bad_response", analyst(|auth| {
            Reply::text(200, &format!("<html>{auth}</html>")).header("content-type", "text/html")
        })),
        case("the key in a 400 body", 3, "llm_bad_request", analyst(|auth| {
            Reply::json(400, &json!({"error": {"message": format!("Invalid header: {auth}")}}))
        }))
        .shows(Stream::Stderr, MASK),
        case("part of the key in a 404 body", 3, "llm_bad_request", analyst(|auth| {
            Reply::text(404, &format!("no route for key ending {}", &auth[auth.len() - 9..]))
        }))
        .shows(Stream::Stderr, MASK),
        case("the key in a 401 body", 3, "llm_auth", analyst(|auth| {
            Reply::json(401, &json!({"error": {"message": format!("Incorrect API key provided: {}", &auth[7..])}}))
        }))
        .shows(Stream::Stderr, "OPENAI_API_KEY"),
        case("the key in a 403 body", 3, "llm_auth", analyst(|auth| Reply::text(403, auth))),
        case("the key in a 429 body", 3, "llm_unavailable", analyst(|auth| {
            Reply::text(429, auth).header("retry-after", "0")
        })),
        case("the key in a 500 body", 3, "llm_unavailable", analyst(|auth| {
            Reply::text(500, &format!("upstream refused Authorization: {auth}"))
        }))
        .shows(Stream::Stderr, MASK),
        case("the key in a redirect", 3, "llm_unexpected_status", analyst(|auth| {
            Reply::text(302, "").header("location", &format!("https://elsewhere.example/v1?key={}", &auth[7..]))
        }))
        .shows(Stream::Stderr, MASK),
        case("the key with controls in a 400 body", 3, "llm_bad_request", analyst(|auth| {
            Reply::text(400, &format!("\u{1b}[31m{auth}\u{1b}[0m \u{9b}2J \u{202e}evil"))
        }))
        .shows(Stream::Stderr, MASK),
    ];
    // Runs of eight and more, from everywhere in the key.
    let key_len = KEY.len();
    for start in 0..=key_len - 8 {
        cases.push(ok(
            &format!("eight characters of the key from {start}"),
            says(move |auth| format!("fragment <{}>", &auth[7 + start..7 + start + 8])),
        ));
    }
    for n in [8, 13, 21, 34] {
        cases.push(ok(
            &format!("the first {n} characters"),
            says(move |auth| auth[7..7 + n].to_string()),
        ));
        cases.push(ok(
            &format!("the last {n} characters"),
            says(move |auth| auth[auth.len() - n..].to_string()),
        ));
    }
    cases
}

fn bodies() -> Vec<Case> {
    let text = |status: u16, body: &str| {
        always(Reply::text(status, body).header("content-type", "application/json"))
    };
    let bad = |name: &str, body: &str| case(name, 3, "llm_bad_response", text(200, body));
    let mut cases = vec![
        // First, as the corpus runs in this order: the slowest case by far
        // (the debug binary scrubs 7 MiB of answer for the key at every
        // event that carries it, about 3.5 s of one core), so that the
        // other cases run beside it, not after.
        case(
            "huge content under the cap",
            3,
            "invalid_contribution:*",
            always(Reply::json(
                200,
                &completion(json!("a".repeat(7 * 1024 * 1024))),
            )),
        ),
        bad("an empty body", ""),
        bad(
            "half a JSON document",
            "{\"choices\": [{\"message\": {\"content\": \"x",
        ),
        bad("null", "null"),
        bad("a list", "[]"),
        bad("an empty object", "{}"),
        bad("true", "true"),
        bad("a string", "\"hello\""),
        bad("null choices", "{\"choices\": null}"),
        bad("no choice", "{\"choices\": []}"),
        bad("a choice without a message", "{\"choices\": [{}]}"),
        bad("a null message", "{\"choices\": [{\"message\": null}]}"),
        bad(
            "a number for content",
            "{\"choices\": [{\"message\": {\"content\": 12345}}]}",
        ),
        bad("NaN", "{\"choices\": [{\"message\": {\"content\": NaN}}]}"),
        bad(
            "trailing garbage",
            "{\"choices\": [{\"message\": {\"content\": \"x\"}}]} garbage",
        ),
        bad(
            "a byte order mark",
            "\u{feff}{\"choices\": [{\"message\": {\"content\": \"x\"}}]}",
        ),
        bad(
            "a server-sent event stream",
            "data: {\"choices\": []}\n\ndata: [DONE]\n\n",
        ),
        bad("nesting past any parser's depth", &"[".repeat(100_000)),
        case(
            "null content",
            3,
            "invalid_contribution:*",
            text(200, "{\"choices\": [{\"message\": {\"content\": null}}]}"),
        ),
        case(
            "invalid UTF-8",
            3,
            "llm_bad_response",
            always(Reply::new(
                200,
                Body::Bytes(
                    b"{\"choices\": [{\"message\": {\"content\": \"\xff\xfe\"}}]}".to_vec(),
                ),
            )),
        ),
        case(
            "a declared length past the cap",
            3,
            "llm_bad_response",
            always(Reply::new(200, Body::Stall).header("content-length", "9000000000")),
        )
        .shows(Stream::Stderr, "CONCLAVE_MAX_BODY_BYTES"),
        case(
            "a body past the cap",
            3,
            "llm_bad_response",
            always(Reply::new(200, Body::Bytes(vec![b' '; 9 * 1024 * 1024]))),
        ),
        case(
            "an endless body",
            3,
            "llm_bad_response",
            always(Reply::new(200, Body::Endless)),
        )
        .shows(Stream::Stderr, "CONCLAVE_MAX_BODY_BYTES"),
        case(
            "an endless body under a smaller cap",
            3,
            "llm_bad_response",
            always(Reply::new(200, Body::Endless)),
        )
        .env("CONCLAVE_MAX_BODY_BYTES", "65536")
        .shows(Stream::Stderr, "65536"),
        case(
            "an answer over a tiny cap",
            3,
            "llm_bad_response",
            says(|_| "Ready.".into()),
        )
        .env("CONCLAVE_MAX_BODY_BYTES", "64"),
        case(
            "an endless error body",
            3,
            "llm_unavailable",
            always(Reply::new(503, Body::Endless)),
        ),
        case(
            "a stalled body",
            3,
            "llm_timeout",
            always(Reply::new(200, Body::Stall).header("content-length", "100")),
        ),
        case(
            "a body that stops coming",
            3,
            "llm_timeout",
            always(Reply::new(200, Body::Partial(b"{\"choices\": [".to_vec()))),
        ),
        case(
            "an endpoint that never answers",
            3,
            "llm_timeout",
            always(Reply::new(200, Body::Stall)).map_status(""),
        ),
        case(
            "a status line that is not HTTP",
            3,
            "llm_unavailable",
            always(Reply::text(200, "x")).map_status("garbage"),
        ),
    ];
    let answer = contribution("Ready.").to_string();
    for content_type in [
        "text/html",
        "application/octet-stream",
        "text/event-stream",
        "application/json; charset=latin1",
        "",
    ] {
        let reply = Reply::text(200, &completion(json!(answer)).to_string());
        let reply = if content_type.is_empty() {
            reply
        } else {
            reply.header("content-type", content_type)
        };
        cases.push(case(
            format!("a completion sent as {content_type:?}"),
            0,
            "success",
            analyst(move |_| reply.clone()),
        ));
    }
    cases.push(case(
        "controls and bidi in the text",
        0,
        "success",
        says(|_| "\u{1b}[2J\u{1b}]0;pwned\u{7}\u{9b}31m\u{202e}txet\u{2066}\u{0}".into()),
    ));
    cases
}

trait MapStatus {
    fn map_status(self, status: &str) -> Self;
}

impl MapStatus for Respond {
    fn map_status(self, status: &str) -> Self {
        let status = status.to_string();
        Arc::new(move |request, n| {
            let mut reply = self(request, n);
            reply.status = status.clone();
            reply
        })
    }
}

fn statuses() -> Vec<Case> {
    let mut cases = Vec::new();
    for status in 400..=599u16 {
        let stop = match status {
            401 | 403 => "llm_auth",
            429 | 500..=599 => "llm_unavailable",
            _ => "llm_bad_request",
        };
        let body = json!({"error": {"message": format!("status {status}"), "type": "hostile"}});
        cases.push(case(
            format!("HTTP {status}"),
            3,
            stop,
            always(Reply::json(status, &body)),
        ));
    }
    for status in [300, 301, 302, 303, 304, 305, 307, 308, 399, 600, 799, 999] {
        cases.push(case(
            format!("HTTP {status}"),
            3,
            "llm_unexpected_status",
            always(Reply::text(status, "").header("location", "https://elsewhere.example/v1")),
        ));
    }
    for status in [201, 202, 204, 206, 299] {
        cases.push(case(
            format!("an empty HTTP {status}"),
            3,
            "llm_bad_response",
            always(Reply::text(status, "")),
        ));
    }
    cases
}

fn waits() -> Vec<Case> {
    let mut cases = Vec::new();
    let too_long = [
        "100",
        "31",
        "1e308",
        "inf",
        "99999999999999999999",
        "Fri, 01 Jan 2100 00:00:00 GMT",
    ];
    for status in [429, 503] {
        for wait in too_long {
            cases.push(
                case(
                    format!("HTTP {status} asking to wait {wait}"),
                    3,
                    "max_seconds",
                    always(Reply::text(status, "wait").header("retry-after", wait)),
                )
                .shows(Stream::Stderr, "Retry-After"),
            );
        }
        cases.push(case(
            format!("HTTP {status} asking to wait 1e9 ms"),
            3,
            "max_seconds",
            always(Reply::text(status, "wait").header("retry-after-ms", "1e9")),
        ));
        for wait in [
            "-5",
            "NaN",
            "-inf",
            "soon",
            "0",
            "Wed, 21 Oct 2015 07:28:00 GMT",
            "0.001",
        ] {
            cases.push(case(
                format!("HTTP {status} asking to wait {wait}"),
                3,
                "llm_unavailable",
                always(Reply::text(status, "wait").header("retry-after", wait)),
            ));
        }
    }
    // The run of the issue: 40 s of budget, an endpoint asking for 100.
    cases.push(
        case(
            "Retry-After 100 against max_seconds 40",
            3,
            "max_seconds",
            always(Reply::text(429, "").header("retry-after", "100")),
        )
        .plain()
        .shows(Stream::Stderr, "max_seconds"),
    );
    cases.push(
        case(
            "a 503 then an answer",
            0,
            "success",
            Arc::new(|request: &Captured, n| {
                if n == 0 {
                    Reply::text(503, "busy").header("retry-after", "0")
                } else if is_brief(request) {
                    Reply::json(200, &completion(json!("Launch.")))
                } else {
                    Reply::json(200, &completion(json!(contribution("Ready.").to_string())))
                }
            }),
        )
        .plain(),
    );
    cases
}

#[test]
fn endpoints_that_echo_the_key_leak_no_fragment_of_it() {
    run_corpus(echoes());
}

#[test]
fn bodies_that_are_huge_endless_stalled_or_no_completion_stop_cleanly() {
    run_corpus(bodies());
}

#[test]
fn every_error_status_stops_with_its_documented_reason() {
    run_corpus(statuses());
}

#[test]
fn retry_after_never_waits_past_the_run() {
    run_corpus(waits());
}

#[test]
fn the_corpus_is_large() {
    let sizes = [
        echoes().len(),
        bodies().len(),
        statuses().len(),
        waits().len(),
    ];
    eprintln!("hostile endpoints (echoes, bodies, statuses, waits): {sizes:?}");
    assert!(sizes.iter().sum::<usize>() >= 300, "{sizes:?}");
}

/// Settings that cannot work are refused before the run, with exit 2 and
/// the name of the option, field or variable at fault.
#[test]
fn unusable_settings_are_refused_at_launch_naming_their_source() {
    let work = tempfile::tempdir().unwrap();
    let file = scenario(work.path(), Setup::Quick);
    // The scenario's own timeout would win over the variable.
    let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    doc["provider"]
        .as_object_mut()
        .unwrap()
        .remove("timeout_seconds");
    std::fs::write(&file, doc.to_string()).unwrap();
    let launch = |args: &[&str], env: &[(&str, &str)]| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_conclave"));
        command
            .args(["run", "--headless", "--provider", "openai"])
            .args(args)
            .arg(&file)
            .env("OPENAI_API_KEY", KEY)
            .env_remove("OPENAI_BASE_URL")
            .env_remove("OPENAI_TIMEOUT_SECONDS")
            .env_remove("CONCLAVE_MAX_BODY_BYTES");
        for (name, value) in env {
            command.env(name, value);
        }
        command.output().unwrap()
    };
    let refused = |output: std::process::Output, names: &str| {
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{names}: {stderr}");
        assert!(output.stdout.is_empty());
        assert!(stderr.contains(names), "{names} not named: {stderr}");
        assert!(stderr.contains("expected"), "{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(fragments(&stderr).is_empty(), "{stderr}");
    };
    for url in [
        "not a url",
        "ftp://example.com/v1",
        "http://[::1",
        "http://",
        "",
        "http://:8080/v1",
    ] {
        refused(launch(&["--base-url", url], &[]), "--base-url");
        // A blank variable counts as unset (and would reach the public
        // endpoint): only the others.
        if !url.is_empty() {
            refused(launch(&[], &[("OPENAI_BASE_URL", url)]), "OPENAI_BASE_URL");
        }
    }
    for seconds in ["1e308", "-1", "0", "NaN", "soon"] {
        refused(
            launch(
                &["--base-url", "http://127.0.0.1:9/v1"],
                &[("OPENAI_TIMEOUT_SECONDS", seconds)],
            ),
            "OPENAI_TIMEOUT_SECONDS",
        );
    }
    refused(
        launch(
            &["--base-url", "http://127.0.0.1:9/v1"],
            &[("CONCLAVE_MAX_BODY_BYTES", "8MB")],
        ),
        "CONCLAVE_MAX_BODY_BYTES",
    );
    doc["provider"]["timeout_seconds"] = json!(1e308);
    std::fs::write(&file, doc.to_string()).unwrap();
    refused(
        launch(&["--base-url", "http://127.0.0.1:9/v1"], &[]),
        "timeout_seconds",
    );
    doc["provider"]["timeout_seconds"] = json!(1);
    doc["provider"]["base_url"] = json!("ftp://example.com/v1");
    std::fs::write(&file, doc.to_string()).unwrap();
    refused(launch(&[], &[]), "provider.base_url");
}
