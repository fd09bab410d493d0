//! The model endpoint on the receiver's listener (`/gateway/<run>/v1/`),
//! called by reqwest as a framework's client calls it, against a hyper
//! upstream on loopback that answers with tools and usage, streams in
//! pieces it is told when to send, cuts a stream, or is not there.

use super::*;
use crate::gateway::endpoint::{Budgets, EndpointConfig, Endpoints};
use crate::watch::receive::serve_with_gateway;
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use tokio::net::TcpListener;

/// What the upstream received: path, Authorization, body.
type Seen = Arc<Mutex<Vec<(String, Option<String>, Bytes)>>>;

/// A whole answer with a tool call and usage (cached and reasoning).
fn answer() -> Value {
    json!({"id": "c1", "object": "chat.completion", "model": "gpt-4o-2024-08-06",
           "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": null,
               "tool_calls": [{"id": "t1", "type": "function", "function": {"name": "lookup", "arguments": "{\"id\":7}"}}]}}],
           "usage": {"prompt_tokens": 1000, "completion_tokens": 200,
                     "prompt_tokens_details": {"cached_tokens": 400},
                     "completion_tokens_details": {"reasoning_tokens": 50}}})
}

pub(super) fn chunk(text: &str) -> String {
    let chunk = json!({"model": "gpt-4o", "choices": [{"index": 0, "delta": {"content": text}}]});
    format!("data: {chunk}\n\n")
}

const USAGE: &str =
    r#"data: {"model":"gpt-4o","choices":[],"usage":{"prompt_tokens":30,"completion_tokens":5}}"#;

/// The upstream: whole answers, models, and streams whose second piece
/// waits for `gate`; a stream for the model `cut` ends without `[DONE]`.
pub(super) async fn upstream(gate: Arc<tokio::sync::Notify>) -> (SocketAddr, Seen) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let seen: Seen = Arc::default();
    let kept = Arc::clone(&seen);
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let (kept, gate) = (Arc::clone(&kept), Arc::clone(&gate));
            let service = hyper::service::service_fn(move |request: Request<Incoming>| {
                let (kept, gate) = (Arc::clone(&kept), Arc::clone(&gate));
                async move {
                    let path = request.uri().path().to_string();
                    let auth = request
                        .headers()
                        .get("authorization")
                        .map(|v| v.to_str().unwrap().to_string());
                    let body = request.into_body().collect().await.unwrap().to_bytes();
                    kept.lock()
                        .unwrap()
                        .push((path.clone(), auth, body.clone()));
                    let asked: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                    let sse = |pieces: Vec<String>| {
                        let frames = futures_util::stream::unfold(
                            (pieces.into_iter(), gate, 0),
                            |(mut pieces, gate, sent)| async move {
                                let piece = pieces.next()?;
                                if sent == 1 {
                                    gate.notified().await;
                                }
                                let frame = Ok::<_, std::convert::Infallible>(Frame::data(
                                    Bytes::from(piece),
                                ));
                                Some((frame, (pieces, gate, sent + 1)))
                            },
                        );
                        let mut reply = Response::new(BodyExt::boxed(StreamBody::new(frames)));
                        reply
                            .headers_mut()
                            .insert("content-type", "text/event-stream".parse().unwrap());
                        reply
                    };
                    let reply = if path.ends_with("/models") {
                        Response::new(
                            Full::new(Bytes::from(
                                r#"{"object":"list","data":[{"id":"gpt-4o","object":"model"}]}"#,
                            ))
                            .boxed(),
                        )
                    } else if asked["stream"] == true && asked["model"] == "cut" {
                        sse(vec![chunk("Hel")])
                    } else if asked["stream"] == true && asked["model"] == "long" {
                        // More pieces than the endpoint holds in flight
                        // and a socket takes: a client gone mid-stream is
                        // found out before the stream's end.
                        let mut pieces = vec![chunk("Hel")];
                        pieces.extend((0..10_000).map(|_| chunk("lo")));
                        pieces.push("data: [DONE]\n\n".to_string());
                        sse(pieces)
                    } else if asked["stream"] == true {
                        sse(vec![
                            chunk("Hel"),
                            chunk("lo"),
                            format!("{USAGE}\n\n"),
                            "data: [DONE]\n\n".to_string(),
                        ])
                    } else {
                        let mut reply =
                            Response::new(Full::new(Bytes::from(answer().to_string())).boxed());
                        reply
                            .headers_mut()
                            .insert("content-type", "application/json".parse().unwrap());
                        reply
                    };
                    Ok::<_, std::convert::Infallible>(reply)
                }
            });
            tokio::spawn(
                hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service),
            );
        }
    });
    (addr, seen)
}

