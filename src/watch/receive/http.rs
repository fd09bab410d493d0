//! OTLP/HTTP: `POST /v1/traces`, protobuf or JSON, gzip or not, on hyper
//! (one route needs no framework, and the body must be read by hand to
//! stop at the limit). Connections are capped, requests being read are
//! capped (see `Intake::admit`), and a sender that does not send its
//! headers or body in time is answered 408 and closed.

use super::ReceiveConfig;
use super::auth::Token;
use super::body::{self, BodyError};
use super::counters::Refusal;
use super::decode::{self, Encoding};
use super::forward::Payload;
use super::intake::{Intake, Taken};
use super::model_call;
use super::reply::{self, Answer};
use crate::gateway::endpoint::{self, Endpoints};
use crate::watch::steer::{self, Steering};
use bytes::Bytes;
use http_body_util::BodyExt;
use http_body_util::combinators::BoxBody;
use hyper::body::Incoming;
use hyper::header::{AUTHORIZATION, CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_TYPE};
use hyper::{Method, Request};
use hyper_util::rt::{TokioIo, TokioTimer};
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

/// The one path OTLP/HTTP posts traces to.
const TRACES_PATH: &str = "/v1/traces";

#[derive(Clone, Copy, Debug)]
pub(super) struct Limits {
    max_body: usize,
    max_connections: usize,
    read_timeout: Duration,
}

impl Limits {
    pub(super) fn of(config: &ReceiveConfig) -> Limits {
        Limits {
            max_body: config.max_body,
            max_connections: config.max_connections.max(1),
            read_timeout: config.read_timeout,
        }
    }
}

struct Server {
    limits: Limits,
    intake: Arc<Intake>,
    token: Option<Arc<Token>>,
    steer: Option<Arc<Steering>>,
    gateway: Option<Arc<Endpoints>>,
}

/// What a request is answered with: a whole body, or a model's stream
/// passed on as it comes.
type Reply = hyper::Response<BoxBody<Bytes, BoxError>>;
type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Accept connections until `stop`.
pub(super) async fn run(
    listener: TcpListener,
    limits: Limits,
    intake: Arc<Intake>,
    token: Option<Arc<Token>>,
    steer: Option<Arc<Steering>>,
    gateway: Option<Arc<Endpoints>>,
    stop: CancellationToken,
) {
    let server = Arc::new(Server {
        limits,
        intake,
        token,
        steer,
        gateway,
    });
    let connections = Arc::new(Semaphore::new(limits.max_connections));
    loop {
        let accepted = tokio::select! {
            _ = stop.cancelled() => return,
            accepted = async {
                let place = Arc::clone(&connections).acquire_owned().await;
                (place, listener.accept().await)
            } => accepted,
        };
        let (Ok(place), Ok((stream, _))) = accepted else {
            continue;
        };
        // Each write goes out at once: a model's stream passed on piece by
        // piece, or a gate's answer, is a small write after another, which
        // Nagle's algorithm would hold until the client's delayed ACK
        // (40 ms a piece on Linux).
        let _ = stream.set_nodelay(true);
        let server = Arc::clone(&server);
        let stop = stop.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                let server = Arc::clone(&server);
                async move { Ok::<_, std::convert::Infallible>(server.reply(request).await) }
            });
            let connection = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(limits.read_timeout)
                .serve_connection(TokioIo::new(stream), service);
            tokio::select! {
                _ = stop.cancelled() => {}
                _ = connection => {}
            }
            drop(place);
        });
    }
}

/// What the headers say of the body.
struct Framing {
    encoding: Encoding,
    gzip: bool,
    length: Option<u64>,
}

impl Server {
    /// The model endpoint's paths go to the gateway (docs/gateway.md),
    /// under the listener's token; the rest are answered whole.
    async fn reply(&self, request: Request<Incoming>) -> Reply {
        if let Some(gateway) = &self.gateway
            && request.uri().path().starts_with(endpoint::PREFIX)
        {
            let authorization = request.headers().get(AUTHORIZATION);
            let admitted = self
                .token
                .as_ref()
                .is_none_or(|t| t.admits(authorization.map(|v| v.as_bytes())));
            return model_call::answer(gateway, request, admitted, self.limits.read_timeout).await;
        }
        self.answer(request)
            .await
            .map(|body| body.map_err(|never| match never {}).boxed())
    }

    async fn answer(&self, request: Request<Incoming>) -> Answer {
        // Steering shares the listener and its token (docs/steer.md).
        if let Some(steering) = &self.steer
            && steer::serve::handles(request.uri().path())
        {
            let authorization = request.headers().get(AUTHORIZATION);
            let admitted = self
                .token
                .as_ref()
                .is_none_or(|t| t.admits(authorization.map(|v| v.as_bytes())));
            let timeout = self.limits.read_timeout;
            return steer::serve::answer(steering, request, admitted, timeout).await;
        }
        let answer = match self.framing(&request) {
            Ok(framing) => self.receive(request, framing).await,
            Err(refused) => *refused,
        };
        if let Some(why) = refusal_of(&answer) {
            self.intake.counters.refused(why);
        }
        answer
    }

