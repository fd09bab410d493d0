//! OTLP/gRPC: `opentelemetry.proto.collector.trace.v1.TraceService/Export`
//! with opentelemetry-proto's generated tonic server, gzip accepted. tonic
//! decodes the message under the limit (a compressed message stops
//! inflating at it, answered `RESOURCE_EXHAUSTED`); the token, when set,
//! is checked from the `authorization` metadata before the message is
//! read; requests being handled are capped across connections.

use super::auth::Token;
use super::counters::Refusal;
use super::forward::Payload;
use super::intake::{Intake, Taken};
use opentelemetry_proto::tonic::collector::trace::v1::trace_service_server::{
    TraceService, TraceServiceServer,
};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use prost::Message;
use std::sync::Arc;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tonic::codec::CompressionEncoding;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::server::TcpIncoming;
use tonic::{Code, Request, Response, Status};
use tonic_types::{ErrorDetails, StatusExt};

struct Exporter {
    intake: Arc<Intake>,
}

#[tonic::async_trait]
impl TraceService for Exporter {
    async fn export(
        &self,
        request: Request<ExportTraceServiceRequest>,
    ) -> Result<Response<ExportTraceServiceResponse>, Status> {
        let request = request.into_inner();
        let size = request.encoded_len();
        // A forward posts OTLP/HTTP: the message as its protobuf body.
        let original = self.intake.forwarding().then(|| Payload {
            body: request.encode_to_vec().into(),
            content_type: "application/x-protobuf",
            gzip: false,
        });
        match self.intake.take(request, size, original) {
            Taken::Accepted(answer) => Ok(Response::new(answer)),
            Taken::QueueFull(wait) => {
                self.intake.counters.refused(Refusal::QueueFull);
                Err(Status::with_error_details(
                    Code::ResourceExhausted,
                    "the watch's queue is full; retry after the delay given",
                    ErrorDetails::with_retry_info(Some(wait)),
                ))
            }
            Taken::Closed => {
                self.intake.counters.refused(Refusal::Unavailable);
                Err(Status::unavailable("the watch is shutting down"))
            }
        }
    }
}

/// Serve `listener` until `stop`.
pub(super) async fn run(
    listener: TcpListener,
    max_body: usize,
    max_requests: usize,
    intake: Arc<Intake>,
    token: Option<Arc<Token>>,
    stop: CancellationToken,
) {
    let counters = Arc::clone(&intake.counters);
    let server = TraceServiceServer::new(Exporter { intake })
        .accept_compressed(CompressionEncoding::Gzip)
        .max_decoding_message_size(max_body);
    let gate = move |request: Request<()>| match &token {
        None => Ok(request),
        Some(token) => {
            let given = request
                .metadata()
                .get("authorization")
                .map(|v| v.as_bytes());
            if token.admits(given) {
                Ok(request)
            } else {
                counters.refused(Refusal::Unauthorized);
                Err(Status::unauthenticated(
                    "this receiver needs authorization: Bearer <token> (the value of its --token-env variable)",
                ))
            }
        }
    };
    let limit = tower::limit::GlobalConcurrencyLimitLayer::new(max_requests.max(1));
    let served = tonic::transport::Server::builder()
        .max_concurrent_streams(MAX_STREAMS)
        .layer(limit)
        .add_service(InterceptedService::new(server, gate))
        .serve_with_incoming_shutdown(TcpIncoming::from(listener), stop.cancelled_owned())
        .await;
    if let Err(error) = served {
        crate::output::message(&format!(
            "conclave watch: the gRPC receiver stopped: {error}"
        ));
    }
}

/// Streams open at once on one connection.
const MAX_STREAMS: u32 = 32;
