//! The event bus: every step of a run becomes a numbered [`Event`] here.
//! Live viewers read a bounded broadcast and are told how many events they
//! missed when they fall behind; the engine never waits for them. The
//! recorder gets every event, in order, through its own lossless channel.

mod capped;
pub mod cassette;
pub(crate) mod describe;
pub(crate) mod event;
pub(crate) mod event_kinds;
pub(crate) mod figures;
mod kinds;
pub(crate) mod lean;
pub(crate) mod pattern;
mod question;
mod resilience;
mod result_doc;
mod scrubbed;
mod summary;

pub(crate) use capped::Capped;
pub use event::{
    BudgetKind, CallOutcome, ClockMode, Event, EventKind, FlagState, GateKind, GatePoint, RunModel,
    RunStarted, RunStatus, TokenUsage, WatchedSpan,
};
pub(crate) use event::{RunId, is_known_kind};
pub use pattern::PatternPayload;
pub use question::{Answer, AnsweredBy, GivenAnswer, NoSuchOption, Question, QuestionOption};
pub use resilience::{BreakerReason, BreakerState};
pub use result_doc::ResultDoc;
use scrubbed::scrubbed;
pub(crate) use summary::RunCounts;
pub use summary::RunSummary;

use crate::clock::RunClock;
use parking_lot::Mutex;
use std::sync::Arc;
use tokio::sync::broadcast;

/// How many events a live viewer may fall behind before it starts missing
/// some.
pub(crate) const DEFAULT_CAPACITY: usize = 4096;

/// The broadcast every run of a process publishes to. Viewers subscribe here,
/// before launching, so they see each run from its first event.
#[derive(Clone, Debug)]
pub struct Hub {
    tx: broadcast::Sender<Arc<Event>>,
}

impl Hub {
    pub fn new(capacity: usize) -> Self {
        let (tx, _) = broadcast::channel(capacity.max(1));
        Hub { tx }
    }

    pub fn subscribe(&self) -> Subscription {
        Subscription {
            rx: self.tx.subscribe(),
        }
    }
}

impl Default for Hub {
    fn default() -> Self {
        Hub::new(DEFAULT_CAPACITY)
    }
}

/// What a live viewer receives.
#[derive(Clone, Debug, PartialEq)]
pub enum Delivery {
    Event(Arc<Event>),
    /// The viewer fell behind and this many events were dropped for it.
    Missed(u64),
    /// Every publisher is gone.
    Closed,
}

#[derive(Debug)]
pub struct Subscription {
    rx: broadcast::Receiver<Arc<Event>>,
}

impl Subscription {
    pub async fn next(&mut self) -> Delivery {
        match self.rx.recv().await {
            Ok(event) => Delivery::Event(event),
            Err(broadcast::error::RecvError::Lagged(n)) => Delivery::Missed(n),
            Err(broadcast::error::RecvError::Closed) => Delivery::Closed,
        }
    }

    /// The next delivery if one is ready, without waiting.
    pub fn try_next(&mut self) -> Option<Delivery> {
        match self.rx.try_recv() {
            Ok(event) => Some(Delivery::Event(event)),
            Err(broadcast::error::TryRecvError::Lagged(n)) => Some(Delivery::Missed(n)),
            Err(broadcast::error::TryRecvError::Closed) => Some(Delivery::Closed),
            Err(broadcast::error::TryRecvError::Empty) => None,
        }
    }
}

/// The lossless reader of a run's events, such as the recorder's queue: it
/// is handed every event in seq order and must never make the publisher
/// wait.
pub trait EventSink: Send + Sync + std::fmt::Debug {
    fn accept(&self, event: Arc<Event>);
}

/// One run's publisher: numbers events, stamps them with the run clock and
/// hands them to the recorder and the hub.
#[derive(Clone, Debug)]
pub struct Bus {
    inner: Arc<BusInner>,
}

#[derive(Debug)]
struct BusInner {
    run: RunId,
    clock: RunClock,
    hub: Hub,
    state: Mutex<BusState>,
}

#[derive(Debug)]
struct BusState {
    next_seq: u64,
    last_t_ms: u64,
    recorder: Option<Box<dyn EventSink>>,
    /// Lossless viewers besides the recorder (exporters): like it, each is
    /// handed every event in seq order and must never make the publisher
    /// wait. Unlike it, they stay until the run's last event.
    observers: Vec<Arc<dyn EventSink>>,
    /// What each tool's calls asked and answered last: a record that
    /// says the same again is published short.
    last_calls: lean::LastCalls,
}

