//! A model call's text as it arrives: the pieces a streaming provider hands
//! over, published as `call_delta` at most once per [`COALESCE`] of run time
//! per call, whatever is left published before the call's finish, so that
//! the deltas of a call concatenate to its text and the bus and recording
//! stay small. Reasoning text goes out in deltas of its own, marked, in
//! the order it came, and is never timed as the answer's first token; a
//! function call's arguments (tool mode) too, timed as the answer is. It
//! also times the first and the last piece of the answer: the time to the
//! first token and the tokens a second. It never waits on the provider:
//! pieces queue in a channel the call drains between them.

use crate::bus::{Bus, EventKind, TokenUsage};
use crate::provider::TextPiece;
use parking_lot::Mutex;
use std::future::Future;
use std::pin::Pin;
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
    /// Text not published yet, in the order it came: runs of answer text
    /// and of reasoning, each run one delta.
    runs: Vec<Run>,
    /// Run time of the last delta published.
    sent_at: Option<Duration>,
    /// Run time of the first and the last piece of new text.
    first: Option<Duration>,
    last: Option<Duration>,
}

/// Text of one kind waiting to be published.
#[derive(Debug)]
struct Run {
    reasoning: bool,
    arguments: bool,
    text: String,
}

impl Pending {
    fn push(&mut self, piece: TextPiece) {
        if piece.text.is_empty() {
            return;
        }
        match self.runs.last_mut() {
            Some(run) if (run.reasoning, run.arguments) == (piece.reasoning, piece.arguments) => {
                run.text.push_str(&piece.text);
            }
            _ => self.runs.push(Run {
                reasoning: piece.reasoning,
                arguments: piece.arguments,
                text: piece.text,
            }),
        }
    }
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
    /// The id of the call whose text this is.
    pub(super) fn call(&self) -> u64 {
        self.call
    }

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
    /// [`CallText::settle`] or [`CallText::finish`]).
    ///
    /// `call` is pinned by the caller where it is made: a future taken by value
    /// would be held twice in this one's state (as the argument and
    /// pinned), and a model call's is the biggest part of it.
    pub(super) async fn relay<T>(
        &self,
        mut call: Pin<&mut impl Future<Output = T>>,
        mut pieces: UnboundedReceiver<TextPiece>,
    ) -> T {
        let clock = self.bus.clock().clone();
        loop {
            let due = self.due();
            tokio::select! {
                biased;
                Some(piece) = pieces.recv() => self.take(piece),
                result = call.as_mut() => {
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
        // The first token timed is the answer's: reasoning is not the answer.
        if piece.new && !piece.reasoning {
            state.first.get_or_insert(now);
            state.last = Some(now);
        }
        state.push(piece);
        if state.sent_at.is_none_or(|at| now >= at + COALESCE) {
            self.publish(&mut state);
        }
    }

    /// Whether text is waiting to be published.
    pub(super) fn is_pending(&self) -> bool {
        self.due().is_some()
    }

    /// The run time at which the text waiting may be published.
    fn due(&self) -> Option<Duration> {
        let state = self.state.lock();
        if state.runs.is_empty() {
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
        for run in std::mem::take(&mut state.runs) {
            let t_ms = self.bus.publish_stamped(EventKind::CallDelta {
                call: self.call,
                text: run.text,
                reasoning: run.reasoning,
                arguments: run.arguments,
            });
            state.sent_at = Some(Duration::from_millis(t_ms));
        }
    }

    /// The call ended: wait until the text left may go out without coming
    /// closer than [`COALESCE`] to the delta before it, and publish it.
    /// Without text left it returns at once.
    pub(super) async fn settle(&self) {
        if let Some(at) = self.due() {
            self.bus.clock().sleep_until(at).await;
            self.publish_due();
        }
    }

    /// Publish what is left, however recent the last delta (a cancelled
    /// call does not wait), and say when the call's text came.
    pub(super) fn finish(&self) -> TextTiming {
        let mut state = self.state.lock();
        self.publish(&mut state);
        TextTiming {
            first: state.first,
            last: state.last,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bus::{Delivery, Hub};
    use crate::clock::RunClock;
    use tokio::sync::mpsc;

    fn piece(text: &str) -> TextPiece {
        TextPiece {
            text: text.into(),
            new: true,
            reasoning: false,
            arguments: false,
        }
    }

    /// Pieces sent every `every` for `count` times, relayed; the deltas
    /// published (t_ms, text) and the timing.
    async fn relayed(every: Duration, count: usize) -> (Vec<(u64, String)>, TextTiming) {
        let hub = Hub::new(1024);
        let mut sub = hub.subscribe();
        let bus = Bus::new(1, RunClock::start(), hub, None);
        let text = CallText::new(bus, 7);
        let (sink, pieces) = mpsc::unbounded_channel();
        let call = async move {
            for i in 0..count {
                tokio::time::sleep(every).await;
                sink.send(piece(&format!("<{i}>"))).unwrap();
            }
            // The answer comes a moment after the last piece.
            tokio::time::sleep(Duration::from_millis(1)).await;
        };
        text.relay(std::pin::pin!(call), pieces).await;
        text.settle().await;
        let timing = text.finish();
        let mut deltas = Vec::new();
        while let Some(Delivery::Event(event)) = sub.try_next() {
            if let EventKind::CallDelta { call, text, .. } = &event.kind {
                assert_eq!(*call, 7);
                deltas.push((event.t_ms, text.clone()));
            }
        }
        (deltas, timing)
    }

    fn all(count: usize) -> String {
        (0..count).map(|i| format!("<{i}>")).collect()
    }

    #[tokio::test(start_paused = true)]
    async fn pieces_faster_than_the_limit_are_coalesced_and_all_published() {
        let (deltas, timing) = relayed(Duration::from_millis(10), 40).await;
        let texts: String = deltas.iter().map(|(_, t)| t.as_str()).collect();
        assert_eq!(texts, all(40), "the deltas concatenate to the text");
        for pair in deltas.windows(2) {
            assert!(pair[1].0 >= pair[0].0 + 50, "{deltas:?}");
        }
        // 400 ms of pieces: at most one delta per 50 ms, the rest
        // published 50 ms after the one before.
        assert!((8..=10).contains(&deltas.len()), "{deltas:?}");
        assert_eq!(deltas[0], (10, "<0>".to_string()), "the first at once");
        assert_eq!(timing.first, Some(Duration::from_millis(10)));
        assert_eq!(timing.last, Some(Duration::from_millis(400)));
    }

    #[tokio::test(start_paused = true)]
    async fn slow_pieces_each_make_a_delta_as_they_come() {
        let (deltas, _) = relayed(Duration::from_millis(100), 20).await;
        let times: Vec<u64> = deltas.iter().map(|(t, _)| *t).collect();
        assert_eq!(times, (1..=20).map(|i| i * 100).collect::<Vec<_>>());
        assert_eq!(
            deltas.iter().map(|(_, t)| t.as_str()).collect::<String>(),
            all(20)
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_piece_that_waits_goes_out_when_due_without_another_piece() {
        let hub = Hub::new(64);
        let mut sub = hub.subscribe();
        let bus = Bus::new(1, RunClock::start(), hub, None);
        let text = CallText::new(bus, 1);
        let (sink, pieces) = mpsc::unbounded_channel();
        let call = async move {
            sink.send(piece("a")).unwrap();
            tokio::time::sleep(Duration::from_millis(10)).await;
            sink.send(piece("b")).unwrap();
            // Quiet for long after: "b" must not wait for the end.
            tokio::time::sleep(Duration::from_millis(500)).await;
        };
        text.relay(std::pin::pin!(call), pieces).await;
        text.settle().await;
        text.finish();
        let mut deltas = Vec::new();
        while let Some(Delivery::Event(event)) = sub.try_next() {
            if let EventKind::CallDelta { text, .. } = &event.kind {
                deltas.push((event.t_ms, text.clone()));
            }
        }
        assert_eq!(deltas, [(0, "a".to_string()), (50, "b".to_string())]);
    }

    #[tokio::test(start_paused = true)]
    async fn reasoning_goes_out_in_marked_deltas_of_its_own_and_is_not_the_first_token() {
        let hub = Hub::new(64);
        let mut sub = hub.subscribe();
        let bus = Bus::new(1, RunClock::start(), hub, None);
        let text = CallText::new(bus, 2);
        let (sink, pieces) = mpsc::unbounded_channel();
        let thought = |text: &str| TextPiece {
            reasoning: true,
            ..piece(text)
        };
        let call = async move {
            tokio::time::sleep(Duration::from_millis(100)).await;
            sink.send(thought("Fraud ")).unwrap();
            tokio::time::sleep(Duration::from_millis(10)).await;
            sink.send(thought("is fine.")).unwrap();
            // The answer begins within the same 50 ms as the reasoning.
            sink.send(piece("{\"verdict\"")).unwrap();
            tokio::time::sleep(Duration::from_millis(100)).await;
            sink.send(piece(": \"go\"}")).unwrap();
        };
        text.relay(std::pin::pin!(call), pieces).await;
        text.settle().await;
        let timing = text.finish();
        let mut deltas = Vec::new();
        while let Some(Delivery::Event(event)) = sub.try_next() {
            if let EventKind::CallDelta {
                text, reasoning, ..
            } = &event.kind
            {
                deltas.push((event.t_ms, text.clone(), *reasoning));
            }
        }
        assert_eq!(
            deltas,
            [
                (100, "Fraud ".to_string(), true),
                (150, "is fine.".to_string(), true),
                (150, "{\"verdict\"".to_string(), false),
                (210, ": \"go\"}".to_string(), false),
            ]
        );
        assert_eq!(
            timing.first,
            Some(Duration::from_millis(110)),
            "the answer's first token, not the reasoning's"
        );
    }

    #[test]
    fn tokens_a_second_need_a_count_and_time_between_first_and_last() {
        let usage = TokenUsage {
            input: 10,
            output: 77,
            ..TokenUsage::default()
        };
        let timing = TextTiming {
            first: Some(Duration::from_millis(420)),
            last: Some(Duration::from_millis(2420)),
        };
        assert_eq!(timing.tokens_per_s(Some(&usage)), Some(38.5));
        assert_eq!(timing.tokens_per_s(None), None);
        assert_eq!(timing.first_token_ms(Duration::from_millis(20)), Some(400));
        let at_once = TextTiming {
            first: Some(Duration::from_millis(5)),
            last: Some(Duration::from_millis(5)),
        };
        assert_eq!(at_once.tokens_per_s(Some(&usage)), None);
        assert_eq!(TextTiming::default().first_token_ms(Duration::ZERO), None);
    }
}
