//! `conclave toolbox serve`: a small HTTP tool server on this machine, for
//! the examples and for trying real workers without writing one. It
//! answers `/pricing` (a pricing API that can fail its first calls, to
//! watch a breaker open and close), `/inventory` and `/echo` (which answers
//! with what it was sent), POST with a JSON body or GET with a query. It
//! prints its address, logs each call on stderr, and runs until stopped.

use super::data;
use crate::exit::Exit;
use crate::output;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::{Method, Request, Response, StatusCode};
use serde_json::{Map, Value, json};
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio::net::TcpListener;

/// The largest request body the server reads.
const MAX_REQUEST_BYTES: usize = 1024 * 1024;

/// How the server behaves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServeOptions {
    /// The address to listen on; port 0 picks a free one.
    pub listen: SocketAddr,
    /// `/pricing` answers HTTP 500 to this many calls first.
    pub fail_first: u64,
    /// How long each answer takes.
    pub latency: Duration,
}

#[derive(Debug)]
struct Server {
    options: ServeOptions,
    pricing_calls: AtomicU64,
}

/// Serve until the process is stopped (Ctrl-C ends it cleanly).
pub fn serve(options: ServeOptions) -> Exit {
    let runtime = match crate::runtime::start(&mut tokio::runtime::Builder::new_current_thread()) {
        Ok(runtime) => runtime,
        Err(exit) => return exit,
    };
    runtime.block_on(async move {
        let listener = match TcpListener::bind(options.listen).await {
            Ok(listener) => listener,
            Err(e) => {
                output::message(&format!(
                    "conclave: cannot listen on {}: {e}",
                    options.listen
                ));
                return Exit::BadInput;
            }
        };
        let address = listener
            .local_addr()
            .map_or_else(|_| options.listen.to_string(), |a| a.to_string());
        output::line(&format!("listening on http://{address}"));
        let server = Arc::new(Server {
            options,
            pricing_calls: AtomicU64::new(0),
        });
        loop {
            let accepted = tokio::select! {
                accepted = listener.accept() => accepted,
                _ = tokio::signal::ctrl_c() => return Exit::Ok,
            };
            let Ok((stream, _)) = accepted else { continue };
            let server = Arc::clone(&server);
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |request| {
                    let server = Arc::clone(&server);
                    async move { Ok::<_, std::convert::Infallible>(server.answer(request).await) }
                });
                let io = hyper_util::rt::TokioIo::new(stream);
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(io, service)
                    .await;
            });
        }
    })
}

impl Server {
    async fn answer(&self, request: Request<Incoming>) -> Response<Full<Bytes>> {
        let method = request.method().clone();
        let path = request.uri().path().to_string();
        let args = match args_of(request).await {
            Ok(args) => args,
            Err(why) => {
                return self.reply(
                    &method,
                    &path,
                    StatusCode::BAD_REQUEST,
                    json!({"error": why}),
                );
            }
        };
        if !self.options.latency.is_zero() {
            tokio::time::sleep(self.options.latency).await;
        }
        match path.as_str() {
            "/pricing" => {
                let call = self.pricing_calls.fetch_add(1, Ordering::AcqRel) + 1;
                if call <= self.options.fail_first {
                    let body = json!({"error": "pricing database unavailable",
                                      "call": call, "failing_first": self.options.fail_first});
                    return self.reply(&method, &path, StatusCode::INTERNAL_SERVER_ERROR, body);
                }
                self.reply(&method, &path, StatusCode::OK, data::pricing(&args))
            }
            "/inventory" => self.reply(&method, &path, StatusCode::OK, data::inventory(&args)),
            "/echo" => self.reply(
                &method,
                &path,
                StatusCode::OK,
                json!({"received": args, "method": method.as_str()}),
            ),
            _ => self.reply(
                &method,
                &path,
                StatusCode::NOT_FOUND,
                json!({"error": "no such tool; try /pricing, /inventory or /echo"}),
            ),
        }
    }

    fn reply(
        &self,
        method: &Method,
        path: &str,
        status: StatusCode,
        body: Value,
    ) -> Response<Full<Bytes>> {
        output::message(&format!("{method} {path} → {}", status.as_u16()));
        let mut response = Response::new(Full::new(Bytes::from(body.to_string())));
        *response.status_mut() = status;
        response.headers_mut().insert(
            hyper::header::CONTENT_TYPE,
            hyper::header::HeaderValue::from_static("application/json"),
        );
        response
    }
}

/// A call's args: the JSON body of a POST, the query of a GET.
async fn args_of(request: Request<Incoming>) -> Result<Value, String> {
    if request.method() == Method::GET {
        let mut args = Map::new();
        if let Some(query) = request.uri().query()
            && let Ok(url) = reqwest::Url::parse(&format!("http://toolbox/?{query}"))
        {
            for (key, value) in url.query_pairs() {
                args.insert(key.into_owned(), Value::String(value.into_owned()));
            }
        }
        return Ok(Value::Object(args));
    }
    let body = Limited::new(request.into_body(), MAX_REQUEST_BYTES)
        .collect()
        .await
        .map_err(|e| format!("cannot read the body: {e}"))?
        .to_bytes();
    if body.is_empty() {
        return Ok(json!({}));
    }
    serde_json::from_slice(&body).map_err(|e| format!("the body is not JSON: {e}"))
}
