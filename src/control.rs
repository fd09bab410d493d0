//! Control of a live run: pause, resume, step, flags, cancel and the
//! answers to the questions a run asks a person. Commands queue on a small
//! channel and the engine reads them only at its gates (before each of a
//! pattern's steps), so a run changes course at well-defined points;
//! cancel alone also interrupts a call in flight.

mod ask;
mod command;
mod gate;
mod replayed;
mod shared;
mod switches;

pub use command::Control;
pub(crate) use command::ControlError;
pub use gate::{GateError, GateTarget};
pub(crate) use replayed::{ForkAt, Replayed};
pub(crate) use shared::SharedGate;
pub(crate) use switches::Switches;

use crate::bus::{Answer, AnsweredBy, Bus, EventKind, FlagState, GatePoint, Question};
use crate::scenario::{GatewayMechanism, Scenario};
use parking_lot::Mutex;
use std::sync::Arc;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// How many commands may wait for the next gate.
const QUEUE: usize = 64;

/// The sending side, held by the dashboard or a test.
#[derive(Clone, Debug)]
pub struct Controller {
    tx: mpsc::Sender<Control>,
    cancel: CancellationToken,
    flag_names: Arc<[String]>,
    /// The question the run waits on, shared with its gate, so that an
    /// answer naming none of its options is refused as it is sent.
    asked: Asked,
}

/// The question a gate waits on an answer to, if any.
type Asked = Arc<Mutex<Option<Question>>>;

impl Controller {
    pub(crate) fn send(&self, command: Control) -> Result<(), ControlError> {
        match &command {
            Control::Cancel => {
                self.cancel.cancel();
                return Ok(());
            }
            Control::SetFlag { name, .. } if !self.flag_names.contains(name) => {
                return Err(ControlError::UnknownFlag {
                    name: name.clone(),
                    known: known_flags(&self.flag_names),
                });
            }
            Control::Answer {
                option, question, ..
            } => {
                if let Some(asked) = self.asked.lock().as_ref() {
                    if let Some(named) = question.as_ref().filter(|q| **q != asked.id) {
                        return Err(ControlError::OtherQuestion {
                            named: named.clone(),
                            asked: asked.id.clone(),
                        });
                    }
                    asked.check(option)?;
                }
            }
            _ => {}
        }
        self.tx.try_send(command).map_err(|e| match e {
            mpsc::error::TrySendError::Full(_) => ControlError::Busy,
            mpsc::error::TrySendError::Closed(_) => ControlError::RunOver,
        })
    }

    pub fn pause(&self) -> Result<(), ControlError> {
        self.send(Control::Pause)
    }

    pub fn resume(&self) -> Result<(), ControlError> {
        self.send(Control::Resume)
    }

    pub fn step(&self) -> Result<(), ControlError> {
        self.send(Control::Step)
    }

    pub fn set_flag(&self, name: &str, on: bool) -> Result<(), ControlError> {
        self.send(Control::SetFlag {
            name: name.to_string(),
            on,
        })
    }

    pub fn cancel(&self) {
        self.cancel.cancel();
    }

    /// Answer the question the run waits on (or the next one it asks)
    /// with `option`; refused when the question asked offers no such
    /// option.
    pub fn answer(
        &self,
        option: &str,
        note: Option<String>,
        by: AnsweredBy,
    ) -> Result<(), ControlError> {
        self.send(Control::Answer {
            option: option.to_string(),
            note,
            question: None,
            by,
        })
    }
}

/// Who answers when a run asks a person: an answer given in advance on the
/// command line (`--answer`, `--decide`), used once, at the first question
/// that offers it, and whether someone is watching who can be asked (the
/// dashboard).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct HumanDesk {
    pub(crate) preset: Option<String>,
    pub(crate) attended: bool,
}

pub(crate) fn known_flags(names: &[String]) -> String {
    if names.is_empty() {
        "no flags".to_string()
    } else {
        names.join(", ")
    }
}

/// The flags of a run and what they gate, as they stand at the last gate.
#[derive(Clone, Debug)]
pub(crate) struct Flags {
    scenario: Arc<Scenario>,
    on: Vec<bool>,
}

impl Flags {
    /// The scenario's defaults with `overrides` applied; an unknown name is
    /// an error.
    pub(crate) fn new(
        scenario: Arc<Scenario>,
        overrides: &[(String, bool)],
    ) -> Result<Flags, ControlError> {
        let mut flags = Flags {
            on: scenario.flags.values().map(|f| f.default).collect(),
            scenario,
        };
        for (name, on) in overrides {
            flags.set(name, *on)?;
        }
        Ok(flags)
    }

