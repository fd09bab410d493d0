//! The serializers of text alone: a map's key and a raw value's text.

use super::{Line, Stop};
use serde::ser::{self, Impossible, Serialize};

/// Methods of a serializer that stop it ([`Stop::Other`]): `name(types)`.
macro_rules! refuse {
    ($($name:ident($($arg:ty),*);)*) => {
        $(fn $name(self, $(_: $arg),*) -> Result<(), Stop> {
            Err(Stop::Other)
        })*
    };
}

/// A serializer of text alone (a key, a raw value): its types, and the
/// methods that stop it, every kind but the scalars it writes.
macro_rules! other_than_text {
    () => {
        type Ok = ();
        type Error = Stop;
        type SerializeSeq = Impossible<(), Stop>;
        type SerializeTuple = Impossible<(), Stop>;
        type SerializeTupleStruct = Impossible<(), Stop>;
        type SerializeTupleVariant = Impossible<(), Stop>;
        type SerializeMap = Impossible<(), Stop>;
        type SerializeStruct = Impossible<(), Stop>;
        type SerializeStructVariant = Impossible<(), Stop>;

        refuse! {
            serialize_bool(bool);
            serialize_f32(f32);
            serialize_f64(f64);
            serialize_bytes(&[u8]);
            serialize_none();
            serialize_unit();
            serialize_unit_struct(&'static str);
        }
        fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<(), Stop> {
            Err(Stop::Other)
        }
        fn serialize_newtype_variant<T: Serialize + ?Sized>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &T,
        ) -> Result<(), Stop> {
            Err(Stop::Other)
        }
        fn serialize_seq(self, _: Option<usize>) -> Result<Impossible<(), Stop>, Stop> {
            Err(Stop::Other)
        }
        fn serialize_tuple(self, _: usize) -> Result<Impossible<(), Stop>, Stop> {
            Err(Stop::Other)
        }
        fn serialize_tuple_struct(
            self,
            _: &'static str,
            _: usize,
        ) -> Result<Impossible<(), Stop>, Stop> {
            Err(Stop::Other)
        }
        fn serialize_tuple_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Impossible<(), Stop>, Stop> {
            Err(Stop::Other)
        }
        fn serialize_map(self, _: Option<usize>) -> Result<Impossible<(), Stop>, Stop> {
            Err(Stop::Other)
        }
        fn serialize_struct(self, _: &'static str, _: usize) -> Result<Impossible<(), Stop>, Stop> {
            Err(Stop::Other)
        }
        fn serialize_struct_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Impossible<(), Stop>, Stop> {
            Err(Stop::Other)
        }
    };
}

/// A map's key: a string, or an integer written as one (as serde_json
/// writes them); any other key is serde_json's to write or refuse.
pub(super) struct Key<'l, 'a>(pub(super) &'l mut Line<'a>);

impl Key<'_, '_> {
    fn quoted(self, value: impl itoa::Integer) -> Result<(), Stop> {
        self.0.byte(b'"');
        self.0.integer(value)?;
        self.0.byte(b'"');
        Ok(())
    }
}

impl ser::Serializer for Key<'_, '_> {
    fn serialize_str(self, v: &str) -> Result<(), Stop> {
        self.0.string(v)
    }
    fn serialize_char(self, v: char) -> Result<(), Stop> {
        self.0.string(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<(), Stop> {
        self.0.string(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), Stop> {
        value.serialize(self)
    }
    integers!(quoted);
    other_than_text!();
}

/// A raw value's text, written as it is.
pub(super) struct Raw<'l, 'a>(pub(super) &'l mut Line<'a>);

impl ser::Serializer for Raw<'_, '_> {
    fn serialize_str(self, v: &str) -> Result<(), Stop> {
        self.0.room_for(v.len())?;
        self.0.out.extend_from_slice(v.as_bytes());
        Ok(())
    }
    refuse! {
        serialize_char(char);
        serialize_i8(i8);
        serialize_i16(i16);
        serialize_i32(i32);
        serialize_i64(i64);
        serialize_u8(u8);
        serialize_u16(u16);
        serialize_u32(u32);
        serialize_u64(u64);
        serialize_unit_variant(&'static str, u32, &'static str);
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: &T,
    ) -> Result<(), Stop> {
        Err(Stop::Other)
    }
    other_than_text!();
}
