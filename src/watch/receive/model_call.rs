//! The model endpoint on the receiver's listener: a request under
//! `/gateway/<run>/v1/` read (at most the endpoint's body limit, in the
//! listener's read time) and handed to the gateway's endpoint, its answer
//! written back whole or as the upstream's stream, piece by piece.

use crate::gateway::endpoint::{
    self, Endpoints, Forwarded, MAX_REQUEST, Refused, Served, ServedBody,
};
use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, Limited, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::header::{CONTENT_TYPE, HeaderValue};
use hyper::{Request, Response, StatusCode};
use std::time::Duration;

type BoxError = Box<dyn std::error::Error + Send + Sync>;
type Reply = Response<BoxBody<Bytes, BoxError>>;

/// Answer one request to the model endpoint; `admitted` says whether its
/// sender may call (loopback without a token, or the token presented).
pub(super) async fn answer(
    gateway: &Endpoints,
    request: Request<Incoming>,
    admitted: bool,
    read_timeout: Duration,
) -> Reply {
    if !admitted {
        let message = "this endpoint needs an Authorization: Bearer token (the value of the watch's --token-env variable, given to the program as its API key)";
        return reply(Served::refusal(&Refused::new(401, message)));
    }
    let path = request.uri().path().to_string();
    let method = request.method().as_str().to_string();
    let route = match endpoint::route(&method, &path) {
        Ok(route) => route,
        Err(refused) => return reply(Served::refusal(&refused)),
    };
    let forwarded = match Forwarded::of(request.headers()) {
        Ok(forwarded) => forwarded,
        Err(refused) => return reply(Served::refusal(&refused)),
    };
    let read = Limited::new(request.into_body(), MAX_REQUEST).collect();
    let body = match tokio::time::timeout(read_timeout, read).await {
        Err(_) => Err(Refused::new(408, "the request body did not arrive in time")),
        Ok(Err(error)) if error.is::<http_body_util::LengthLimitError>() => Err(Refused::new(
            413,
            format!("the request body is over the endpoint's limit of {MAX_REQUEST} bytes"),
        )),
        Ok(Err(error)) => Err(Refused::new(
            400,
            format!("the request body could not be read: {error}"),
        )),
        Ok(Ok(collected)) => Ok(collected.to_bytes()),
    };
    match body {
        Ok(body) => reply(gateway.call(route, &body, &forwarded).await),
        Err(refused) => reply(Served::refusal(&refused)),
    }
}

/// `served` as the listener writes it.
fn reply(served: Served) -> Reply {
    let body = match served.body {
        ServedBody::Whole(bytes) => Full::new(Bytes::from(bytes))
            .map_err(|never| match never {})
            .boxed(),
        ServedBody::Stream(pieces) => {
            let frames = futures_util::stream::unfold(pieces, |mut pieces| async move {
                let piece = pieces.recv().await?;
                let frame = piece
                    .map(|bytes| Frame::data(Bytes::from(bytes)))
                    .map_err(BoxError::from);
                Some((frame, pieces))
            });
            BodyExt::boxed(StreamBody::new(frames))
        }
    };
    let mut response = Response::new(body);
    *response.status_mut() = StatusCode::from_u16(served.status).unwrap_or(StatusCode::BAD_GATEWAY);
    if let Ok(value) = HeaderValue::from_str(&served.content_type) {
        response.headers_mut().insert(CONTENT_TYPE, value);
    }
    if served.final_refusal {
        response
            .headers_mut()
            .insert("x-should-retry", HeaderValue::from_static("false"));
    }
    response
}