    /// The request's path, method, token, content type and encoding
    /// checked, before any of its body is read.
    fn framing(&self, request: &Request<Incoming>) -> Result<Framing, Box<Answer>> {
        if request.uri().path() != TRACES_PATH {
            let message = format!("no such path: traces are posted to {TRACES_PATH}");
            return Err(Box::new(reply::refusal(Refusal::NotFound, None, &message)));
        }
        if request.method() != Method::POST {
            let mut answer = reply::refusal(Refusal::NotFound, None, "traces are sent with POST");
            *answer.status_mut() = hyper::StatusCode::METHOD_NOT_ALLOWED;
            answer.headers_mut().insert(
                hyper::header::ALLOW,
                Method::POST.as_str().parse().expect("a header value"),
            );
            return Err(Box::new(answer));
        }
        let headers = request.headers();
        let encoding = headers
            .get(CONTENT_TYPE)
            .and_then(|v| Encoding::of_content_type(v.as_bytes()));
        if let Some(token) = &self.token
            && !token.admits(headers.get(AUTHORIZATION).map(|v| v.as_bytes()))
        {
            let message = "this receiver needs an Authorization: Bearer token (the value of its --token-env variable)";
            return Err(Box::new(reply::refusal(
                Refusal::Unauthorized,
                encoding,
                message,
            )));
        }
        let Some(encoding) = encoding else {
            let message = "Content-Type must be application/x-protobuf or application/json";
            return Err(Box::new(reply::refusal(
                Refusal::Unsupported,
                None,
                message,
            )));
        };
        let gzip = match headers
            .get(CONTENT_ENCODING)
            .map(|v| v.as_bytes().trim_ascii())
        {
            None => false,
            Some(value) if value.is_empty() || value.eq_ignore_ascii_case(b"identity") => false,
            Some(value) if value.eq_ignore_ascii_case(b"gzip") => true,
            Some(_) => {
                let message = "Content-Encoding must be gzip or none";
                return Err(Box::new(reply::refusal(
                    Refusal::Unsupported,
                    Some(encoding),
                    message,
                )));
            }
        };
        let length = headers
            .get(CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        if length.is_some_and(|n| n > self.limits.max_body as u64) {
            return Err(Box::new(self.too_large(encoding)));
        }
        Ok(Framing {
            encoding,
            gzip,
            length,
        })
    }

    fn too_large(&self, encoding: Encoding) -> Answer {
        let message = format!(
            "the body is over the limit of {} bytes (after decompression); send smaller batches (the exporter's batch size)",
            self.limits.max_body
        );
        reply::refusal(Refusal::TooLarge, Some(encoding), &message)
    }

    /// Read, inflate and decode the body, and hand it in.
    async fn receive(&self, request: Request<Incoming>, framing: Framing) -> Answer {
        let encoding = framing.encoding;
        let _place = self.intake.admit().await;
        let limit = self.limits.max_body;
        let read = body::read(request.into_body(), limit, framing.length);
        let wire = match tokio::time::timeout(self.limits.read_timeout, read).await {
            Err(_) => {
                let message = "the body did not arrive in time";
                return reply::refusal(Refusal::Timeout, Some(encoding), message);
            }
            Ok(Err(error)) => return self.unreadable(encoding, error),
            Ok(Ok(wire)) => wire,
        };
        let inflated;
        let plain: &[u8] = if framing.gzip {
            inflated = match body::gunzip(&wire, limit) {
                Ok(inflated) => inflated,
                Err(error) => return self.unreadable(encoding, error),
            };
            &inflated
        } else {
            &wire
        };
        let decoded = match decode::request(encoding, plain) {
            Ok(decoded) => decoded,
            Err(message) => return reply::refusal(Refusal::BadRequest, Some(encoding), &message),
        };
        let size = plain.len();
        let original = self.intake.forwarding().then(|| Payload {
            body: wire.clone(),
            content_type: encoding.content_type(),
            gzip: framing.gzip,
        });
        match self.intake.take(decoded, size, original) {
            Taken::Accepted(answer) => reply::success(encoding, &answer),
            Taken::QueueFull(wait) => {
                let message = "the watch's queue is full; retry later";
                reply::retry(Refusal::QueueFull, encoding, message, wait)
            }
            Taken::Closed => {
                let message = "the watch is shutting down";
                reply::retry(
                    Refusal::Unavailable,
                    encoding,
                    message,
                    Duration::from_secs(1),
                )
            }
        }
    }

    fn unreadable(&self, encoding: Encoding, error: BodyError) -> Answer {
        match error {
            BodyError::TooLarge { .. } => self.too_large(encoding),
            BodyError::Corrupt(message) | BodyError::Broken(message) => {
                reply::refusal(Refusal::BadRequest, Some(encoding), &message)
            }
        }
    }
}

/// The refusal an answer is, to count it.
fn refusal_of(answer: &Answer) -> Option<Refusal> {
    use strum::IntoEnumIterator;
    let status = answer.status().as_u16();
    if status == 405 {
        return Some(Refusal::NotFound);
    }
    Refusal::iter().find(|why| why.status() == status)
}
