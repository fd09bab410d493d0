//! The sweep's reading of its results stream: an ordered consumer on the
//! sweep's subject, opened again from the message after the last one read
//! when the server lost it (a restart ends every consumer that is not
//! durable). It reads; deciding how long to keep trying is the caller's.

use super::queue;
use crate::nats::Nats;
use async_nats::jetstream::consumer::{DeliverPolicy, pull};
use bytes::Bytes;
use futures_util::StreamExt;
use std::time::Duration;

/// How long one try at opening the consumer may take.
const OPEN_BOUND: Duration = Duration::from_secs(5);

/// The sweep's results, from the start of its subject.
pub(super) struct Results {
    subject: String,
    /// The stream sequence of the last message read: reading again
    /// starts after it, so that nothing is read twice or missed.
    last: u64,
    messages: Option<pull::Ordered>,
}

impl Results {
    /// Open the reading of `sweep`'s results; it replays the subject from
    /// its start, so it may be opened before the first job is out.
    pub(super) async fn open(nats: &Nats, sweep: &str) -> Result<Self, String> {
        let mut results = Results {
            subject: queue::results_subject(sweep),
            last: 0,
            messages: None,
        };
        results.reopen(nats).await?;
        Ok(results)
    }

    /// Whether a consumer is open; after [`Self::next`] failed, none is
    /// until [`Self::reopen`] succeeds.
    pub(super) fn is_open(&self) -> bool {
        self.messages.is_some()
    }

    /// A new consumer from the message after the last one read.
    pub(super) async fn reopen(&mut self, nats: &Nats) -> Result<(), String> {
        self.messages = None;
        let deliver_policy = match self.last {
            0 => DeliverPolicy::All,
            last => DeliverPolicy::ByStartSequence {
                start_sequence: last + 1,
            },
        };
        let config = pull::OrderedConfig {
            filter_subject: self.subject.clone(),
            deliver_policy,
            ..Default::default()
        };
        let open = async {
            let stream = nats
                .js
                .get_stream(queue::RESULTS_STREAM)
                .await
                .map_err(|e| format!("cannot open the stream {}: {e}", queue::RESULTS_STREAM))?;
            stream
                .create_consumer(config)
                .await
                .map_err(|e| format!("cannot read the sweep's results: {e}"))?
                .messages()
                .await
                .map_err(|e| format!("cannot read the sweep's results: {e}"))
        };
        let messages = tokio::time::timeout(OPEN_BOUND, open)
            .await
            .map_err(|_| format!("no answer within {}s", OPEN_BOUND.as_secs()))??;
        self.messages = Some(messages);
        Ok(())
    }

    /// The next result's payload; an error (and no open consumer) when
    /// the server ended or lost the consumer. Never returns while nothing
    /// is open: the caller reopens first.
    pub(super) async fn next(&mut self) -> Result<Bytes, String> {
        let Some(messages) = self.messages.as_mut() else {
            return std::future::pending().await;
        };
        let problem = match messages.next().await {
            Some(Ok(message)) => {
                if let Ok(info) = message.info() {
                    self.last = info.stream_sequence;
                }
                return Ok(message.message.payload.clone());
            }
            Some(Err(e)) => e.to_string(),
            None => "the server ended the consumer".to_string(),
        };
        self.messages = None;
        Err(problem)
    }
}