    /// Set a flag; returns whether its state changed.
    fn set(&mut self, name: &str, on: bool) -> Result<bool, ControlError> {
        let Some(index) = self.scenario.flags.get_index_of(name) else {
            let names: Vec<String> = self.scenario.flags.keys().cloned().collect();
            return Err(ControlError::UnknownFlag {
                name: name.to_string(),
                known: known_flags(&names),
            });
        };
        let changed = self.on[index] != on;
        self.on[index] = on;
        Ok(changed)
    }

    #[cfg(test)]
    pub(crate) fn is_on(&self, name: &str) -> Option<bool> {
        self.scenario.flags.get_index_of(name).map(|i| self.on[i])
    }

    /// Whether `name` is inside the execution allowlist: no flag that is
    /// off gates it.
    pub(crate) fn allows(&self, name: &str) -> bool {
        self.scenario
            .flags
            .values()
            .zip(&self.on)
            .all(|(flag, on)| *on || !flag.gated_names().any(|n| n == name))
    }

    /// The first flag in declaration order that is off and gates `name`:
    /// the one keeping it outside the execution allowlist.
    pub(crate) fn gated_by(&self, name: &str) -> Option<&str> {
        self.scenario
            .flags
            .iter()
            .zip(&self.on)
            .find(|((_, flag), on)| !**on && flag.gated_names().any(|n| n == name))
            .map(|((flag_name, _), _)| flag_name.as_str())
    }

    /// Whether `mechanism` of the gateway works: no flag that switches it
    /// is off.
    pub(crate) fn mechanism_on(&self, mechanism: GatewayMechanism) -> bool {
        self.scenario
            .flags
            .values()
            .zip(&self.on)
            .all(|(flag, on)| *on || flag.gateway != Some(mechanism))
    }

    /// Roles of the flags with `joins` that are on, in flag order, each once.
    pub(crate) fn joined_roles(&self) -> Vec<String> {
        let mut roles: Vec<String> = Vec::new();
        for (flag, on) in self.scenario.flags.values().zip(&self.on) {
            if *on && flag.joins {
                for role in &flag.roles {
                    if !roles.contains(role) {
                        roles.push(role.clone());
                    }
                }
            }
        }
        roles
    }

    pub(crate) fn states(&self) -> Vec<FlagState> {
        self.scenario
            .flags
            .keys()
            .zip(&self.on)
            .map(|(name, on)| FlagState {
                name: name.clone(),
                on: *on,
            })
            .collect()
    }
}

/// The engine's side: where a run stops to read its commands.
#[derive(Debug)]
pub(crate) struct Gate {
    rx: mpsc::Receiver<Control>,
    cancel: CancellationToken,
    paused: bool,
    flags: Flags,
    switches: Switches,
    bus: Bus,
    desk: HumanDesk,
    /// An answer that arrived before the run asked.
    answer: Option<Answer>,
    /// The question being asked, shared with the controller.
    asked: Asked,
    /// A cassette's commands and a fork's gate.
    replayed: Replayed,
}

/// The run was cancelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Cancelled;

/// A connected controller and gate for one run.
pub(crate) fn channel(flags: Flags, bus: Bus, start_paused: bool) -> (Controller, Gate) {
    let (tx, rx) = mpsc::channel(QUEUE);
    let cancel = CancellationToken::new();
    let asked = Asked::default();
    let controller = Controller {
        tx,
        cancel: cancel.clone(),
        flag_names: flags.scenario.flags.keys().cloned().collect(),
        asked: Arc::clone(&asked),
    };
    let gate = Gate {
        rx,
        cancel,
        paused: start_paused,
        switches: Switches::of(&flags),
        flags,
        bus,
        desk: HumanDesk::default(),
        answer: None,
        asked,
        replayed: Replayed::default(),
    };
    (controller, gate)
}

impl Gate {
    pub(crate) fn with_desk(mut self, desk: HumanDesk) -> Gate {
        self.desk = desk;
        self
    }

    /// Set a flag at `at`; a change is published and holds from now on.
    fn set_flag(&mut self, name: String, on: bool, at: &GatePoint) {
        if self.flags.set(&name, on) == Ok(true) {
            self.switches.follow(&self.flags);
            self.bus.publish(EventKind::FlagChanged {
                name,
                on,
                gate: Some(at.clone()),
            });
        }
    }

    pub(crate) fn flags(&self) -> &Flags {
        &self.flags
    }

    /// The gateway mechanisms as the flags switch them, kept up to date at
    /// every gate.
    pub(crate) fn switches(&self) -> Switches {
        self.switches.clone()
    }

    /// The token that interrupts calls in flight when the run is cancelled.
    pub(crate) fn cancel_token(&self) -> CancellationToken {
        self.cancel.clone()
    }

