//! OTLP/HTTP answers, each status as the specification gives it.

use super::*;
use crate::watch::receive::{ReceiveError, Refusal};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceResponse;
use prost::Message;
use serde_json::{Value, json};

#[tokio::test]
async fn protobuf_gzip_and_json_requests_are_handed_on_and_answered_in_kind() {
    let (receiving, mut batches) = start(config(), 8).await;
    let addr = receiving.http_addr();
    let body = protobuf(&request(vec![
        span(1, 1, None, "root"),
        span(1, 2, Some(1), "child"),
    ]));

    let (status, answer) =
        super::answer(post(addr, PROTOBUF, None, None, body.clone()).await).await;
    assert_eq!(status, 200);
    assert_eq!(
        ExportTraceServiceResponse::decode(answer).unwrap(),
        ExportTraceServiceResponse::default()
    );
    let batch = batches.recv().await.unwrap();
    assert_eq!(spans_of(&batch).len(), 2);
    assert_eq!(batch.bytes, body.len());

    let (status, _) =
        super::answer(post(addr, PROTOBUF, Some("gzip"), None, gzip(&body)).await).await;
    assert_eq!(status, 200);
    let batch = batches.recv().await.unwrap();
    assert_eq!(spans_of(&batch)[1].name, "child");
    assert_eq!(batch.bytes, body.len(), "the size after decompression");

    let json = serde_json::to_vec(&request(vec![span(2, 3, None, "json root")])).unwrap();
    let response = post(
        addr,
        "application/json; charset=utf-8",
        Some("gzip"),
        None,
        gzip(&json),
    )
    .await;
    assert_eq!(response.headers()["content-type"], JSON);
    let (status, answer) = super::answer(response).await;
    assert_eq!(status, 200);
    assert_eq!(serde_json::from_slice::<Value>(&answer).unwrap(), json!({}));
    let batch = batches.recv().await.unwrap();
    assert_eq!(spans_of(&batch)[0].trace_id, vec![2; 16]);

    let counts = receiving.counts();
    assert_eq!((counts.requests_accepted, counts.spans_accepted), (3, 5));
    assert_eq!(counts.refused_total(), 0);
}

#[tokio::test]
async fn invalid_ids_are_named_in_partial_success_and_the_rest_kept() {
    let (receiving, mut batches) = start(config(), 8).await;
    let mut short = span(1, 9, None, "short trace id");
    short.trace_id.truncate(8);
    let spans = vec![
        span(1, 1, None, "kept"),
        short,
        span(1, 0, None, "zero span id"),
    ];
    let body = protobuf(&request(spans));
    let (status, answer) =
        super::answer(post(receiving.http_addr(), PROTOBUF, None, None, body).await).await;
    assert_eq!(status, 200);
    let partial = ExportTraceServiceResponse::decode(answer)
        .unwrap()
        .partial_success
        .unwrap();
    assert_eq!(partial.rejected_spans, 2);
    assert!(
        partial.error_message.contains("1 with a trace_id"),
        "{}",
        partial.error_message
    );
    assert!(
        partial.error_message.contains("1 with a span_id"),
        "{}",
        partial.error_message
    );
    let batch = batches.recv().await.unwrap();
    assert_eq!(
        spans_of(&batch)
            .iter()
            .map(|s| s.name.as_str())
            .collect::<Vec<_>>(),
        ["kept"]
    );

    // In JSON, the same answer in JSON.
    let json = json!({"resourceSpans": [{"scopeSpans": [{"spans": [
        {"traceId": "0102", "spanId": "0102030405060708", "name": "two-byte trace id"}]}]}]});
    let response = post(receiving.http_addr(), JSON, None, None, json.to_string()).await;
    let (status, answer) = super::answer(response).await;
    assert_eq!(status, 200);
    let answer: Value = serde_json::from_slice(&answer).unwrap();
    assert_eq!(
        answer["partialSuccess"]["rejectedSpans"],
        json!(1),
        "{answer}"
    );
    assert_eq!(receiving.counts().spans_rejected, 3);
}

