//! A model call's text as it arrives: the pieces a streaming provider hands
//! over, published as `call_delta` at most once per [`COALESCE`] of run time
//! per call, whatever is left published before the call's finish, so that
//! the deltas of a call concatenate to its text and the bus and recording
//! stay small. It also times the first and the last piece: the time to the
//! first token and the tokens a second. It never waits on the provider:
//! pieces queue in a channel the call drains between them.

use crate::bus::{Bus, EventKind, TokenUsage};
use crate::provider::TextPiece;
use parking_lot::Mutex;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc::UnboundedReceiver;

/// The least run time between two deltas of one call.
pub(crate) const COALESCE: Duration = Duration::from_millis(50);

/// One call's text on its way to the bus. Clones share it.
#[derive(Clone, Debug)]
pub(super) struct CallText {
    bus: Bus,
    call: u64,
    state: Arc<Mutex<Pending>>,
}

#[derive(Debug, Default)]
struct Pending {
    /// Text not published yet.
    text: String,
    /// Run time of the last delta published.
    sent_at: Option<Duration>,
    /// Run time of the first and the last piece of new text.
    first: Option<Duration>,
    last: Option<Duration>,
}

/// When a call's text came.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct TextTiming {
    pub(super) first: Option<Duration>,
    pub(super) last: Option<Duration>,
}

impl TextTiming {
    /// Milliseconds from `started` to the first text.
    pub(super) fn first_token_ms(&self, started: Duration) -> Option<u64> {
        self.first
            .map(|first| super::millis(first.saturating_sub(started)))
    }

    /// Output tokens a second from the first text to the last, to a tenth;
    /// `None` without a count, or with all the text at one instant.
    pub(super) fn tokens_per_s(&self, usage: Option<&TokenUsage>) -> Option<f64> {
        let seconds = self.last?.checked_sub(self.first?)?.as_secs_f64();
        let tokens = usage.map(|u| u.output).filter(|n| *n > 0)?;
        (seconds > 0.0).then(|| (tokens as f64 / seconds * 10.0).round() / 10.0)
    }
}

impl CallText {
    pub(super) fn new(bus: Bus, call: u64) -> Self {
        CallText {
            bus,
            call,
            state: Arc::default(),
        }
    }

    /// Run `call`, taking the pieces of text it sends to `pieces` as they
    /// come and publishing them as they fall due; the pieces still queued
    /// when it ends are taken before its result is returned (published by
    /// [`CallText::finish`]).
    pub(super) async fn relay<T>(
        &self,
        call: impl Future<Output = T>,
        mut pieces: UnboundedReceiver<TextPiece>,
    ) -> T {
        let clock = self.bus.clock().clone();
        tokio::pin!(call);
        loop {
            let due = self.due();
            tokio::select! {
                biased;
                Some(piece) = pieces.recv() => self.take(piece),
                result = &mut call => {
                    while let Ok(piece) = pieces.try_recv() {
                        self.take(piece);
                    }
                    return result;
                }
                () = async {
                    match due {
                        Some(at) => clock.sleep_until(at).await,
                        None => std::future::pending().await,
                    }
                } => self.publish_due(),
            }
        }
    }

    /// A piece arrived: timed when it is new text, and published at once
    /// when the last delta is old enough.
    fn take(&self, piece: TextPiece) {
        let now = self.bus.clock().elapsed();
        let mut state = self.state.lock();
        if piece.new {
            state.first.get_or_insert(now);
            state.last = Some(now);
        }
        state.text.push_str(&piece.text);
        if state.sent_at.is_none_or(|at| now >= at + COALESCE) {
            self.publish(&mut state);
        }
    }

    /// The run time at which the text waiting may be published.
    fn due(&self) -> Option<Duration> {
        let state = self.state.lock();
        if state.text.is_empty() {
            return None;
        }
        Some(state.sent_at.map_or(Duration::ZERO, |at| at + COALESCE))
    }

    fn publish_due(&self) {
        let now = self.bus.clock().elapsed();
        let mut state = self.state.lock();
        if state.sent_at.is_none_or(|at| now >= at + COALESCE) {
            self.publish(&mut state);
        }
    }

    fn publish(&self, state: &mut Pending) {
        if state.text.is_empty() {
            return;
        }
        let text = std::mem::take(&mut state.text);
        let t_ms = self.bus.publish_stamped(EventKind::CallDelta {
            call: self.call,
            text,
        });
        state.sent_at = Some(Duration::from_millis(t_ms));
    }

    /// The call ended: publish what is left, however recent the last
    /// delta, and say when its text came.
    pub(super) fn finish(&self) -> TextTiming {
        let mut state = self.state.lock();
        self.publish(&mut state);
        TextTiming {
            first: state.first,
            last: state.last,
        }
    }
}
