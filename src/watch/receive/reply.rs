//! The HTTP answers, as OTLP/HTTP says: 200 with an
//! `ExportTraceServiceResponse`, a failure with a `google.rpc.Status`
//! whose message says what was wrong, both in the request's encoding (a
//! request whose encoding is not known gets plain text).

use super::counters::Refusal;
use super::decode::Encoding;
use bytes::Bytes;
use http_body_util::Full;
use hyper::header::{CONTENT_TYPE, HeaderValue, RETRY_AFTER, WWW_AUTHENTICATE};
use hyper::{Response, StatusCode};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceResponse;
use prost::Message;
use std::time::Duration;

pub(super) type Answer = Response<Full<Bytes>>;

fn with_body(status: StatusCode, content_type: &'static str, body: Vec<u8>) -> Answer {
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

/// 200 with the export's answer.
pub(super) fn success(encoding: Encoding, answer: &ExportTraceServiceResponse) -> Answer {
    let body = match encoding {
        Encoding::Protobuf => answer.encode_to_vec(),
        // Written by hand: the mapping would write an absent
        // `partialSuccess` as null, where OTLP/JSON leaves it out.
        Encoding::Json => match &answer.partial_success {
            None => b"{}".to_vec(),
            Some(partial) => serde_json::json!({"partialSuccess": {
                "rejectedSpans": partial.rejected_spans,
                "errorMessage": partial.error_message,
            }})
            .to_string()
            .into_bytes(),
        },
    };
    with_body(StatusCode::OK, encoding.content_type(), body)
}

/// The gRPC code a `google.rpc.Status` carries for each refusal.
fn rpc_code(why: Refusal) -> i32 {
    let code = match why {
        Refusal::BadRequest => tonic::Code::InvalidArgument,
        Refusal::Unauthorized => tonic::Code::Unauthenticated,
        Refusal::NotFound => tonic::Code::NotFound,
        Refusal::Timeout => tonic::Code::DeadlineExceeded,
        Refusal::TooLarge | Refusal::QueueFull => tonic::Code::ResourceExhausted,
        Refusal::Unsupported => tonic::Code::InvalidArgument,
        Refusal::Unavailable => tonic::Code::Unavailable,
    };
    code as i32
}

/// A refusal with `message`, in `encoding` when it is known.
pub(super) fn refusal(why: Refusal, encoding: Option<Encoding>, message: &str) -> Answer {
    let status = StatusCode::from_u16(why.status()).unwrap_or(StatusCode::BAD_REQUEST);
    let code = rpc_code(why);
    let mut response = match encoding {
        Some(Encoding::Protobuf) => {
            let body = tonic_types::Status {
                code,
                message: message.to_string(),
                details: Vec::new(),
            };
            with_body(
                status,
                Encoding::Protobuf.content_type(),
                body.encode_to_vec(),
            )
        }
        Some(Encoding::Json) => {
            let body = serde_json::json!({"code": code, "message": message});
            with_body(
                status,
                Encoding::Json.content_type(),
                body.to_string().into_bytes(),
            )
        }
        None => with_body(
            status,
            "text/plain; charset=utf-8",
            format!("{message}\n").into_bytes(),
        ),
    };
    if why == Refusal::Unauthorized {
        response
            .headers_mut()
            .insert(WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    }
    response
}

/// A refusal the sender should retry after `wait`: 429 or 503.
pub(super) fn retry(why: Refusal, encoding: Encoding, message: &str, wait: Duration) -> Answer {
    let mut response = refusal(why, Some(encoding), message);
    let seconds = wait.as_secs_f64().ceil().max(1.0) as u64;
    response
        .headers_mut()
        .insert(RETRY_AFTER, HeaderValue::from(seconds));
    response
}
