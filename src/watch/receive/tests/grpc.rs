//! OTLP/gRPC through tonic's generated client: export, gzip, partial
//! success, `RESOURCE_EXHAUSTED` with a retry delay, the token.

use super::*;
use crate::watch::receive::Refusal;
use opentelemetry_proto::tonic::collector::trace::v1::trace_service_client::TraceServiceClient;
use std::time::Duration;
use tonic::Code;
use tonic::codec::CompressionEncoding;
use tonic::transport::Channel;
use tonic_types::StatusExt;

async fn connect(receiving: &Receiving) -> TraceServiceClient<Channel> {
    let addr = receiving.grpc_addr().expect("gRPC is on");
    TraceServiceClient::connect(format!("http://{addr}"))
        .await
        .expect("the receiver accepts")
}

#[tokio::test]
async fn export_compressed_or_not_is_handed_on_with_partial_success() {
    let (receiving, mut batches) = start(config(), 8).await;
    let mut client = connect(&receiving).await;
    let answer = client
        .export(request(vec![
            span(3, 1, None, "root"),
            span(3, 2, Some(1), "child"),
        ]))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(answer.partial_success, None);
    let batch = batches.recv().await.unwrap();
    assert_eq!(spans_of(&batch).len(), 2);

    let mut gzipped = client.send_compressed(CompressionEncoding::Gzip);
    let mut bad = span(3, 3, None, "bad parent");
    bad.parent_span_id = vec![1, 2, 3];
    let answer = gzipped
        .export(request(vec![span(3, 4, None, "kept"), bad]))
        .await
        .unwrap()
        .into_inner();
    let partial = answer.partial_success.unwrap();
    assert_eq!(partial.rejected_spans, 1);
    assert!(
        partial.error_message.contains("parent_span_id"),
        "{}",
        partial.error_message
    );
    assert_eq!(spans_of(&batches.recv().await.unwrap())[0].name, "kept");
    assert_eq!(receiving.counts().spans_accepted, 3);
}

#[tokio::test]
async fn a_full_queue_is_resource_exhausted_with_a_retry_delay() {
    let (receiving, mut batches) = start(config(), 1).await;
    let mut client = connect(&receiving).await;
    client
        .export(request(vec![span(1, 1, None, "a")]))
        .await
        .unwrap();
    let status = client
        .export(request(vec![span(1, 2, None, "b")]))
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::ResourceExhausted);
    let retry = status.get_details_retry_info().expect("a retry hint");
    assert_eq!(retry.retry_delay, Some(Duration::from_secs(1)));
    batches.recv().await.unwrap();
    client
        .export(request(vec![span(1, 3, None, "c")]))
        .await
        .unwrap();
    assert_eq!(receiving.counts().refused(Refusal::QueueFull), 1);
}

#[tokio::test]
async fn over_the_limit_is_refused_and_a_compressed_bomb_stops_at_it() {
    let config = ReceiveConfig {
        max_body: 64 * 1024,
        ..config()
    };
    let (receiving, mut batches) = start(config, 4).await;
    let mut big = span(1, 1, None, "big");
    big.name = "x".repeat(100 * 1024);
    let mut client = connect(&receiving).await;
    let status = client.export(request(vec![big.clone()])).await.unwrap_err();
    assert_eq!(status.code(), Code::OutOfRange, "{status:?}");
    // 100 KiB of one letter is a few hundred bytes of gzip.
    let mut gzipped = client.send_compressed(CompressionEncoding::Gzip);
    let status = gzipped.export(request(vec![big])).await.unwrap_err();
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    assert!(status.message().contains("decompressing"), "{status:?}");
    assert!(batches.try_recv().is_err());
}

#[tokio::test]
async fn the_token_is_read_from_the_authorization_metadata() {
    let guarded = ReceiveConfig {
        token_env: Some(TOKEN_VAR.into()),
        ..config()
    };
    let (receiving, mut batches) = start(guarded, 4).await;
    let mut client = connect(&receiving).await;
    let status = client
        .export(request(vec![span(1, 1, None, "a")]))
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::Unauthenticated);
    let mut wrong = tonic::Request::new(request(vec![span(1, 1, None, "a")]));
    wrong
        .metadata_mut()
        .insert("authorization", "Bearer nope".parse().unwrap());
    assert_eq!(
        client.export(wrong).await.unwrap_err().code(),
        Code::Unauthenticated
    );
    let mut right = tonic::Request::new(request(vec![span(1, 1, None, "a")]));
    right
        .metadata_mut()
        .insert("authorization", format!("Bearer {TOKEN}").parse().unwrap());
    client.export(right).await.unwrap();
    assert_eq!(spans_of(&batches.recv().await.unwrap()).len(), 1);
    assert_eq!(receiving.counts().refused(Refusal::Unauthorized), 2);
}
