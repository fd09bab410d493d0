//! The OTLP trace receiver of `conclave watch`: HTTP `POST /v1/traces`
//! (protobuf or JSON, gzip or not) and gRPC `TraceService/Export`, both
//! answering as the OTLP specification says. It decodes, checks ids and
//! hands each accepted request on as a [`Batch`] through the consumer's
//! bounded queue. It never reads what the spans mean (that is the
//! reader's) and never waits for the consumer or a forward target: a full
//! queue is answered with 429 / `RESOURCE_EXHAUSTED`, a slow target loses
//! forwards, counted. docs/watch_receiver.md describes the answers.

mod auth;
mod body;
mod counters;
mod decode;
mod forward;
mod grpc;
mod http;
mod intake;
mod model_call;
mod reply;
#[cfg(test)]
mod tests;

use counters::Counters;
pub use counters::{ForwardCounts, ReceiveCounts, ReceiverStatus, Refusal};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// One accepted export request, its invalid spans already taken out.
#[derive(Debug)]
pub struct Batch {
    /// The request as decoded (protobuf, JSON or gRPC alike).
    pub request: ExportTraceServiceRequest,
    /// When the receiver accepted it.
    pub received: tokio::time::Instant,
    /// Its size on the wire after decompression.
    pub bytes: usize,
}

/// The default HTTP address, OTLP/HTTP's port on loopback.
pub(crate) const DEFAULT_LISTEN: SocketAddr =
    SocketAddr::new(std::net::IpAddr::V4(Ipv4Addr::LOCALHOST), 4318);
/// The default gRPC address, OTLP/gRPC's port on loopback.
pub(crate) const DEFAULT_GRPC: SocketAddr =
    SocketAddr::new(std::net::IpAddr::V4(Ipv4Addr::LOCALHOST), 4317);
/// The largest body read, after decompression: 8 MiB.
pub(crate) const DEFAULT_MAX_BODY: usize = 8 * 1024 * 1024;

/// What `conclave watch`'s flags say of the receiver.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReceiveConfig {
    /// `--listen`: the HTTP address.
    pub listen: SocketAddr,
    /// `--grpc`: the gRPC address; `None` for `--no-grpc`.
    pub grpc: Option<SocketAddr>,
    /// `--token-env`: the variable holding the bearer token every sender
    /// must present; required when either address is not loopback.
    pub token_env: Option<String>,
    /// The largest body, in bytes, after decompression (8 MiB; no flag
    /// sets it: an exporter sends smaller batches, see watch_receiver.md).
    pub max_body: usize,
    /// `--forward`: OTLP/HTTP collectors every accepted batch is sent on to.
    pub forward: Vec<String>,
    /// Requests read and decoded at once, over both endpoints; the rest
    /// wait before their bodies are read.
    pub max_requests: usize,
    /// Open HTTP connections at once; more wait in the listen backlog.
    pub max_connections: usize,
    /// Bytes waiting to be forwarded, per target; a batch beyond is dropped.
    pub forward_queue_bytes: usize,
    /// How long a forward may take before it counts as failed.
    pub forward_timeout: Duration,
    /// How long a sender has to send its headers and its body.
    pub read_timeout: Duration,
    /// The wait a 429 / `RESOURCE_EXHAUSTED` asks for.
    pub retry_after: Duration,
}

impl Default for ReceiveConfig {
    fn default() -> Self {
        ReceiveConfig {
            listen: DEFAULT_LISTEN,
            grpc: Some(DEFAULT_GRPC),
            token_env: None,
            max_body: DEFAULT_MAX_BODY,
            forward: Vec::new(),
            max_requests: 8,
            max_connections: 256,
            forward_queue_bytes: 32 * 1024 * 1024,
            forward_timeout: Duration::from_secs(10),
            read_timeout: Duration::from_secs(30),
            retry_after: Duration::from_secs(1),
        }
    }
}

/// Why the receiver did not start; each names the flag to change.
#[derive(Debug, thiserror::Error)]
pub enum ReceiveError {
    /// A non-loopback address without a token.
    #[error(
        "{flag} {addr}: listening beyond this machine needs --token-env VAR, \
         naming an environment variable that holds the bearer token senders must present"
    )]
    TokenRequired {
        flag: &'static str,
        addr: SocketAddr,
    },
    /// `--token-env` names a variable that is unset or empty.
    #[error(
        "--token-env {var}: the environment variable {var} is not set or is empty; set it to the bearer token"
    )]
    TokenMissing { var: String },
    /// A `--forward` URL that cannot be sent to.
    #[error("--forward {url}: {why}")]
    BadForward { url: String, why: String },
    /// An `--upstream` the model endpoint cannot call.
    #[error("--upstream {url}: {why}")]
    BadUpstream { url: String, why: String },
    /// A body limit of 0 (set by a caller of the library; no flag sets it).
    #[error("a body limit of {0} bytes: the limit must be at least one byte")]
    BadLimit(usize),
    /// An address that cannot be bound.
    #[error("{flag} {addr}: cannot listen there: {source}")]
    Bind {
        flag: &'static str,
        addr: SocketAddr,
        source: std::io::Error,
    },
}