impl Bus {
    pub fn new(
        run: RunId,
        clock: RunClock,
        hub: Hub,
        recorder: Option<Box<dyn EventSink>>,
    ) -> Self {
        Bus {
            inner: Arc::new(BusInner {
                run,
                clock,
                hub,
                state: Mutex::new(BusState {
                    next_seq: 1,
                    last_t_ms: 0,
                    recorder,
                    observers: Vec::new(),
                    last_calls: lean::LastCalls::default(),
                }),
            }),
        }
    }

    /// Hand every event from now on to `observers` too, in seq order.
    pub fn with_observers(self, observers: Vec<Arc<dyn EventSink>>) -> Self {
        self.inner.state.lock().observers = observers;
        self
    }

    pub(crate) fn clock(&self) -> &RunClock {
        &self.inner.clock
    }

    /// Publish one event and return its sequence number. Never waits: the
    /// hub drops the oldest event for a lagging viewer, and the recorder's
    /// channel is unbounded.
    pub fn publish(&self, kind: EventKind) -> u64 {
        self.stamp(kind).0
    }

    /// Publish one event and return its `t_ms`, for a publisher that
    /// spaces its events out on the run clock.
    pub(crate) fn publish_stamped(&self, kind: EventKind) -> u64 {
        self.stamp(kind).1
    }

    /// Publish one event; its seq and `t_ms`.
    fn stamp(&self, kind: EventKind) -> (u64, u64) {
        let mut kind = scrubbed(kind);
        let now_ms = self.inner.clock.elapsed_ms();
        // Numbering, recording and broadcasting happen under one lock so that
        // the recorder and every viewer see the run's events in seq order
        // (and a short record follows the one it leans on).
        let mut state = self.inner.state.lock();
        let seq = state.next_seq;
        state.next_seq += 1;
        state.last_t_ms = state.last_t_ms.max(now_ms);
        let t_ms = state.last_t_ms;
        state.last_calls.shorten(&mut kind, t_ms);
        let event = Arc::new(Event {
            run: self.inner.run,
            seq,
            t_ms: state.last_t_ms,
            kind,
        });
        if let Some(sink) = &state.recorder {
            sink.accept(Arc::clone(&event));
        }
        for observer in &state.observers {
            observer.accept(Arc::clone(&event));
        }
        let t_ms = event.t_ms;
        // An error only means nobody is watching right now.
        let _ = self.inner.hub.tx.send(event);
        (seq, t_ms)
    }

