//! A chat-completions endpoint on loopback that streams its answers as
//! server-sent events, a chunk at a time, paced with `tokio::time` on the
//! runtime it is started on: on a test's paused clock the pacing is the
//! run's virtual time, so "20 chunks over 2 s" costs no wall time and the
//! run sees exactly that. It can also break a stream off, hold it until
//! the test lets it go on, answer with a status first, ignore `stream`
//! and answer whole, or stream the answer as a function call's arguments. A plain tokio `TcpListener`: nothing leaves the
//! machine.

use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;

/// Tokens every answer reports.
pub const PROMPT_TOKENS: u64 = 50;
pub const COMPLETION_TOKENS: u64 = 38;

/// How the endpoint answers one request.
#[derive(Clone, Debug)]
pub enum Reply {
    Stream(Streamed),
    /// One JSON completion, whatever the request asked for.
    Whole(String),
    /// This status with a JSON error body, before any event.
    Status(u16),
}

/// A streamed answer: `text` in `chunks` chunks, one every `every`.
#[derive(Clone, Debug)]
pub struct Streamed {
    pub text: String,
    pub chunks: usize,
    pub every: Duration,
    /// Close the connection after this many chunks, without a finish.
    pub cut_after: Option<usize>,
    /// Wait for this before sending chunk number `.0` (0-based).
    pub hold: Option<(usize, Arc<Notify>)>,
    /// LiteLLM's usage chunk (`choices: [{"index": 0, "delta": {}}]`)
    /// rather than OpenAI's (`choices: []`).
    pub litellm: bool,
    /// Tool mode: `text` is the arguments of a call of this function,
    /// streamed as OpenAI streams them (the name first, then the
    /// arguments a piece a chunk), finished as `tool_calls`.
    pub function: Option<String>,
}

impl Streamed {
    pub fn new(text: &str, chunks: usize, every: Duration) -> Self {
        Streamed {
            text: text.to_string(),
            chunks,
            every,
            cut_after: None,
            hold: None,
            litellm: false,
            function: None,
        }
    }

    /// The chunks' texts: `text` cut into `chunks` nearly equal parts.
    pub fn parts(&self) -> Vec<String> {
        let chars: Vec<char> = self.text.chars().collect();
        let n = self.chunks.max(1);
        (0..n)
            .map(|i| {
                chars[i * chars.len() / n..(i + 1) * chars.len() / n]
                    .iter()
                    .collect()
            })
            .collect()
    }
}

/// One request as the endpoint read it: its JSON body.
pub type Seen = Arc<Mutex<Vec<Value>>>;

/// Serve on the current runtime; `respond` is given each request's body
/// and its number (0, 1, …). The base URL to give the provider, and the
/// requests seen.
pub async fn serve(
    respond: impl Fn(&Value, usize) -> Reply + Send + Sync + 'static,
) -> (String, Seen) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
    let seen: Seen = Arc::default();
    let respond = Arc::new(respond);
    let requests = Arc::clone(&seen);
    tokio::spawn(async move {
        loop {
            let Ok((socket, _)) = listener.accept().await else {
                return;
            };
            // Each piece goes out as written, as a model server's does.
            let _ = socket.set_nodelay(true);
            let (respond, requests) = (Arc::clone(&respond), Arc::clone(&requests));
            tokio::spawn(async move {
                let _ = answer(socket, &*respond, &requests).await;
            });
        }
    });
    (base_url, seen)
}

/// Serve on a runtime of its own on a background thread (real time), for
/// a child process to call.
pub fn serve_in_background(
    respond: impl Fn(&Value, usize) -> Reply + Send + Sync + 'static,
) -> (String, Seen) {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            tx.send(serve(respond).await).unwrap();
            std::future::pending::<()>().await;
        });
    });
    rx.recv().unwrap()
}

/// Whether a request asked for the final answer (prose) rather than a
/// contribution.
pub fn asks_for_the_final_answer(request: &Value) -> bool {
    request["messages"][0]["content"]
        .as_str()
        .is_some_and(|system| system.contains("final operations"))
}

