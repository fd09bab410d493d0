//! A pattern's events as the bus carries them: a payload of the pattern's
//! own type, which the bus, the recorder and every floor below the
//! patterns read only through this trait (its kind's name, its words, the
//! steps and gates it marks) and serde. Each pattern's events implement
//! it in the pattern's own folder; the floors below never name them.

use super::event::values::GateKind;
use serde::de::DeserializeOwned;
use serde::{Deserializer, Serialize};
use std::fmt;

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
