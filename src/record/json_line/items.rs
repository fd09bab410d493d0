//! Lists, objects, enums' variants and structs being written.

use super::text::{Key, Raw};
use super::{Line, RAW, Stop};
use serde::ser::{self, Serialize};

/// A list or an object being written: whether an item was written yet.
pub(super) struct Items<'l, 'a> {
    line: &'l mut Line<'a>,
    first: bool,
    /// What closes it: `]`, `}`, or `]}` / `}}` for an enum's variant.
    close: &'static [u8],
}

impl<'l, 'a> Items<'l, 'a> {
    pub(super) fn open(line: &'l mut Line<'a>, open: &[u8], close: &'static [u8]) -> Self {
        let continued = std::mem::take(&mut line.within) && open == b"{";
        line.out
            .extend_from_slice(if continued { b"," } else { open });
        Items {
            line,
            first: true,
            close,
        }
    }

    /// A variant's items: `{"variant":` and `open`.
    pub(super) fn variant(
        line: &'l mut Line<'a>,
        variant: &str,
        open: u8,
        close: &'static [u8],
    ) -> Result<Self, Stop> {
        line.byte(b'{');
        line.string(variant)?;
        line.byte(b':');
        Ok(Items::open(line, &[open], close))
    }

    /// Before each item: past the room, the line stops here, so that a
    /// long list of numbers (a context of 50 MB of them) is not written
    /// whole first; an item overshoots it by one number at most.
    #[inline]
    fn next(&mut self) -> Result<(), Stop> {
        self.line.room_for(0)?;
        if !self.first {
            self.line.byte(b',');
        }
        self.first = false;
        Ok(())
    }

    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Stop> {
        self.next()?;
        value.serialize(&mut *self.line)
    }

    fn field<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result<(), Stop> {
        self.next()?;
        self.line.string(key)?;
        self.line.byte(b':');
        value.serialize(&mut *self.line)
    }

    fn close(self) -> Result<(), Stop> {
        self.line.out.extend_from_slice(self.close);
        Ok(())
    }
}

/// The traits of a list's items, each item written by `element`.
macro_rules! elements {
    ($($trait:ident $method:ident),*) => {
        $(impl ser::$trait for Items<'_, '_> {
            type Ok = ();
            type Error = Stop;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Stop> {
                self.element(value)
            }
            fn end(self) -> Result<(), Stop> {
                self.close()
            }
        })*
    };
}

elements!(
    SerializeSeq serialize_element,
    SerializeTuple serialize_element,
    SerializeTupleStruct serialize_field,
    SerializeTupleVariant serialize_field
);

impl ser::SerializeMap for Items<'_, '_> {
    type Ok = ();
    type Error = Stop;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Stop> {
        self.next()?;
        key.serialize(Key(&mut *self.line))
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Stop> {
        self.line.byte(b':');
        value.serialize(&mut *self.line)
    }
    fn end(self) -> Result<(), Stop> {
        self.close()
    }
}

impl ser::SerializeStructVariant for Items<'_, '_> {
    type Ok = ();
    type Error = Stop;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Stop> {
        self.field(key, value)
    }
    fn end(self) -> Result<(), Stop> {
        self.close()
    }
}

/// A struct's fields, or a raw value's text.
pub(super) enum Fields<'l, 'a> {
    Object(Items<'l, 'a>),
    Raw(&'l mut Line<'a>),
}

impl ser::SerializeStruct for Fields<'_, '_> {
    type Ok = ();
    type Error = Stop;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Stop> {
        match self {
            Fields::Object(items) => items.field(key, value),
            Fields::Raw(line) if key == RAW => value.serialize(Raw(line)),
            Fields::Raw(_) => Err(Stop::Other),
        }
    }
    fn end(self) -> Result<(), Stop> {
        match self {
            Fields::Object(items) => items.close(),
            Fields::Raw(_) => Ok(()),
        }
    }
}
