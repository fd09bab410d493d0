//! Where both endpoints hand a decoded request in: spans with invalid ids
//! are taken out and named in the answer's `partial_success`, the rest go
//! to the consumer's queue without waiting (a full queue is a refusal the
//! sender retries), and an accepted request is offered to the forwards.

use super::Batch;
use super::counters::Counters;
use super::forward::{Forwarder, Payload};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTracePartialSuccess, ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::trace::v1::Span;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};

/// What became of a request.
#[derive(Debug)]
pub(super) enum Taken {
    /// Handed on; the answer to send.
    Accepted(ExportTraceServiceResponse),
    /// The queue was full: retry after the wait.
    QueueFull(Duration),
    /// The consumer has stopped.
    Closed,
}

#[derive(Debug)]
pub(super) struct Intake {
    sink: mpsc::Sender<Batch>,
    pub(super) counters: Arc<Counters>,
    forwarder: Forwarder,
    requests: Arc<Semaphore>,
    retry_after: Duration,
}

impl Intake {
    pub(super) fn new(
        sink: mpsc::Sender<Batch>,
        counters: Arc<Counters>,
        forwarder: Forwarder,
        max_requests: usize,
        retry_after: Duration,
    ) -> Intake {
        Intake {
            sink,
            counters,
            forwarder,
            requests: Arc::new(Semaphore::new(max_requests.max(1))),
            retry_after,
        }
    }

    /// A place among the requests read and decoded at once; held while a
    /// body is read, inflated and decoded, so that memory is bounded by
    /// this many bodies at the limit.
    pub(super) async fn admit(&self) -> OwnedSemaphorePermit {
        Arc::clone(&self.requests)
            .acquire_owned()
            .await
            .expect("the request semaphore is never closed")
    }

    /// Whether any forward target is set (a gRPC request is encoded for
    /// them only then).
    pub(super) fn forwarding(&self) -> bool {
        self.forwarder.is_active()
    }

    /// Take a decoded request; `original` is what a forward sends on.
    pub(super) fn take(
        &self,
        mut request: ExportTraceServiceRequest,
        bytes: usize,
        original: Option<Payload>,
    ) -> Taken {
        let rejected = reject_invalid(&mut request);
        let spans = count_spans(&request);
        if spans > 0 {
            let batch = Batch {
                request,
                received: tokio::time::Instant::now(),
                bytes,
            };
            match self.sink.try_send(batch) {
                Ok(()) => {}
                Err(mpsc::error::TrySendError::Full(_)) => {
                    self.counters.refused_spans(spans + rejected.count);
                    return Taken::QueueFull(self.retry_after);
                }
                Err(mpsc::error::TrySendError::Closed(_)) => return Taken::Closed,
            }
        }
        self.counters.accepted(spans, rejected.count);
        if let Some(original) = original {
            self.forwarder.offer(original);
        }
        let partial_success = (rejected.count > 0).then(|| ExportTracePartialSuccess {
            rejected_spans: i64::try_from(rejected.count).unwrap_or(i64::MAX),
            error_message: rejected.message(),
        });
        Taken::Accepted(ExportTraceServiceResponse { partial_success })
    }
}

fn count_spans(request: &ExportTraceServiceRequest) -> u64 {
    let spans: usize = request
        .resource_spans
        .iter()
        .flat_map(|resource| &resource.scope_spans)
        .map(|scope| scope.spans.len())
        .sum();
    spans as u64
}

/// The spans taken out, by reason.
#[derive(Debug, Default)]
struct Rejected {
    count: u64,
    trace_id: u64,
    span_id: u64,
    parent_id: u64,
}

impl Rejected {
    fn message(&self) -> String {
        let reasons = [
            (
                self.trace_id,
                "a trace_id that is not 16 bytes (32 hex digits) or is all zero",
            ),
            (
                self.span_id,
                "a span_id that is not 8 bytes (16 hex digits) or is all zero",
            ),
            (
                self.parent_id,
                "a parent_span_id that is neither empty nor 8 bytes",
            ),
        ];
        let named: Vec<String> = reasons
            .iter()
            .filter(|(n, _)| *n > 0)
            .map(|(n, why)| format!("{n} with {why}"))
            .collect();
        format!("{} spans rejected: {}", self.count, named.join("; "))
    }

    /// Note `span`'s flaw, if it has one; whether it is kept.
    fn keeps(&mut self, span: &Span) -> bool {
        let valid = |id: &[u8], len: usize| id.len() == len && id.iter().any(|b| *b != 0);
        let flaw = if !valid(&span.trace_id, 16) {
            &mut self.trace_id
        } else if !valid(&span.span_id, 8) {
            &mut self.span_id
        } else if !(span.parent_span_id.is_empty() || span.parent_span_id.len() == 8) {
            &mut self.parent_id
        } else {
            return true;
        };
        *flaw += 1;
        self.count += 1;
        false
    }
}

/// Take out the spans whose ids are invalid (the OTLP specification calls
/// them so), and the scopes and resources they leave empty.
fn reject_invalid(request: &mut ExportTraceServiceRequest) -> Rejected {
    let mut rejected = Rejected::default();
    for resource in &mut request.resource_spans {
        for scope in &mut resource.scope_spans {
            scope.spans.retain(|span| rejected.keeps(span));
        }
        resource.scope_spans.retain(|scope| !scope.spans.is_empty());
    }
    request
        .resource_spans
        .retain(|resource| !resource.scope_spans.is_empty());
    rejected
}

#[cfg(test)]
mod tests {
    use super::*;
    use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans};

    fn span(trace_id: Vec<u8>, span_id: Vec<u8>, parent: Vec<u8>) -> Span {
        Span {
            trace_id,
            span_id,
            parent_span_id: parent,
            ..Span::default()
        }
    }

    #[test]
    fn spans_with_invalid_ids_are_taken_out_and_named() {
        let spans = vec![
            span(vec![1; 16], vec![2; 8], vec![]),
            span(vec![1; 16], vec![2; 8], vec![3; 8]),
            span(vec![1; 15], vec![2; 8], vec![]),
            span(vec![0; 16], vec![2; 8], vec![]),
            span(vec![1; 16], vec![0; 8], vec![]),
            span(vec![1; 16], vec![2; 8], vec![3; 4]),
        ];
        let mut request = ExportTraceServiceRequest {
            resource_spans: vec![ResourceSpans {
                scope_spans: vec![
                    ScopeSpans {
                        spans,
                        ..ScopeSpans::default()
                    },
                    ScopeSpans {
                        spans: vec![span(vec![], vec![], vec![])],
                        ..ScopeSpans::default()
                    },
                ],
                ..ResourceSpans::default()
            }],
        };
        let rejected = reject_invalid(&mut request);
        assert_eq!(rejected.count, 5);
        assert_eq!(
            (rejected.trace_id, rejected.span_id, rejected.parent_id),
            (3, 1, 1)
        );
        assert_eq!(count_spans(&request), 2);
        assert_eq!(request.resource_spans[0].scope_spans.len(), 1);
        let message = rejected.message();
        assert!(
            message.starts_with("5 spans rejected: 3 with a trace_id"),
            "{message}"
        );
    }
}
