//! Hostile bodies: each gets a clear answer, never a panic, a hang or
//! memory beyond the limit. What is well-formed passes through as sent
//! (escape sequences included): cleaning text is the reader's and the
//! dashboard's business.

use super::*;
use opentelemetry_proto::tonic::common::v1::KeyValueList;
use serde_json::{Value, json};

async fn status_of(
    addr: SocketAddr,
    content_type: &str,
    encoding: Option<&str>,
    body: Vec<u8>,
) -> (u16, String) {
    let (status, body) = answer(post(addr, content_type, encoding, None, body).await).await;
    let message = match content_type {
        JSON => serde_json::from_slice::<Value>(&body)
            .map(|v| v.to_string())
            .unwrap_or_default(),
        _ => prost::Message::decode(body)
            .map(|s: tonic_types::Status| s.message)
            .unwrap_or_default(),
    };
    (status, message)
}

/// An attribute value nested `depth` key-value lists deep.
fn nested(depth: usize) -> AnyValue {
    let mut value = AnyValue {
        value: Some(any_value::Value::StringValue("bottom".into())),
    };
    for _ in 0..depth {
        value = AnyValue {
            value: Some(any_value::Value::KvlistValue(KeyValueList {
                values: vec![KeyValue {
                    key: "k".into(),
                    value: Some(value),
                    ..KeyValue::default()
                }],
            })),
        };
    }
    value
}

