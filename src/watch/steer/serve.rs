//! Steering over HTTP, on the receiver's listener: the receiver hands
//! every request under [`PREFIX`] here, with whether its token (when the
//! watch has one) was presented. Bodies are JSON, at most
//! [`super::MAX_BODY`] bytes; every answer is JSON, a refusal
//! `{"error": "..."}` with its status.

use super::protocol::{ControlRequest, HookRequest, Refused, answer_json};
use super::{HookAnswer, MAX_BODY, Steering};
use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::header::{CONTENT_TYPE, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use serde_json::json;
use std::time::Duration;

/// Every steering path starts so.
pub const PREFIX: &str = "/v1/steer/";

type Answer = Response<Full<Bytes>>;

/// Whether `path` is a steering path.
pub fn handles(path: &str) -> bool {
    path.starts_with(PREFIX)
}

/// Answer one steering request; `admitted` says whether its sender may
/// speak (loopback without a token, or the token presented).
pub async fn answer(
    steering: &Steering,
    request: Request<Incoming>,
    admitted: bool,
    read_timeout: Duration,
) -> Answer {
    if !admitted {
        return refusal(&Refused::Unauthorized);
    }
    let path = request.uri().path().to_string();
    let method = request.method().clone();
    match (method, path.as_str()) {
        (Method::GET, "/v1/steer/runs") => {
            let (after, wait) = list_query(request.uri().query().unwrap_or(""));
            let (version, runs) = steering.list_after(after, wait).await;
            ok(json!({"version": version, "runs": runs}))
        }
        (Method::POST, "/v1/steer/hook") => match body(request, read_timeout).await {
            Ok(bytes) => hook(steering, &bytes).await,
            Err(refused) => refusal(&refused),
        },
        (Method::POST, "/v1/steer/control") => match body(request, read_timeout).await {
            Ok(bytes) => control(steering, &bytes),
            Err(refused) => refusal(&refused),
        },
        _ => refusal(&Refused::NotFound),
    }
}

/// `?after=N&wait_ms=M`: the change number seen last and how long to wait
/// for the next.
fn list_query(query: &str) -> (Option<u64>, Duration) {
    let mut after = None;
    let mut wait = Duration::ZERO;
    for pair in query.split('&') {
        match pair.split_once('=') {
            Some(("after", n)) => after = n.parse().ok(),
            Some(("wait_ms", n)) => wait = Duration::from_millis(n.parse().unwrap_or(0)),
            _ => {}
        }
    }
    (after, wait)
}

async fn hook(steering: &Steering, bytes: &[u8]) -> Answer {
    let request: HookRequest = match serde_json::from_slice(bytes) {
        Ok(request) => request,
        Err(e) => return refusal(&Refused::Bad(format!("not a hook request: {e}"))),
    };
    let mut said = match steering.hook(request).await {
        Ok(HookAnswer::Now(answer, flags)) => answer_json(&answer, &flags),
        Ok(HookAnswer::Waiting(id)) => json!({"status": "waiting", "id": id}),
        Ok(HookAnswer::Flags(flags)) => json!({"status": "declared", "flags": flags}),
        Err(refused) => return refusal(&refused),
    };
    // The breakpoints, for a hook whose gates pass under a lease.
    let breaks = steering.breaks();
    if !breaks.is_empty() {
        said["breaks"] = json!(breaks);
    }
    ok(said)
}

fn control(steering: &Steering, bytes: &[u8]) -> Answer {
    let request: ControlRequest = match serde_json::from_slice(bytes) {
        Ok(request) => request,
        Err(e) => return refusal(&Refused::Bad(format!("not a steering request: {e}"))),
    };
    match steering.control(request) {
        Ok(()) => ok(json!({"ok": true})),
        Err(refused) => refusal(&refused),
    }
}

/// The body, at most [`MAX_BODY`] bytes, read within `timeout`.
async fn body(request: Request<Incoming>, timeout: Duration) -> Result<Bytes, Refused> {
    let limited = Limited::new(request.into_body(), MAX_BODY);
    match tokio::time::timeout(timeout, limited.collect()).await {
        Err(_) => Err(Refused::Bad("the body did not arrive in time".into())),
        Ok(Ok(collected)) => Ok(collected.to_bytes()),
        Ok(Err(e)) if e.is::<http_body_util::LengthLimitError>() => {
            Err(Refused::TooLarge(MAX_BODY))
        }
        Ok(Err(e)) => Err(Refused::Bad(format!("the body could not be read: {e}"))),
    }
}

fn ok(value: serde_json::Value) -> Answer {
    with_json(StatusCode::OK, &value)
}

fn refusal(refused: &Refused) -> Answer {
    let status = StatusCode::from_u16(refused.status()).unwrap_or(StatusCode::BAD_REQUEST);
    let mut answer = with_json(status, &json!({"error": refused.to_string()}));
    if matches!(refused, Refused::Unauthorized) {
        answer.headers_mut().insert(
            hyper::header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Bearer"),
        );
    }
    answer
}

fn with_json(status: StatusCode, value: &serde_json::Value) -> Answer {
    let mut response = Response::new(Full::new(Bytes::from(value.to_string())));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}