#[tokio::test]
async fn refusals_carry_their_status_and_a_message() {
    let config = ReceiveConfig {
        max_body: 4096,
        ..config()
    };
    let (receiving, _batches) = start(config, 8).await;
    let addr = receiving.http_addr();

    let (status, body) =
        super::answer(post(addr, PROTOBUF, None, None, vec![0xff; 100]).await).await;
    assert_eq!(status, 400);
    let message = tonic_types::Status::decode(body).unwrap().message;
    assert!(message.contains("protobuf"), "{message}");

    let (status, body) =
        super::answer(post(addr, JSON, None, None, "{\"resourceSpans\": [").await).await;
    assert_eq!(status, 400);
    let body: Value = serde_json::from_slice(&body).unwrap();
    assert!(body["message"].as_str().unwrap().contains("JSON"), "{body}");

    let (status, body) = super::answer(post(addr, "text/plain", None, None, "hello").await).await;
    assert_eq!(status, 415);
    assert!(String::from_utf8_lossy(&body).contains("application/x-protobuf"));
    let (status, _) = super::answer(post(addr, PROTOBUF, Some("br"), None, vec![1]).await).await;
    assert_eq!(status, 415);

    let (status, _) = super::answer(post(addr, PROTOBUF, None, None, vec![0; 5000]).await).await;
    assert_eq!(status, 413, "declared too long");
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> =
        (0..10).map(|_| Ok(vec![0u8; 1000])).collect();
    let streamed = reqwest::Body::wrap_stream(futures_util::stream::iter(chunks));
    let (status, _) = super::answer(post(addr, PROTOBUF, None, None, streamed).await).await;
    assert_eq!(status, 413, "streamed past the limit without a length");
    let (status, _) =
        super::answer(post(addr, PROTOBUF, Some("gzip"), None, gzip(&[0; 5000])).await).await;
    assert_eq!(status, 413, "inflated past the limit");

    let wrong_path = client()
        .post(format!("http://{addr}/v1/logs"))
        .body("x")
        .send()
        .await
        .unwrap();
    assert_eq!(wrong_path.status().as_u16(), 404);
    let get = client().get(traces_url(addr)).send().await.unwrap();
    assert_eq!(get.status().as_u16(), 405);
    assert_eq!(get.headers()["allow"], "POST");

    let counts = receiving.counts();
    assert_eq!(counts.refused(Refusal::BadRequest), 2);
    assert_eq!(counts.refused(Refusal::Unsupported), 2);
    assert_eq!(counts.refused(Refusal::TooLarge), 3);
    assert_eq!(counts.refused(Refusal::NotFound), 2);
    assert_eq!(counts.requests_accepted, 0);
}

#[tokio::test]
async fn a_full_queue_is_answered_429_until_it_drains() {
    let (receiving, mut batches) = start(config(), 1).await;
    let addr = receiving.http_addr();
    let body = protobuf(&request(vec![span(1, 1, None, "a"), span(1, 2, None, "b")]));
    assert_eq!(
        post(addr, PROTOBUF, None, None, body.clone())
            .await
            .status()
            .as_u16(),
        200
    );
    let full = post(addr, PROTOBUF, None, None, body.clone()).await;
    assert_eq!(full.status().as_u16(), 429);
    assert_eq!(full.headers()["retry-after"], "1");
    let full = post(
        addr,
        JSON,
        None,
        None,
        serde_json::to_vec(&request(vec![span(1, 3, None, "c")])).unwrap(),
    )
    .await;
    assert_eq!(full.status().as_u16(), 429);
    let (_, body_json) = super::answer(full).await;
    let refusal: Value = serde_json::from_slice(&body_json).unwrap();
    assert!(
        refusal["message"]
            .as_str()
            .unwrap()
            .contains("queue is full"),
        "{refusal}"
    );

    assert_eq!(spans_of(&batches.recv().await.unwrap()).len(), 2);
    assert_eq!(
        post(addr, PROTOBUF, None, None, body)
            .await
            .status()
            .as_u16(),
        200
    );
    let counts = receiving.counts();
    assert_eq!(counts.refused(Refusal::QueueFull), 2);
    assert_eq!((counts.spans_accepted, counts.spans_refused), (4, 3));
}

#[tokio::test]
async fn a_stopped_consumer_is_answered_503() {
    let (receiving, batches) = start(config(), 1).await;
    drop(batches);
    let body = protobuf(&request(vec![span(1, 1, None, "a")]));
    let response = post(receiving.http_addr(), PROTOBUF, None, None, body).await;
    assert_eq!(response.status().as_u16(), 503);
    assert!(response.headers().contains_key("retry-after"));
}

#[tokio::test]
async fn beyond_loopback_the_token_is_required_and_checked() {
    let open = ReceiveConfig {
        listen: "0.0.0.0:0".parse().unwrap(),
        grpc: None,
        ..config()
    };
    let (sink, _batches) = mpsc::channel(4);
    let error = serve_with_env(open.clone(), sink, &|_| None)
        .await
        .unwrap_err();
    assert!(matches!(
        error,
        ReceiveError::TokenRequired {
            flag: "--listen",
            ..
        }
    ));
    assert!(
        error.to_string().starts_with("--listen 0.0.0.0:0: "),
        "{error}"
    );
    assert!(error.to_string().contains("--token-env"), "{error}");

    let guarded = ReceiveConfig {
        token_env: Some(TOKEN_VAR.into()),
        ..open
    };
    let (receiving, mut batches) = start(guarded, 4).await;
    let addr = SocketAddr::from(([127, 0, 0, 1], receiving.http_addr().port()));
    let body = protobuf(&request(vec![span(1, 1, None, "a")]));
    let none = post(addr, PROTOBUF, None, None, body.clone()).await;
    assert_eq!(none.status().as_u16(), 401);
    assert_eq!(none.headers()["www-authenticate"], "Bearer");
    let wrong = post(
        addr,
        PROTOBUF,
        None,
        Some("a-long-test-token-9f2d"),
        body.clone(),
    )
    .await;
    assert_eq!(wrong.status().as_u16(), 401);
    assert!(batches.try_recv().is_err(), "nothing refused is handed on");
    let right = post(addr, PROTOBUF, None, Some(TOKEN), body).await;
    assert_eq!(right.status().as_u16(), 200);
    assert_eq!(batches.recv().await.map(|b| spans_of(&b).len()), Some(1));
    assert_eq!(receiving.counts().refused(Refusal::Unauthorized), 2);
}
