//! A pattern's events as the bus carries them: a payload of the pattern's
//! own type, which the bus, the recorder and every floor below the
//! patterns read only through this trait (its kind's name, its words, the
//! steps and gates it marks) and serde. Each pattern's events implement
//! it in the pattern's own folder; the floors below never name them.
//!
//! Which patterns there are is the [`Registry`]'s to say: the bus declares
//! what it must know of them (their events' type, a step gate's phase,
//! their figures), and the patterns' folder gives it, in the one
//! implementation for [`Patterns`]. So the bus, and every floor below the
//! patterns, names no pattern, and a pattern the registry forgets does
//! not compile.

use super::figures::Figures;
use serde::de::DeserializeOwned;
use serde::{Deserializer, Serialize};
use std::fmt;
use std::hash::Hash;

/// What the floors below the patterns know of the patterns there are,
/// given by the patterns' folder for [`Patterns`].
pub trait Registry {
    /// A pattern step's event, as the bus carries it.
    type Event: PatternPayload;

    /// Where in a step a step gate holds the run (`GatePoint::Step`),
    /// written as a word.
    type StepPhase: Clone
        + Copy
        + fmt::Debug
        + fmt::Display
        + PartialEq
        + Eq
        + Hash
        + Send
        + Sync
        + Serialize
        + DeserializeOwned
        + 'static;

    /// Every pattern's figures, in the registry's order.
    fn figures() -> impl Iterator<Item = &'static Figures>;

    /// One order of every pattern's summary values, and one of their
    /// counts, that keeps each pattern's own.
    fn summary_order() -> &'static (Vec<&'static str>, Vec<&'static str>);
}

/// The patterns this build of Conclave runs: the one implementor of
/// [`Registry`], in the patterns' folder.
#[derive(Clone, Copy, Debug)]
pub struct Patterns;

/// The patterns' events, as the bus carries them by default.
pub(crate) type PatternEvents = <Patterns as Registry>::Event;

/// A step gate's phase, as the registry gives it.
pub(crate) type StepPhase = <Patterns as Registry>::StepPhase;

/// What the floors below the patterns ask of a pattern's event.
pub trait PatternPayload:
    Clone + fmt::Debug + PartialEq + Send + Sync + Serialize + DeserializeOwned + 'static
{
    /// The kind's name, as recordings write it (`round_started`).
    fn kind_name(&self) -> &'static str;

    /// What happened, in the pattern's words (not yet cleaned for the
    /// terminal).
    fn describe(&self) -> String;

    /// Whether the event begins one of its pattern's steps (a round, a
    /// dispatch wave, a turn): what a replay steps through.
    fn opens_step(&self) -> bool;

    /// The gate the event opens a step after, with its number.
    fn opened_gate(&self) -> Option<(GateKind, u32)>;

    /// Whether the event closes one of its pattern's steps: what a
    /// headless replay prints.
    fn closes_step(&self) -> bool;

    /// Whether `name` is the name of one of these events' kinds.
    fn is_kind(name: &str) -> bool;

    /// The event of the kind `kind` (one of these events' kinds), read
    /// from `de`, which shows serde that kind with its fields.
    fn read_kind<'de, D: Deserializer<'de>>(kind: &str, de: D) -> Result<Self, D::Error>;
}

/// The kinds of gate a run passes before its steps, as the replay
/// timeline and `fork --at` name them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GateKind {
    Round,
    Wave,
    Turn,
    Step,
}

impl GateKind {
    pub fn as_str(self) -> &'static str {
        match self {
            GateKind::Round => "round",
            GateKind::Wave => "wave",
            GateKind::Turn => "turn",
            GateKind::Step => "step",
        }
    }
}
