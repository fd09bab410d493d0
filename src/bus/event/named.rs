//! Reading an event whose kind's name is known before its fields: the
//! line's object shown to serde as that kind, so that the kind's own
//! reading goes straight through the text rather than through serde's
//! buffer of every field. A pattern's events are read by the patterns'
//! own reading ([`PatternPayload::read_kind`]), found by the names of
//! their kinds.

use super::{EventKind, KindNamed};
use crate::bus::pattern::PatternPayload;
use serde::de::value::StrDeserializer;
use serde::de::{DeserializeSeed, EnumAccess, Error as _, IgnoredAny, VariantAccess, Visitor};
use serde::{Deserialize, Deserializer};
use std::sync::OnceLock;

/// The kind named, read as a pattern's event or as one of the kinds every
/// run shares.
pub(super) fn read_named<P: PatternPayload>(
    named: Named<'_>,
) -> Result<EventKind<P>, serde_json::Error> {
    if P::is_kind(named.kind) {
        P::read_kind(named.kind, named).map(EventKind::Pattern)
    } else {
        KindNamed::<P>::deserialize(named)
    }
}

/// Whether this version reads events of the kind `name`, a pattern's
/// (`P`) or one every run shares.
pub(crate) fn is_known_kind_of<P: PatternPayload>(name: &str) -> bool {
    static SHARED: OnceLock<&'static [&'static str]> = OnceLock::new();
    P::is_kind(name)
        || SHARED
            // The shared kinds are the same whatever a pattern's event is.
            .get_or_init(|| kinds_of(KindNamed::<()>::deserialize))
            .contains(&name)
}

/// The names of the kinds an enum of events reads: `read` is its reading
/// by name, shown a deserializer that only notes the names.
pub(crate) fn kinds_of<T>(
    read: impl FnOnce(Kinds) -> Result<T, serde::de::value::Error>,
) -> &'static [&'static str] {
    let kinds = Kinds::default();
    let _ = read(kinds.clone());
    kinds.0.get()
}

/// A deserializer that notes the variants it is asked to read and reads
/// nothing.
#[derive(Clone, Default)]
pub(crate) struct Kinds(std::rc::Rc<std::cell::Cell<&'static [&'static str]>>);

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
pub(crate) struct Named<'a> {
    pub(crate) kind: &'a str,
    pub(crate) text: &'a str,
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
    use strum::VariantNames;

    #[test]
    fn the_shared_kinds_are_named_as_serde_reads_them() {
        let shared = kinds_of(KindNamed::<()>::deserialize);
        assert_eq!(
            <EventKind as VariantNames>::VARIANTS[..shared.len()],
            *shared
        );
        assert_eq!(
            <EventKind as VariantNames>::VARIANTS[shared.len()..],
            ["pattern"]
        );
    }
}
