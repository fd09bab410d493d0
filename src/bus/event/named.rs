//! Reading an event whose kind's name is known before its fields: the
//! line's object shown to serde as that kind, so that the kind's own
//! reading goes straight through the text rather than through serde's
//! buffer of every field. A pattern's events are read through its group's
//! enum, found by the names of its kinds.

use super::{EventKind, KindNamed};
use crate::bus::research::ResearchNamed;
use crate::bus::round::RoundNamed;
use crate::bus::task::TaskNamed;
use crate::bus::team::TeamNamed;
use serde::de::value::StrDeserializer;
use serde::de::{DeserializeSeed, EnumAccess, Error as _, IgnoredAny, VariantAccess, Visitor};
use serde::{Deserialize, Deserializer};
use std::collections::HashMap;
use std::sync::OnceLock;

/// Reads one group's events: its enum read as the kind named.
type GroupReader = for<'a> fn(Named<'a>) -> Result<EventKind, serde_json::Error>;

/// Every group of events by the names of its kinds, learnt from the
/// groups' own readers (what their derive hands `deserialize_enum`).
fn groups() -> &'static HashMap<&'static str, GroupReader> {
    static GROUPS: OnceLock<HashMap<&'static str, GroupReader>> = OnceLock::new();
    GROUPS.get_or_init(|| {
        let readers: [(&[&str], GroupReader); 4] = [
            (kinds_of(RoundNamed::deserialize), |named| {
                RoundNamed::deserialize(named).map(EventKind::Round)
            }),
            (kinds_of(TaskNamed::deserialize), |named| {
                TaskNamed::deserialize(named).map(EventKind::Tasks)
            }),
            (kinds_of(TeamNamed::deserialize), |named| {
                TeamNamed::deserialize(named).map(EventKind::Team)
            }),
            (kinds_of(ResearchNamed::deserialize), |named| {
                ResearchNamed::deserialize(named).map(EventKind::Research)
            }),
        ];
        readers
            .into_iter()
            .flat_map(|(kinds, read)| kinds.iter().map(move |kind| (*kind, read)))
            .collect()
    })
}

/// The kind named, read as its group's event or as one of the kinds every
/// run shares.
pub(super) fn read_named(named: Named<'_>) -> Result<EventKind, serde_json::Error> {
    match groups().get(named.kind) {
        Some(read) => read(named),
        None => KindNamed::deserialize(named),
    }
}

/// Whether this version reads events of the kind `name`.
pub(crate) fn is_known_kind(name: &str) -> bool {
    static SHARED: OnceLock<&'static [&'static str]> = OnceLock::new();
    groups().contains_key(name)
        || SHARED
            .get_or_init(|| kinds_of(KindNamed::deserialize))
            .contains(&name)
}

/// The names of the kinds an enum of events reads: `read` is its reading
/// by name, shown a deserializer that only notes the names.
fn kinds_of<T>(read: fn(Kinds) -> Result<T, serde::de::value::Error>) -> &'static [&'static str] {
    let kinds = Kinds::default();
    let _ = read(kinds.clone());
    kinds.0.get()
}

/// A deserializer that notes the variants it is asked to read and reads
/// nothing.
#[derive(Clone, Default)]
struct Kinds(std::rc::Rc<std::cell::Cell<&'static [&'static str]>>);

impl<'de> Deserializer<'de> for Kinds {
    type Error = serde::de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(Self::Error::custom("only an enum's variants are noted"))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        variants: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Self::Error> {
        self.0.set(variants);
        Err(Self::Error::custom("noted"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct identifier ignored_any
    }
}

/// A line whose kind is already known, shown to serde as that kind with
/// the line's object as its fields: the kind's own reading then goes
/// straight through the text. The head's keys are fields no kind has, so
/// they are passed over as the tagged reading passes over them.
pub(super) struct Named<'a> {
    pub(super) kind: &'a str,
    pub(super) text: &'a str,
}

impl<'de> Named<'de> {
    fn read<T>(
        self,
        read: impl FnOnce(
            &mut serde_json::Deserializer<serde_json::de::StrRead<'de>>,
        ) -> Result<T, serde_json::Error>,
    ) -> Result<T, serde_json::Error> {
        let mut de = serde_json::Deserializer::from_str(self.text);
        let value = read(&mut de)?;
        de.end()?;
        Ok(value)
    }
}

impl<'de> Deserializer<'de> for Named<'de> {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(Self::Error::custom("an event is read as one of its kinds"))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_enum(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct identifier ignored_any
    }
}

impl<'de> EnumAccess<'de> for Named<'de> {
    type Error = serde_json::Error;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, Self), Self::Error> {
        let kind = seed.deserialize(StrDeserializer::<Self::Error>::new(self.kind))?;
        Ok((kind, self))
    }
}

impl<'de> VariantAccess<'de> for Named<'de> {
    type Error = serde_json::Error;

    fn unit_variant(self) -> Result<(), Self::Error> {
        self.read(|de| IgnoredAny::deserialize(de).map(drop))
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(
        self,
        seed: T,
    ) -> Result<T::Value, Self::Error> {
        self.read(|de| seed.deserialize(de))
    }

    fn tuple_variant<V: Visitor<'de>>(self, _: usize, _: V) -> Result<V::Value, Self::Error> {
        Err(Self::Error::custom("no event kind is a tuple"))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.read(|de| de.deserialize_struct("", fields, visitor))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bus::{ResearchEvent, RoundEvent, TaskEvent, TeamEvent};
    use strum::VariantNames;

    #[test]
    fn each_kind_is_named_as_serde_reads_it() {
        assert_eq!(
            <RoundEvent as VariantNames>::VARIANTS,
            kinds_of(RoundNamed::deserialize)
        );
        assert_eq!(
            <TaskEvent as VariantNames>::VARIANTS,
            kinds_of(TaskNamed::deserialize)
        );
        assert_eq!(
            <TeamEvent as VariantNames>::VARIANTS,
            kinds_of(TeamNamed::deserialize)
        );
        assert_eq!(
            ResearchEvent::VARIANTS,
            kinds_of(ResearchNamed::deserialize)
        );
        let shared = kinds_of(KindNamed::deserialize);
        assert_eq!(
            <EventKind as VariantNames>::VARIANTS[..shared.len()],
            *shared
        );
        assert_eq!(
            <EventKind as VariantNames>::VARIANTS[shared.len()..],
            ["round", "tasks", "team", "research"]
        );
    }

    #[test]
    fn no_kind_is_in_two_groups_or_shared() {
        let shared = kinds_of(KindNamed::deserialize);
        let grouped: usize = [
            kinds_of(RoundNamed::deserialize),
            kinds_of(TaskNamed::deserialize),
            kinds_of(TeamNamed::deserialize),
            kinds_of(ResearchNamed::deserialize),
        ]
        .iter()
        .map(|kinds| kinds.len())
        .sum();
        assert_eq!(groups().len(), grouped);
        assert!(shared.iter().all(|kind| !groups().contains_key(kind)));
    }
}