    /// Stop recording: the recorder writes what it has and finishes. Later
    /// events still reach live viewers.
    pub(crate) fn close_recording(&self) {
        let mut state = self.inner.state.lock();
        state.recorder = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::patterns::events::{PatternEvent, RoundEvent, TaskEvent};

    fn bus(hub: &Hub) -> Bus {
        Bus::new(1, RunClock::start(), hub.clone(), None)
    }

    #[tokio::test(start_paused = true)]
    async fn seq_starts_at_one_without_gaps_and_t_ms_follows_the_run_clock() {
        let hub = Hub::new(16);
        let mut sub = hub.subscribe();
        let bus = bus(&hub);
        for round in 1..=3 {
            tokio::time::sleep(std::time::Duration::from_millis(250)).await;
            bus.publish(EventKind::Pattern(PatternEvent::Round(
                RoundEvent::RoundStarted {
                    round,
                    speakers: vec![],
                },
            )));
        }
        for (i, want_t) in [(1, 250), (2, 500), (3, 750)] {
            let Delivery::Event(event) = sub.next().await else {
                panic!("expected an event")
            };
            assert_eq!((event.seq, event.t_ms), (i, want_t));
        }
    }

    /// Collects what it is handed, as an exporter would queue it.
    #[derive(Debug, Default)]
    struct Collect(Mutex<Vec<u64>>);

    impl EventSink for Collect {
        fn accept(&self, event: Arc<Event>) {
            self.0.lock().push(event.seq);
        }
    }

    #[tokio::test]
    async fn observers_get_every_event_in_order_even_past_the_hubs_capacity() {
        let hub = Hub::new(2);
        let collect = Arc::new(Collect::default());
        let bus = Bus::new(1, RunClock::start(), hub.clone(), None)
            .with_observers(vec![Arc::clone(&collect) as Arc<dyn EventSink>]);
        for round in 1..=10 {
            bus.publish(EventKind::Pattern(PatternEvent::Round(
                RoundEvent::RoundStarted {
                    round,
                    speakers: vec![],
                },
            )));
        }
        bus.close_recording();
        bus.publish(EventKind::Pattern(PatternEvent::Round(
            RoundEvent::RoundStarted {
                round: 11,
                speakers: vec![],
            },
        )));
        assert_eq!(*collect.0.lock(), (1..=11).collect::<Vec<u64>>());
    }

    #[tokio::test]
    async fn a_lagging_viewer_learns_how_many_it_missed() {
        let hub = Hub::new(4);
        let mut sub = hub.subscribe();
        let bus = bus(&hub);
        for round in 1..=10 {
            bus.publish(EventKind::Pattern(PatternEvent::Round(
                RoundEvent::RoundStarted {
                    round,
                    speakers: vec![],
                },
            )));
        }
        assert_eq!(sub.next().await, Delivery::Missed(6));
        let Delivery::Event(first_kept) = sub.next().await else {
            panic!("expected an event")
        };
        assert_eq!(first_kept.seq, 7);
    }

    #[tokio::test]
    async fn no_viewer_and_no_recording_gets_a_registered_secret() {
        // A secret of its own: the registry is the process's.
        let secret = "sk-bus-net-Wq3Zr8Tn5Yp2Lx7";
        crate::secrets::register(secret);
        let hub = Hub::new(16);
        let mut sub = hub.subscribe();
        let bus = bus(&hub);
        bus.publish(EventKind::Pattern(PatternEvent::Tasks(TaskEvent::PlanRejected {
            reason: "invalid_plan".parse().unwrap(),
            raw: serde_json::json!({"text": format!("Bearer {secret}"), secret: [&secret[4..16]]}),
        })));
        bus.publish(EventKind::FlagChanged {
            name: format!("flag_{}", &secret[10..]),
            on: true,
            gate: None,
        });
        bus.publish(EventKind::FlagChanged {
            name: "plain".into(),
            on: false,
            gate: None,
        });
        let mut seen = Vec::new();
        while let Some(Delivery::Event(event)) = sub.try_next() {
            seen.push(serde_json::to_string(&*event).unwrap());
        }
        assert_eq!(seen.len(), 3);
        for line in &seen {
            let chars: Vec<char> = secret.chars().collect();
            for window in chars.windows(crate::secrets::WINDOW) {
                let window: String = window.iter().collect();
                assert!(!line.contains(&window), "{window} in {line}");
            }
        }
        assert!(seen[0].contains("Bearer [redacted]"), "{}", seen[0]);
        assert!(seen[1].contains("flag_[redacted]"), "{}", seen[1]);
        assert!(seen[2].contains("\"name\":\"plain\""), "{}", seen[2]);
    }

    /// A run's start is looked through in its shared facts (read as the
    /// file's text, escapes decoded) and in the rest of it.
    #[tokio::test]
    async fn a_runs_start_is_scrubbed_in_its_shared_facts_and_in_the_rest() {
        let secret = "sk-bus-start-Hm4Kq7Rt2Vx9Nz3";
        crate::secrets::register(secret);
        let shipped = include_str!("../../scenarios/checkout_v2_launch.json");
        let started = |context: &str, goal: &str| {
            let mut document: serde_json::Value = serde_json::from_str(shipped).unwrap();
            document["context"] = serde_json::json!("@context@");
            let text = document.to_string().replace("\"@context@\"", context);
            let scenario = crate::scenario::parse_bytes(text.into_bytes(), "s.json").unwrap();
            assert!(scenario.context_text().is_some(), "held as the file's text");
            EventKind::RunStarted(crate::bus::RunStarted {
                pattern: scenario.pattern,
                seed: 1,
                goal: goal.into(),
                clock: crate::bus::ClockMode::Virtual,
                flags: Vec::new(),
                source: None,
                started_at_ms: 0,
                model: None,
                forked_from: None,
                scenario: Arc::new(scenario),
            })
        };
        // The key with its first letter escaped, as a file may write it.
        let escaped = format!("\\u0073{}", &secret[1..]);
        let hub = Hub::new(16);
        let mut sub = hub.subscribe();
        let bus = bus(&hub);
        bus.publish(started(&format!("{{\"note\": \"key {escaped}\"}}"), "g"));
        bus.publish(started("{\"rows\": [1, 2]}", &format!("use {secret}")));
        bus.publish(started("{\"rows\": [1, 2]}", "plain"));
        let mut seen = Vec::new();
        while let Some(Delivery::Event(event)) = sub.try_next() {
            seen.push(serde_json::to_string(&*event).unwrap());
        }
        assert_eq!(seen.len(), 3);
        for line in &seen {
            assert!(!line.contains(&secret[3..]), "{line}");
        }
        assert!(seen[0].contains("key [redacted]"), "{}", seen[0]);
        assert!(seen[1].contains("use [redacted]"), "{}", seen[1]);
        assert!(seen[2].contains("\"rows\":[1,2]"), "{}", seen[2]);
    }
}
