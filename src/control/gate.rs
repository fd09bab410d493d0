//! Where a fork goes live: a gate as the replay timeline names it (`round
//! 3`, `wave 2`, `turn 5`, `step 4`), or an event number, rounded down to
//! the gate before that event.

use crate::bus::GateKind;
use crate::bus::describe::opened_gate;
use crate::bus::{Event, GatePoint};
use std::fmt;

/// A gate of a recorded run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GateTarget {
    pub kind: GateKind,
    pub number: u32,
}

impl fmt::Display for GateTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.kind.as_str(), self.number)
    }
}

/// Why `--at` names no gate of the recording.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("--at {given:?}: {reason}")]
pub struct GateError {
    given: String,
    reason: String,
}

impl GateTarget {
    /// Whether the engine is at this gate.
    pub(crate) fn matches(&self, at: &GatePoint) -> bool {
        let (kind, number) = match at {
            GatePoint::Round { round } => (GateKind::Round, *round),
            GatePoint::Wave { wave } => (GateKind::Wave, *wave),
            GatePoint::Turn { turn, .. } => (GateKind::Turn, *turn),
            GatePoint::Step { step, .. } | GatePoint::Activation { step, .. } => {
                (GateKind::Step, *step)
            }
            GatePoint::Retry { .. } | GatePoint::Decision { .. } => return false,
        };
        kind == self.kind && number == self.number
    }

    /// The gate `event` opens a step after, with the event's seq: what
    /// [`GateTarget::resolve`] looks among.
    pub fn opened_by(event: &Event) -> Option<(u64, GateTarget)> {
        let (kind, number) = opened_gate(&event.kind)?;
        Some((event.seq, GateTarget { kind, number }))
    }

    /// The gate `given` names among the `gates` a recorded run passed: `KIND N` for
    /// one of the gates the run passed, or an event number (`N`, `#N`,
    /// `event N`) for the last gate at or before that event.
    pub fn resolve(given: &str, gates: &[(u64, GateTarget)]) -> Result<GateTarget, GateError> {
        let refused = |reason: String| GateError {
            given: crate::sanitize::clean(given).into_owned(),
            reason,
        };
        let Some(&(_, first)) = gates.first() else {
            return Err(refused(
                "the recording passed no gate (a round, wave, turn or step) to fork from"
                    .to_string(),
            ));
        };
        let words: Vec<&str> = given.split_whitespace().collect();
        let event_number = match words.as_slice() {
            ["event" | "#", n] => Some(*n),
            [n] => Some(n.strip_prefix('#').unwrap_or(n)),
            _ => None,
        };
        if let Some(n) = event_number
            && let Ok(seq) = n.parse::<u64>()
        {
            return gates
                .iter()
                .rev()
                .find(|(at, _)| *at <= seq)
                .map(|(_, gate)| *gate)
                .ok_or_else(|| {
                    refused(format!(
                        "event {seq} comes before the run's first gate, {first} (event {})",
                        gates[0].0
                    ))
                });
        }
        let expected = format!(
            "expected a gate such as \"{first}\" or an event number such as \"#{}\"",
            gates[0].0
        );
        let [kind, number] = words.as_slice() else {
            return Err(refused(expected));
        };
        let kind = match kind.to_ascii_lowercase().as_str() {
            "round" => GateKind::Round,
            "wave" => GateKind::Wave,
            "turn" => GateKind::Turn,
            "step" => GateKind::Step,
            _ => return Err(refused(expected)),
        };
        let Ok(number) = number.parse::<u32>() else {
            return Err(refused(expected));
        };
        if kind != first.kind {
            return Err(refused(format!(
                "this run's gates are {}s: --at \"{} N\"",
                first.kind.as_str(),
                first.kind.as_str()
            )));
        }
        let target = GateTarget { kind, number };
        if gates.iter().any(|(_, gate)| *gate == target) {
            return Ok(target);
        }
        let last = gates.last().map_or(first, |(_, gate)| *gate);
        Err(refused(format!(
            "the recorded run passed {first} to {last}, not {target}"
        )))
    }
}

#[cfg(test)]
#[path = "gate_tests.rs"]
mod tests;
