//! A launched run's own receiver: OTLP and steering on a loopback port,
//! with the gateway's routes when the run has a model upstream; every
//! batch it takes is the run's, and the steering says when it stopped it.

use super::gateway::RunGateway;
use crate::span::RUN_ID_ATTRIBUTE;
use crate::watch::receive::{Batch, ReceiveConfig, Receiving, serve_steered, serve_with_gateway};
use crate::watch::steer::Steering;
use std::sync::Arc;
use tokio::sync::mpsc;

/// The run's own loopback receiver: OTLP and steering, and the gateway's
/// routes when the run has a model upstream.
pub(super) async fn open_receiver(
    sink: mpsc::Sender<Batch>,
    steering: &Arc<Steering>,
    gateway: Option<&RunGateway>,
) -> Result<Receiving, String> {
    let receive = ReceiveConfig {
        listen: std::net::SocketAddr::from(([127, 0, 0, 1], 0)),
        grpc: None,
        ..ReceiveConfig::default()
    };
    match gateway.and_then(RunGateway::endpoints) {
        Some(endpoints) => {
            let steering = Some(Arc::clone(steering));
            serve_with_gateway(receive, sink, steering, endpoints).await
        }
        None => serve_steered(receive, sink, Arc::clone(steering)).await,
    }
    .map_err(|e| format!("cannot start the run's receiver: {e}"))
}

/// Every resource of `batch` that names no run names this one: the
/// run's receiver is its own, so whatever reaches it is the program's
/// (a span made without the launch's resource attributes too).
pub(super) fn stamp(batch: &mut Batch, run_id: &str) {
    use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
    use opentelemetry_proto::tonic::resource::v1::Resource;
    for resource in &mut batch.request.resource_spans {
        let resource = resource.resource.get_or_insert_with(Resource::default);
        let named = resource
            .attributes
            .iter()
            .any(|kv| kv.key == RUN_ID_ATTRIBUTE);
        if !named {
            resource.attributes.push(KeyValue {
                key: RUN_ID_ATTRIBUTE.to_string(),
                value: Some(AnyValue {
                    value: Some(any_value::Value::StringValue(run_id.to_string())),
                }),
                ..KeyValue::default()
            });
        }
    }
}

/// Why the steering stopped run `run_id`, once it has.
pub(super) fn stopped(steering: &Steering, run_id: &str) -> Option<String> {
    steering
        .list()
        .into_iter()
        .find(|view| view.trace_id == run_id)
        .and_then(|view| view.stopped)
}
