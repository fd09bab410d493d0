//! What a run from a cassette does at its gates besides what its
//! controller says: the recorded run's commands, each at the gate it took
//! effect at (a flag switched at round 2, a person's answer after round
//! 3), and a fork's changes at the gate it goes live at.

use super::GateTarget;
use super::{Control, Gate};
use crate::bus::EventKind;
use crate::bus::GatePoint;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

#[derive(Debug, Default)]
pub(crate) struct Replayed {
    /// The recorded commands not given yet, in recorded order.
    script: Vec<(GatePoint, Control)>,
    fork: Option<ForkAt>,
}

/// Where a fork goes live, and what it changes there.
#[derive(Debug)]
pub(crate) struct ForkAt {
    pub(crate) target: GateTarget,
    /// Flags the fork sets at its gate, after the recorded run's own
    /// changes there.
    pub(crate) flags: Vec<(String, bool)>,
    /// The cassette's switch that makes every call live from the gate on
    /// (the cassette's `live_switch`).
    pub(crate) live: Arc<AtomicBool>,
}

/// What a gate does for the cassette.
#[derive(Debug, Default)]
pub(crate) struct AtGate {
    /// Commands to give here, in order.
    pub(crate) commands: Vec<Control>,
    /// The fork goes live here.
    pub(crate) went_live: bool,
}

impl Replayed {
    pub(crate) fn new(script: Vec<(GatePoint, Control)>, fork: Option<ForkAt>) -> Self {
        Replayed { script, fork }
    }

    /// The commands for gate `at`; at the fork's gate the fork's flags
    /// too, the cassette goes live and the recorded run's later flag
    /// changes are dropped (the fork decides from here on). A person's
    /// later answers stay, each for the question at its gate: a fork that
    /// changes nothing is its parent, answers included, and an answer
    /// given to the fork (`--answer`) is taken before them.
    pub(crate) fn at(&mut self, at: &GatePoint) -> AtGate {
        let mut here = AtGate::default();
        let script = std::mem::take(&mut self.script);
        for (gate, command) in script {
            if gate == *at {
                here.commands.push(command);
            } else {
                self.script.push((gate, command));
            }
        }
        if self
            .fork
            .as_ref()
            .is_some_and(|fork| fork.target.matches(at))
            && let Some(fork) = self.fork.take()
        {
            here.commands.extend(
                fork.flags
                    .into_iter()
                    .map(|(name, on)| Control::SetFlag { name, on }),
            );
            fork.live.store(true, Ordering::Release);
            self.script
                .retain(|(_, command)| matches!(command, Control::Answer { .. }));
            here.went_live = true;
        }
        here
    }
}

impl Gate {
    /// Give a cassette's recorded commands at their gates, and go live at
    /// a fork's.
    pub(crate) fn with_replayed(mut self, replayed: Replayed) -> Gate {
        self.replayed = replayed;
        self
    }

    /// What the cassette does at `at`: the recorded commands given again
    /// there, and a fork going live.
    pub(super) fn replay_at(&mut self, at: &GatePoint) {
        let here = self.replayed.at(at);
        for command in here.commands {
            match command {
                Control::SetFlag { name, on } => self.set_flag(name, on, at),
                Control::Answer {
                    option, note, by, ..
                } => self.answer = Some(crate::bus::Answer { option, note, by }),
                Control::Pause | Control::Resume | Control::Step | Control::Cancel => {}
            }
        }
        if here.went_live {
            self.bus.publish(EventKind::WentLive { gate: at.clone() });
            // The live part runs in real time.
            self.bus.clock().stop_forwarding();
        }
    }
}