/// A running receiver: its addresses and counters. Dropping it stops it.
#[derive(Debug)]
pub struct Receiving {
    http: SocketAddr,
    grpc: Option<SocketAddr>,
    counters: Arc<Counters>,
    stop: CancellationToken,
    tasks: Vec<JoinHandle<()>>,
}

impl Receiving {
    /// The HTTP address bound (the real port when 0 was asked for).
    pub fn http_addr(&self) -> SocketAddr {
        self.http
    }

    /// The gRPC address bound, unless `--no-grpc`.
    pub(crate) fn grpc_addr(&self) -> Option<SocketAddr> {
        self.grpc
    }

    /// What was accepted, refused and forwarded so far.
    pub fn counts(&self) -> ReceiveCounts {
        self.counters.snapshot()
    }

    /// Every count, each forward target's with it, as one snapshot (what
    /// `--headless` says on stderr and a dashboard can show).
    pub fn status(&self) -> ReceiverStatus {
        self.counters.status()
    }

    /// Stop listening and forwarding, and wait until the tasks have ended.
    pub async fn shutdown(mut self) {
        self.stop.cancel();
        for task in self.tasks.drain(..) {
            let _ = task.await;
        }
    }
}

impl Drop for Receiving {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// Start receiving: bind both addresses and hand every accepted request
/// to `sink`. The token, when asked for, is read from the environment.
pub async fn serve(
    config: ReceiveConfig,
    sink: mpsc::Sender<Batch>,
) -> Result<Receiving, ReceiveError> {
    serve_with_env(config, sink, &|name| std::env::var(name).ok()).await
}

/// [`serve`] with steering on the HTTP listener (docs/steer.md).
pub async fn serve_steered(
    config: ReceiveConfig,
    sink: mpsc::Sender<Batch>,
    steering: Arc<crate::watch::steer::Steering>,
) -> Result<Receiving, ReceiveError> {
    let env = |name: &str| std::env::var(name).ok();
    serve_all(config, sink, Some(steering), None, &env).await
}

/// [`serve`] with steering, when given, and the model endpoint for other
/// frameworks' calls (docs/gateway.md) on the HTTP listener.
pub(crate) async fn serve_with_gateway(
    config: ReceiveConfig,
    sink: mpsc::Sender<Batch>,
    steering: Option<Arc<crate::watch::steer::Steering>>,
    gateway: Arc<crate::gateway::endpoint::Endpoints>,
) -> Result<Receiving, ReceiveError> {
    let env = |name: &str| std::env::var(name).ok();
    serve_all(config, sink, steering, Some(gateway), &env).await
}

/// [`serve`] reading the token's variable through `env`.
pub(crate) async fn serve_with_env(
    config: ReceiveConfig,
    sink: mpsc::Sender<Batch>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Receiving, ReceiveError> {
    serve_all(config, sink, None, None, env).await
}

async fn serve_all(
    config: ReceiveConfig,
    sink: mpsc::Sender<Batch>,
    steering: Option<Arc<crate::watch::steer::Steering>>,
    gateway: Option<Arc<crate::gateway::endpoint::Endpoints>>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Receiving, ReceiveError> {
    if config.max_body == 0 {
        return Err(ReceiveError::BadLimit(0));
    }
    let token = auth::token_for(&config, env)?.map(Arc::new);
    let stop = CancellationToken::new();
    let counters = Arc::new(Counters::for_targets(&config.forward));
    let (forwarder, mut tasks) = forward::start(&config, &counters, &stop)?;
    let http_listener = bind("--listen", config.listen).await?;
    let grpc_listener = match config.grpc {
        Some(addr) => Some(bind("--grpc", addr).await?),
        None => None,
    };
    let http_addr = local_addr("--listen", &http_listener)?;
    let grpc_addr = grpc_listener
        .as_ref()
        .map(|listener| local_addr("--grpc", listener))
        .transpose()?;
    let shared = Arc::new(intake::Intake::new(
        sink,
        Arc::clone(&counters),
        forwarder,
        config.max_requests,
        config.retry_after,
    ));
    tasks.push(tokio::spawn(http::run(
        http_listener,
        http::Limits::of(&config),
        Arc::clone(&shared),
        token.clone(),
        steering,
        gateway,
        stop.clone(),
    )));
    if let Some(listener) = grpc_listener {
        tasks.push(tokio::spawn(grpc::run(
            listener,
            config.max_body,
            config.max_requests,
            shared,
            token,
            stop.clone(),
        )));
    }
    Ok(Receiving {
        http: http_addr,
        grpc: grpc_addr,
        counters,
        stop,
        tasks,
    })
}

async fn bind(flag: &'static str, addr: SocketAddr) -> Result<TcpListener, ReceiveError> {
    TcpListener::bind(addr)
        .await
        .map_err(|source| ReceiveError::Bind { flag, addr, source })
}

fn local_addr(flag: &'static str, listener: &TcpListener) -> Result<SocketAddr, ReceiveError> {
    listener.local_addr().map_err(|source| ReceiveError::Bind {
        flag,
        addr: SocketAddr::from((Ipv4Addr::UNSPECIFIED, 0)),
        source,
    })
}