#[tokio::test]
async fn malformed_bodies_are_answered_400_with_what_was_wrong() {
    let (receiving, mut batches) = start(config(), 64).await;
    let addr = receiving.http_addr();
    let valid = protobuf(&request(vec![span(1, 1, None, "a")]));

    let (status, message) = status_of(
        addr,
        PROTOBUF,
        None,
        b"\x0a\xff\xff\xff\xff\x0fgarbage".to_vec(),
    )
    .await;
    assert_eq!(status, 400, "{message}");
    let (status, _) = status_of(addr, PROTOBUF, None, valid[..valid.len() - 3].to_vec()).await;
    assert_eq!(status, 400, "a truncated message");
    let gzipped = gzip(&valid);
    let (status, message) = status_of(
        addr,
        PROTOBUF,
        Some("gzip"),
        gzipped[..gzipped.len() / 2].to_vec(),
    )
    .await;
    assert_eq!(status, 400);
    assert!(message.contains("gzip"), "{message}");
    let (status, _) = status_of(addr, PROTOBUF, Some("gzip"), valid.clone()).await;
    assert_eq!(status, 400, "gzip declared, not sent");

    // A string field that is not UTF-8.
    let mut bad_utf8 = protobuf(&request(vec![span(1, 1, None, "abc")]));
    let at = bad_utf8.windows(3).position(|w| w == b"abc").unwrap();
    bad_utf8[at] = 0xff;
    let (status, _) = status_of(addr, PROTOBUF, None, bad_utf8).await;
    assert_eq!(status, 400);

    // Nesting past the decoders' depth limits is refused, not recursed into.
    let mut deep = span(1, 1, None, "deep");
    deep.attributes[0].value = Some(nested(200));
    let (status, _) = status_of(addr, PROTOBUF, None, protobuf(&request(vec![deep]))).await;
    assert_eq!(status, 400, "protobuf nested 200 deep");
    let deep_json = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let (status, _) = status_of(addr, JSON, None, deep_json.into_bytes()).await;
    assert_eq!(status, 400, "JSON nested 100,000 deep");

    let odd = json!({"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "abc", "spanId": "01"}]}]}]});
    let (status, message) = status_of(addr, JSON, None, odd.to_string().into_bytes()).await;
    assert_eq!(status, 400);
    assert!(message.contains("odd number of digits"), "{message}");
    let (status, _) = status_of(addr, JSON, None, b"\xff\xfe not json".to_vec()).await;
    assert_eq!(status, 400);

    assert!(
        batches.try_recv().is_err(),
        "nothing malformed is handed on"
    );
    assert_eq!(
        receiving
            .counts()
            .refused(super::super::Refusal::BadRequest),
        9
    );
}

#[tokio::test]
async fn a_gzip_bomb_is_refused_at_the_limit() {
    let (receiving, mut batches) = start(config(), 4).await;
    // 1 GiB of zeros in about a megabyte: a gzip member of a megabyte of
    // zeros, 1024 times (members in a row are one body).
    let member = gzip(&vec![0u8; 1 << 20]);
    let bomb = member.repeat(1024);
    assert!(bomb.len() < 8 << 20, "{}", bomb.len());
    let (status, message) = status_of(receiving.http_addr(), PROTOBUF, Some("gzip"), bomb).await;
    assert_eq!(status, 413);
    assert!(message.contains("8388608 bytes"), "{message}");
    assert!(batches.try_recv().is_err());
}

/// A receiver whose limit is raised to 16 MiB.
async fn roomy() -> (Receiving, mpsc::Receiver<Batch>) {
    let config = ReceiveConfig {
        max_body: 16 << 20,
        ..config()
    };
    start(config, 4).await
}

#[tokio::test]
async fn a_ten_megabyte_attribute_passes_under_a_raised_limit() {
    let (receiving, mut batches) = roomy().await;
    let mut huge = span(1, 1, None, "huge attribute");
    huge.attributes[0].value = Some(AnyValue {
        value: Some(any_value::Value::StringValue("y".repeat(10 << 20))),
    });
    let body = protobuf(&request(vec![huge.clone()]));
    let (status, _) = status_of(receiving.http_addr(), PROTOBUF, None, body).await;
    assert_eq!(status, 200);
    let batch = batches.recv().await.unwrap();
    assert!(spans_of(&batch)[0] == &huge);
}

#[tokio::test]
async fn escape_sequences_in_names_pass_through_as_sent() {
    let (receiving, mut batches) = roomy().await;
    let escapes = "\u{1b}[2J\u{1b}]0;owned\u{7}\u{9b}31m\r\u{0}name";
    let json = json!({"resourceSpans": [{"scopeSpans": [{"spans": [{
        "traceId": "0102030405060708090a0b0c0d0e0f10", "spanId": "0102030405060708",
        "name": escapes, "attributes": [{"key": escapes, "value": {"stringValue": escapes}}]}]}]}]});
    let (status, _) = status_of(
        receiving.http_addr(),
        JSON,
        None,
        json.to_string().into_bytes(),
    )
    .await;
    assert_eq!(status, 200);
    let batch = batches.recv().await.unwrap();
    assert_eq!(spans_of(&batch)[0].name, escapes);
    assert_eq!(spans_of(&batch)[0].attributes[0].key, escapes);
}

#[tokio::test]
async fn a_hundred_thousand_spans_of_one_trace_in_one_request_pass() {
    let (receiving, mut batches) = roomy().await;
    let many: Vec<Span> = (0..100_000u32)
        .map(|n| {
            let mut s = span(7, 1, Some(1), "");
            s.span_id = (u64::from(n) + 1).to_be_bytes().to_vec();
            s
        })
        .collect();
    let body = gzip(&protobuf(&request(many)));
    let (status, _) = status_of(receiving.http_addr(), PROTOBUF, Some("gzip"), body).await;
    assert_eq!(status, 200);
    assert_eq!(spans_of(&batches.recv().await.unwrap()).len(), 100_000);
}

#[tokio::test]
async fn the_default_limit_refuses_a_ten_megabyte_attribute() {
    let (receiving, _batches) = start(config(), 4).await;
    let mut huge = span(1, 1, None, "huge attribute");
    huge.attributes[0].value = Some(AnyValue {
        value: Some(any_value::Value::StringValue("y".repeat(10 << 20))),
    });
    let body = protobuf(&request(vec![huge]));
    let (status, _) = status_of(receiving.http_addr(), PROTOBUF, None, body.clone()).await;
    assert_eq!(status, 413);
    let (status, _) = status_of(receiving.http_addr(), PROTOBUF, Some("gzip"), gzip(&body)).await;
    assert_eq!(status, 413, "compressed small, inflated over the limit");
}

#[tokio::test]
async fn negative_timestamps_are_refused_and_future_ones_pass_as_sent() {
    let (receiving, mut batches) = roomy().await;
    let addr = receiving.http_addr();
    let with_start = |start: Value| {
        json!({"resourceSpans": [{"scopeSpans": [{"spans": [{
            "traceId": "0102030405060708090a0b0c0d0e0f10", "spanId": "0102030405060708",
            "name": "t", "startTimeUnixNano": start, "endTimeUnixNano": "1"}]}]}]})
        .to_string()
        .into_bytes()
    };
    // A timestamp is unsigned: a negative one does not decode.
    for negative in [json!("-5"), json!(-5)] {
        let (status, message) = status_of(addr, JSON, None, with_start(negative)).await;
        assert_eq!(status, 400, "{message}");
    }
    // One in the far future (and ending before it starts) passes as sent;
    // the reader draws it with no duration.
    let (status, _) = status_of(addr, JSON, None, with_start(json!(u64::MAX.to_string()))).await;
    assert_eq!(status, 200);
    assert_eq!(
        spans_of(&batches.recv().await.unwrap())[0].start_time_unix_nano,
        u64::MAX
    );
}