async fn answer(
    mut socket: TcpStream,
    respond: &(dyn Fn(&Value, usize) -> Reply + Send + Sync),
    seen: &Mutex<Vec<Value>>,
) -> std::io::Result<()> {
    let body = read_request(&mut socket).await?;
    let number = {
        let mut seen = seen.lock().unwrap();
        seen.push(body.clone());
        seen.len() - 1
    };
    match respond(&body, number) {
        Reply::Status(status) => {
            let error =
                json!({"error": {"message": "overloaded, try again", "type": "overloaded_error"}})
                    .to_string();
            let head = format!(
                "HTTP/1.1 {status} Status\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                error.len()
            );
            socket.write_all(head.as_bytes()).await?;
            socket.write_all(error.as_bytes()).await?;
        }
        Reply::Whole(text) => {
            let document = json!({
                "object": "chat.completion",
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": text}}],
                "usage": usage()
            })
            .to_string();
            let head = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                document.len()
            );
            socket.write_all(head.as_bytes()).await?;
            socket.write_all(document.as_bytes()).await?;
        }
        Reply::Stream(streamed) => stream(&mut socket, &streamed).await?,
    }
    socket.flush().await?;
    socket.shutdown().await
}

fn usage() -> Value {
    json!({"prompt_tokens": PROMPT_TOKENS, "completion_tokens": COMPLETION_TOKENS,
           "total_tokens": PROMPT_TOKENS + COMPLETION_TOKENS})
}

async fn stream(socket: &mut TcpStream, streamed: &Streamed) -> std::io::Result<()> {
    let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n";
    socket.write_all(head.as_bytes()).await?;
    let event = |value: Value| format!("data: {value}\n\n");
    let mut opening = json!({"role": "assistant", "content": ""});
    if let Some(name) = &streamed.function {
        opening = json!({"role": "assistant", "content": null, "tool_calls": [{"index": 0,
            "id": "call_0", "type": "function", "function": {"name": name, "arguments": ""}}]});
    }
    let role = json!({"object": "chat.completion.chunk",
                      "choices": [{"index": 0, "delta": opening}]});
    socket.write_all(event(role).as_bytes()).await?;
    for (i, part) in streamed.parts().into_iter().enumerate() {
        if streamed.cut_after == Some(i) {
            return Ok(());
        }
        if let Some((at, release)) = &streamed.hold
            && *at == i
        {
            release.notified().await;
        }
        tokio::time::sleep(streamed.every).await;
        let delta = match streamed.function {
            Some(_) => json!({"tool_calls": [{"index": 0, "function": {"arguments": part}}]}),
            None => json!({"content": part}),
        };
        let chunk = json!({"object": "chat.completion.chunk",
                           "choices": [{"index": 0, "delta": delta, "finish_reason": null}]});
        socket.write_all(event(chunk).as_bytes()).await?;
        socket.flush().await?;
    }
    let reason = if streamed.function.is_some() {
        "tool_calls"
    } else {
        "stop"
    };
    let finish = json!({"object": "chat.completion.chunk",
                        "choices": [{"index": 0, "delta": {}, "finish_reason": reason}]});
    let choices = if streamed.litellm {
        json!([{"index": 0, "delta": {}}])
    } else {
        json!([])
    };
    let last = json!({"object": "chat.completion.chunk", "choices": choices, "usage": usage()});
    socket
        .write_all(format!("{}{}data: [DONE]\n\n", event(finish), event(last)).as_bytes())
        .await
}

/// The JSON body of one HTTP/1.1 request.
async fn read_request(socket: &mut TcpStream) -> std::io::Result<Value> {
    let mut bytes = Vec::new();
    let mut buf = [0u8; 8192];
    let head_end = loop {
        let n = socket.read(&mut buf).await?;
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        bytes.extend_from_slice(&buf[..n]);
        if let Some(at) = bytes.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
    };
    let head = String::from_utf8_lossy(&bytes[..head_end]).to_ascii_lowercase();
    let length: usize = head
        .lines()
        .find_map(|line| line.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    while bytes.len() < head_end + length {
        let n = socket.read(&mut buf).await?;
        if n == 0 {
            break;
        }
        bytes.extend_from_slice(&buf[..n]);
    }
    Ok(serde_json::from_slice(&bytes[head_end..]).unwrap_or(Value::Null))
}