    /// Apply waiting commands and, while paused, wait for resume or step.
    /// Flag changes made here are published and hold from now on.
    pub(crate) async fn pass(&mut self, at: GatePoint) -> Result<(), Cancelled> {
        self.replay_at(&at);
        let mut announced = false;
        loop {
            if self.cancel.is_cancelled() {
                return Err(Cancelled);
            }
            let command = if self.paused {
                if !announced {
                    announced = true;
                    self.bus.clock().pause();
                    self.bus.publish(EventKind::Paused { gate: at.clone() });
                }
                tokio::select! {
                    biased;
                    () = self.cancel.cancelled() => return Err(Cancelled),
                    command = self.rx.recv() => command.unwrap_or(Control::Resume),
                }
            } else {
                match self.rx.try_recv() {
                    Ok(command) => command,
                    Err(_) => return Ok(()),
                }
            };
            match command {
                Control::Pause => self.paused = true,
                Control::Resume => {
                    if self.paused {
                        self.paused = false;
                        self.bus.clock().resume();
                        if announced {
                            self.bus.publish(EventKind::Resumed { gate: at.clone() });
                        }
                    }
                }
                Control::Step => {
                    if self.paused {
                        self.bus.clock().resume();
                        self.bus.publish(EventKind::Stepped { gate: at });
                        return Ok(());
                    }
                    self.paused = true;
                }
                Control::SetFlag { name, on } => self.set_flag(name, on, &at),
                Control::Cancel => {
                    self.cancel.cancel();
                    return Err(Cancelled);
                }
                Control::Answer {
                    option, note, by, ..
                } => self.answer = Some(Answer { option, note, by }),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bus::{Delivery, Hub};
    use crate::clock::RunClock;
    use crate::scenario::{FlagSpec, Scenario};
    use std::time::Duration;

    fn scenario() -> Arc<Scenario> {
        let mut scenario: Scenario = serde_json::from_value(serde_json::json!({
            "name": "t", "pattern": "collaboration", "goal": "g", "context": {},
            "provider": {"kind": "sim"}
        }))
        .unwrap();
        scenario.flags.insert(
            "legal".into(),
            FlagSpec {
                roles: vec!["legal_analyst".into()],
                joins: true,
                ..FlagSpec::default()
            },
        );
        scenario.flags.insert(
            "ops".into(),
            FlagSpec {
                default: true,
                roles: vec!["ops".into(), "legal_analyst".into()],
                joins: true,
                ..FlagSpec::default()
            },
        );
        Arc::new(scenario)
    }

    fn setup(start_paused: bool) -> (Controller, Gate, crate::bus::Subscription) {
        let hub = Hub::new(64);
        let sub = hub.subscribe();
        let bus = Bus::new(1, RunClock::start(), hub, None);
        let flags = Flags::new(scenario(), &[]).unwrap();
        let (controller, gate) = channel(flags, bus, start_paused);
        (controller, gate, sub)
    }

    fn kinds(sub: &mut crate::bus::Subscription) -> Vec<EventKind> {
        let mut out = Vec::new();
        while let Some(Delivery::Event(e)) = sub.try_next() {
            out.push(e.kind.clone());
        }
        out
    }

    #[test]
    fn flags_gate_the_execution_allowlist_and_join_in_order() {
        let flags = Flags::new(scenario(), &[]).unwrap();
        assert!(!flags.allows("legal_analyst"), "gated by the off flag");
        assert!(flags.allows("ops"));
        assert!(flags.allows("demand_analyst"), "no flag gates it");
        assert_eq!(flags.gated_by("legal_analyst"), Some("legal"));
        assert_eq!(flags.gated_by("ops"), None, "its flag is on");
        assert_eq!(flags.joined_roles(), vec!["ops", "legal_analyst"]);
        let flags = Flags::new(scenario(), &[("legal".into(), true)]).unwrap();
        assert!(flags.allows("legal_analyst"));
        assert_eq!(flags.joined_roles(), vec!["legal_analyst", "ops"]);
        let err = Flags::new(scenario(), &[("legl".into(), true)]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown flag \"legl\"; this scenario declares: legal, ops"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_gateway_flag_switches_its_mechanism_at_the_next_gate() {
        let mut scenario = (*scenario()).clone();
        scenario.flags.insert(
            "breakers".into(),
            FlagSpec {
                default: true,
                gateway: Some(GatewayMechanism::CircuitBreaker),
                ..FlagSpec::default()
            },
        );
        let bus = Bus::new(1, RunClock::start(), Hub::new(16), None);
        let flags = Flags::new(Arc::new(scenario), &[]).unwrap();
        let (controller, mut gate) = channel(flags, bus, false);
        let switches = gate.switches();
        assert!(switches.is_on(GatewayMechanism::CircuitBreaker));
        controller.set_flag("breakers", false).unwrap();
        assert!(
            switches.is_on(GatewayMechanism::CircuitBreaker),
            "not before the gate"
        );
        gate.pass(GatePoint::Round { round: 1 }).await.unwrap();
        assert!(!switches.is_on(GatewayMechanism::CircuitBreaker));
        assert!(switches.is_on(GatewayMechanism::Bulkhead), "others stay on");
        assert_eq!(switches.times_off(GatewayMechanism::CircuitBreaker), 1);
        controller.set_flag("breakers", true).unwrap();
        gate.pass(GatePoint::Round { round: 2 }).await.unwrap();
        assert!(switches.is_on(GatewayMechanism::CircuitBreaker));
        assert_eq!(switches.times_off(GatewayMechanism::CircuitBreaker), 1);
    }

    #[tokio::test(start_paused = true)]
    async fn a_running_gate_applies_queued_commands_and_passes() {
        let (controller, mut gate, mut sub) = setup(false);
        controller.set_flag("legal", true).unwrap();
        controller.set_flag("ops", true).unwrap(); // no change, no event
        gate.pass(GatePoint::Round { round: 1 }).await.unwrap();
        assert_eq!(
            kinds(&mut sub),
            vec![EventKind::FlagChanged {
                name: "legal".into(),
                on: true,
                gate: Some(GatePoint::Round { round: 1 })
            }]
        );
        assert_eq!(gate.flags().is_on("legal"), Some(true));
        assert!(matches!(
            controller.set_flag("nope", true),
            Err(ControlError::UnknownFlag { .. })
        ));
    }

    #[tokio::test(start_paused = true)]
    async fn step_lets_exactly_one_gate_pass_and_the_clock_stops_while_paused() {
        let (controller, mut gate, mut sub) = setup(true);
        let clock = gate.bus.clock().clone();
        let waiting = tokio::spawn(async move {
            gate.pass(GatePoint::Round { round: 1 }).await.unwrap();
            let second = tokio::time::timeout(
                Duration::from_secs(3600),
                gate.pass(GatePoint::Round { round: 2 }),
            )
            .await;
            (gate, second.is_err())
        });
        tokio::time::sleep(Duration::from_secs(10)).await;
        assert_eq!(clock.elapsed_ms(), 0, "paused at the first gate");
        controller.step().unwrap();
        let (mut gate, second_blocked) = waiting.await.unwrap();
        assert!(second_blocked, "the second gate waits for another step");
        assert_eq!(
            kinds(&mut sub),
            vec![
                EventKind::Paused {
                    gate: GatePoint::Round { round: 1 }
                },
                EventKind::Stepped {
                    gate: GatePoint::Round { round: 1 }
                },
                EventKind::Paused {
                    gate: GatePoint::Round { round: 2 }
                },
            ]
        );
        controller.resume().unwrap();
        gate.pass(GatePoint::Round { round: 3 }).await.unwrap();
        assert_eq!(
            kinds(&mut sub),
            vec![
                EventKind::Paused {
                    gate: GatePoint::Round { round: 3 }
                },
                EventKind::Resumed {
                    gate: GatePoint::Round { round: 3 }
                },
            ]
        );
    }

    #[tokio::test(start_paused = true)]
    async fn cancel_interrupts_a_paused_gate() {
        let (controller, mut gate, _sub) = setup(true);
        let waiting = tokio::spawn(async move { gate.pass(GatePoint::Round { round: 1 }).await });
        tokio::time::sleep(Duration::from_secs(1)).await;
        controller.cancel();
        assert_eq!(waiting.await.unwrap(), Err(Cancelled));
    }

    #[tokio::test(start_paused = true)]
    async fn pause_while_running_holds_at_the_next_gate() {
        let (controller, mut gate, mut sub) = setup(false);
        controller.pause().unwrap();
        controller.set_flag("legal", true).unwrap();
        let waiting = tokio::spawn(async move {
            gate.pass(GatePoint::Round { round: 2 }).await.unwrap();
            gate
        });
        tokio::time::sleep(Duration::from_secs(5)).await;
        assert!(!waiting.is_finished());
        controller.resume().unwrap();
        let gate = waiting.await.unwrap();
        assert_eq!(gate.flags().is_on("legal"), Some(true));
        assert_eq!(
            kinds(&mut sub),
            vec![
                EventKind::Paused {
                    gate: GatePoint::Round { round: 2 }
                },
                EventKind::FlagChanged {
                    name: "legal".into(),
                    on: true,
                    gate: Some(GatePoint::Round { round: 2 })
                },
                EventKind::Resumed {
                    gate: GatePoint::Round { round: 2 }
                },
            ]
        );
    }
}