/// The receiver with the endpoint calling `upstream`; the key is read
/// from `CARGO_PKG_NAME`, which cargo sets for every test process.
async fn endpoint(upstream: String, budgets: Budgets) -> (Receiving, Arc<Endpoints>) {
    let config = EndpointConfig {
        upstream,
        key_env: "CARGO_PKG_NAME".to_string(),
        budgets,
        pricing: None,
    };
    let endpoints = Arc::new(Endpoints::new(config).unwrap());
    let (sink, _batches) = mpsc::channel(4);
    let mut receive = super::config();
    receive.grpc = None;
    let receiving = serve_with_gateway(receive, sink, None, Arc::clone(&endpoints))
        .await
        .unwrap();
    (receiving, endpoints)
}

fn url(receiving: &Receiving, path: &str) -> String {
    format!("http://{}/gateway/run-1/v1{path}", receiving.http)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_whole_call_goes_through_unchanged_and_is_metered_and_priced() {
    let (addr, seen) = upstream(Arc::default()).await;
    let (receiving, endpoints) = endpoint(format!("http://{addr}/v1"), Budgets::default()).await;
    let asked = r#"{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"lookup","parameters":{"type":"object"}}}],"response_format":{"type":"json_schema","json_schema":{"name":"x","schema":{}}}}"#;
    let reply = client()
        .post(url(&receiving, "/chat/completions"))
        .body(asked)
        .send()
        .await
        .unwrap();
    assert_eq!(reply.status(), 200);
    let body: Value = reply.json().await.unwrap();
    assert_eq!(body, answer(), "the upstream's answer, unchanged");
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].0, "/v1/chat/completions");
    assert_eq!(
        seen[0].1.as_deref(),
        Some("Bearer conclave"),
        "the key from its variable"
    );
    assert_eq!(seen[0].2, asked.as_bytes(), "the request, byte for byte");
    let (calls, usage, over) = endpoints.spent("run-1").unwrap();
    assert_eq!(
        (
            calls,
            usage.input,
            usage.output,
            usage.cached,
            usage.reasoning
        ),
        (1, 1000, 200, 400, 50)
    );
    // gpt-4o's price, the dated name's model: 600 fresh at 2.50, 400
    // cached at 1.25, 200 out at 10.00 per million.
    assert_eq!(usage.cost_usd, Some(0.0040));
    assert_eq!(over, None);
    let models = client()
        .get(url(&receiving, "/models"))
        .send()
        .await
        .unwrap();
    assert_eq!(models.status(), 200);
    assert!(models.text().await.unwrap().contains("gpt-4o"));
    receiving.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_passes_piece_by_piece_and_its_usage_chunk_is_asked_and_kept_back() {
    let gate = Arc::new(tokio::sync::Notify::new());
    let (addr, seen) = upstream(Arc::clone(&gate)).await;
    let (receiving, endpoints) = endpoint(format!("http://{addr}/v1"), Budgets::default()).await;
    let asked = r#"{"model":"gpt-4o","stream":true,"messages":[]}"#;
    let mut reply = client()
        .post(url(&receiving, "/chat/completions"))
        .body(asked)
        .send()
        .await
        .unwrap();
    assert_eq!(reply.status(), 200);
    // The first piece comes before the upstream sends the second.
    let first = reply.chunk().await.unwrap().unwrap();
    assert_eq!(first, chunk("Hel").as_bytes());
    gate.notify_one();
    let mut rest = Vec::new();
    while let Some(piece) = reply.chunk().await.unwrap() {
        rest.extend_from_slice(&piece);
    }
    assert_eq!(
        String::from_utf8(rest).unwrap(),
        format!("{}data: [DONE]\n\n", chunk("lo"))
    );
    let sent: Value = serde_json::from_slice(&seen.lock().unwrap()[0].2).unwrap();
    assert_eq!(sent["stream_options"], json!({"include_usage": true}));
    let (calls, usage, _) = endpoints.spent("run-1").unwrap();
    assert_eq!((calls, usage.input, usage.output), (1, 30, 5));
    receiving.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn past_a_budget_the_next_call_gets_a_429_naming_it_and_never_goes_upstream() {
    let (addr, seen) = upstream(Arc::default()).await;
    let budgets = Budgets {
        max_tokens: Some(1000),
        ..Budgets::default()
    };
    let (receiving, endpoints) = endpoint(format!("http://{addr}/v1"), budgets).await;
    let asked = r#"{"model":"gpt-4o","messages":[]}"#;
    let first = client()
        .post(url(&receiving, "/chat/completions"))
        .body(asked)
        .send()
        .await
        .unwrap();
    assert_eq!(first.status(), 200, "the call that goes past finishes");
    let refused = client()
        .post(url(&receiving, "/chat/completions"))
        .body(asked)
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 429);
    assert_eq!(refused.headers()["x-should-retry"], "false");
    let body: Value = refused.json().await.unwrap();
    assert_eq!(body["error"]["code"], "max_tokens");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("--max-tokens 1000 tokens")
    );
    assert_eq!(seen.lock().unwrap().len(), 1);
    assert_eq!(
        endpoints
            .spent("run-1")
            .unwrap()
            .2
            .unwrap()
            .budget
            .stop_name(),
        "max_tokens"
    );
    receiving.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_bodies_a_cut_stream_and_a_dead_upstream_each_get_a_clear_answer() {
    let (addr, _seen) = upstream(Arc::default()).await;
    let (receiving, _) = endpoint(format!("http://{addr}/v1"), Budgets::default()).await;
    let post = |path: &str, body: Vec<u8>| client().post(url(&receiving, path)).body(body).send();
    let not_json = post("/chat/completions", b"{\"model\": ".to_vec())
        .await
        .unwrap();
    assert_eq!(not_json.status(), 400);
    let said: Value = not_json.json().await.unwrap();
    assert!(
        said["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not JSON")
    );
    let huge = post("/responses", vec![b' '; 50 * 1024 * 1024]).await;
    // The endpoint answers 413 and closes; a client still sending may see
    // the connection go instead.
    if let Ok(huge) = huge {
        assert_eq!(huge.status(), 413);
    }
    let mut cut = post(
        "/chat/completions",
        br#"{"model":"cut","stream":true}"#.to_vec(),
    )
    .await
    .unwrap();
    assert_eq!(cut.chunk().await.unwrap().unwrap(), chunk("Hel").as_bytes());
    assert!(
        cut.chunk().await.is_err(),
        "a cut stream reaches the client broken, not ended"
    );
    let wrong = client()
        .get(url(&receiving, "/chat/completions"))
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status(), 405);
    receiving.shutdown().await;
}

/// On the paused clock: the upstream's retries wait no wall time.
#[tokio::test(start_paused = true)]
async fn a_dead_upstream_is_tried_as_a_remote_model_is_then_named_in_a_502() {
    let dead = TcpListener::bind("127.0.0.1:0")
        .await
        .unwrap()
        .local_addr()
        .unwrap();
    let (receiving, _) = endpoint(
        format!("http://{dead}/v1"),
        Budgets {
            max_calls: Some(1),
            ..Budgets::default()
        },
    )
    .await;
    let down = client()
        .post(url(&receiving, "/chat/completions"))
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(down.status(), 502);
    let said: Value = down.json().await.unwrap();
    assert!(
        said["error"]["message"]
            .as_str()
            .unwrap()
            .contains("could not reach the upstream"),
        "{said}"
    );
    receiving.shutdown().await;
}
