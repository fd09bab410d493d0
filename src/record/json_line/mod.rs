//! An event's JSON text written straight into a buffer, the same bytes
//! `serde_json::to_writer` writes, in about half its time. The engine
//! writes every event of a recorded run as its line where it is published
//! (see `writer`), so that time is the recording's cost to the run:
//! serde_json's writer goes through `io::Write` a few bytes at a time,
//! with a call and a copy for each brace, comma and quote, which was a
//! fifth of a 100,000-task run's time (`cargo bench --bench scale`,
//! docs/development.md).
//!
//! Only what events hold is written here: strings, integers, booleans,
//! null, lists, objects with string or integer keys, enums, and a raw
//! value (a run's result). Anything else (a float, bytes, another kind of
//! key) stops it with [`Stop::Other`], and the caller writes the event
//! with serde_json instead, so the text is serde_json's either way.

/// A serializer's methods for every integer type: each written by
/// `self.$how(v)`.
macro_rules! integers {
    ($how:ident) => {
        integers!(@ $how, serialize_i8 i8, serialize_i16 i16, serialize_i32 i32,
            serialize_i64 i64, serialize_u8 u8, serialize_u16 u16, serialize_u32 u32,
            serialize_u64 u64);
    };
    (@ $how:ident, $($name:ident $ty:ty),*) => {
        $(fn $name(self, v: $ty) -> Result<(), Stop> {
            self.$how(v)
        })*
    };
}

mod items;
#[cfg(test)]
mod tests;
mod text;

use crate::bus::Event;
use items::{Fields, Items};
use serde::ser::{self, Serialize};
use std::fmt::Display;

/// Why an event was not written.
#[derive(Debug, PartialEq)]
pub(super) enum Stop {
    /// It is longer than the room given.
    Long,
    /// It holds something only serde_json writes.
    Other,
}

impl Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Stop::Long => "longer than the room given",
            Stop::Other => "written by serde_json",
        })
    }
}

impl std::error::Error for Stop {}

impl ser::Error for Stop {
    fn custom<T: Display>(_: T) -> Self {
        Stop::Other
    }
}

/// For the tests, any value: append `value`'s compact JSON text to `out`, unless it takes more than
/// `room` bytes or holds what [`Stop::Other`] says; then `out` holds a
/// part of it, which the caller cuts off.
#[cfg(test)]
pub(super) fn write<T: Serialize + ?Sized>(
    out: &mut Vec<u8>,
    value: &T,
    room: usize,
) -> Result<(), Stop> {
    let limit = out.len().saturating_add(room);
    value.serialize(&mut Line {
        out,
        limit,
        within: false,
    })
}

/// [`write`] for an event: its head (run, seq, time) written here, and
/// its kind's fields after it in the same object, as `#[serde(flatten)]`
/// puts them, without serde's machinery for flattening (a fifth of the
/// time an event took).
pub(super) fn write_event(out: &mut Vec<u8>, event: &Event, room: usize) -> Result<(), Stop> {
    let start = out.len();
    let mut line = Line {
        out,
        limit: start.saturating_add(room),
        within: false,
    };
    line.out.extend_from_slice(b"{\"run\":");
    line.integer(event.run)?;
    line.out.extend_from_slice(b",\"seq\":");
    line.integer(event.seq)?;
    line.out.extend_from_slice(b",\"t_ms\":");
    line.integer(event.t_ms)?;
    let head = line.out.len();
    line.within = true;
    event.kind.serialize(&mut line)?;
    // A kind that is not an object (which flattening refuses) wrote
    // something else where the comma goes, and one with no fields left
    // the comma before the brace: serde_json's to say.
    if line.out.get(head) != Some(&b',') || line.out.get(head + 1) == Some(&b'}') {
        return Err(Stop::Other);
    }
    line.room_for(0)
}

/// serde_json's name for a raw value's struct and its one field.
const RAW: &str = "$serde_json::private::RawValue";

struct Line<'a> {
    out: &'a mut Vec<u8>,
    /// The length `out` may not pass.
    limit: usize,
    /// The next object opened goes on from the one open ([`write_event`]).
    within: bool,
}

impl Line<'_> {
    #[inline]
    fn byte(&mut self, byte: u8) {
        self.out.push(byte);
    }

    #[inline]
    fn integer(&mut self, value: impl itoa::Integer) -> Result<(), Stop> {
        self.out
            .extend_from_slice(itoa::Buffer::new().format(value).as_bytes());
        Ok(())
    }

    /// Room for `len` more bytes, or [`Stop::Long`].
    #[inline]
    fn room_for(&self, len: usize) -> Result<(), Stop> {
        if self.out.len().saturating_add(len) > self.limit {
            return Err(Stop::Long);
        }
        Ok(())
    }

    /// `text` as a JSON string, escaped as serde_json escapes it.
    #[inline]
    fn string(&mut self, text: &str) -> Result<(), Stop> {
        self.room_for(text.len() + 2)?;
        let bytes = text.as_bytes();
        self.out.reserve(bytes.len() + 2);
        if bytes.len() <= SHORT && self.plain_short(bytes) {
            return Ok(());
        }
        self.byte(b'"');
        if !needs_escape(bytes) {
            self.out.extend_from_slice(bytes);
            self.byte(b'"');
            return Ok(());
        }
        let mut run = 0;
        for (at, &byte) in bytes.iter().enumerate() {
            let escape = ESCAPE[byte as usize];
            if escape == 0 {
                continue;
            }
            self.out.extend_from_slice(&bytes[run..at]);
            run = at + 1;
            if escape == b'u' {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                self.out.extend_from_slice(b"\\u00");
                self.byte(HEX[usize::from(byte >> 4)]);
                self.byte(HEX[usize::from(byte & 0xf)]);
            } else {
                self.out.extend_from_slice(&[b'\\', escape]);
            }
        }
        self.out.extend_from_slice(&bytes[run..]);
        self.byte(b'"');
        self.room_for(0)
    }
}

/// Strings up to this long are copied and looked at in one pass.
const SHORT: usize = 32;

impl Line<'_> {
    /// `bytes` written as a string in one pass that copies and looks at
    /// each byte, if none is escaped; whether it was. Most strings of an
    /// event are short (its keys, names, ids), and for them a copy by the
    /// library's `memcpy` was a call for a few bytes, a tenth of the
    /// event's time. Room for `bytes` and two quotes is reserved.
    #[inline]
    fn plain_short(&mut self, bytes: &[u8]) -> bool {
        let at = self.out.len();
        let mut escaped = false;
        let spare = self.out.spare_capacity_mut();
        spare[0].write(b'"');
        for (slot, &b) in spare[1..].iter_mut().zip(bytes) {
            escaped |= (b < 0x20) | (b == b'"') | (b == b'\\');
            slot.write(b);
        }
        if escaped {
            return false;
        }
        spare[1 + bytes.len()].write(b'"');
        // SAFETY: the quote, `bytes` and the quote were written just
        // above, into the spare capacity reserved for them.
        unsafe { self.out.set_len(at + bytes.len() + 2) };
        true
    }
}

/// Whether any byte of `bytes` is escaped in a JSON string, looked at
/// eight at a time: a byte below 0x20, a quote or a backslash sets the
/// high bit of its place (the bit tricks' "has less than" and "has zero",
/// exact as a yes or no), and a byte of UTF-8 past ASCII sets none.
#[inline]
fn needs_escape(bytes: &[u8]) -> bool {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    const HIGHS: u64 = ONES << 7;
    fn flagged(x: u64) -> bool {
        let below = x.wrapping_sub(ONES * 0x20) & !x;
        let zero = |y: u64| y.wrapping_sub(ONES) & !y;
        let quote = zero(x ^ (ONES * u64::from(b'"')));
        let backslash = zero(x ^ (ONES * u64::from(b'\\')));
        (below | quote | backslash) & HIGHS != 0
    }
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        if flagged(u64::from_le_bytes(chunk.try_into().expect("eight bytes"))) {
            return true;
        }
    }
    chunks
        .remainder()
        .iter()
        .any(|&b| b < 0x20 || b == b'"' || b == b'\\')
}

/// What each byte is escaped as in a JSON string: 0 not at all, `u` as
/// `\u00XX`, else `\` and the byte given (serde_json's table).
static ESCAPE: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut byte = 0;
    while byte < 0x20 {
        table[byte] = b'u';
        byte += 1;
    }
    table[0x08] = b'b';
    table[0x09] = b't';
    table[0x0a] = b'n';
    table[0x0c] = b'f';
    table[0x0d] = b'r';
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table
};

impl<'l, 'a> ser::Serializer for &'l mut Line<'a> {
    type Ok = ();
    type Error = Stop;
    type SerializeSeq = Items<'l, 'a>;
    type SerializeTuple = Items<'l, 'a>;
    type SerializeTupleStruct = Items<'l, 'a>;
    type SerializeTupleVariant = Items<'l, 'a>;
    type SerializeMap = Items<'l, 'a>;
    type SerializeStruct = Fields<'l, 'a>;
    type SerializeStructVariant = Items<'l, 'a>;

    fn serialize_bool(self, v: bool) -> Result<(), Stop> {
        self.out
            .extend_from_slice(if v { b"true" } else { b"false" });
        Ok(())
    }
    integers!(integer);
    fn serialize_f32(self, _: f32) -> Result<(), Stop> {
        Err(Stop::Other)
    }
    fn serialize_f64(self, _: f64) -> Result<(), Stop> {
        Err(Stop::Other)
    }
    fn serialize_char(self, v: char) -> Result<(), Stop> {
        self.string(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> Result<(), Stop> {
        self.string(v)
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<(), Stop> {
        Err(Stop::Other)
    }
    fn serialize_none(self) -> Result<(), Stop> {
        self.serialize_unit()
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Stop> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Stop> {
        self.out.extend_from_slice(b"null");
        Ok(())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Stop> {
        self.serialize_unit()
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<(), Stop> {
        self.string(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), Stop> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Stop> {
        self.byte(b'{');
        self.string(variant)?;
        self.byte(b':');
        value.serialize(&mut *self)?;
        self.byte(b'}');
        Ok(())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Items<'l, 'a>, Stop> {
        Ok(Items::open(self, b"[", b"]"))
    }
    fn serialize_tuple(self, _: usize) -> Result<Items<'l, 'a>, Stop> {
        Ok(Items::open(self, b"[", b"]"))
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Items<'l, 'a>, Stop> {
        Ok(Items::open(self, b"[", b"]"))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Items<'l, 'a>, Stop> {
        Items::variant(self, variant, b'[', b"]}")
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Items<'l, 'a>, Stop> {
        Ok(Items::open(self, b"{", b"}"))
    }
    fn serialize_struct(self, name: &'static str, _: usize) -> Result<Fields<'l, 'a>, Stop> {
        if name == RAW {
            return Ok(Fields::Raw(self));
        }
        Ok(Fields::Object(Items::open(self, b"{", b"}")))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Items<'l, 'a>, Stop> {
        Items::variant(self, variant, b'{', b"}}")
    }
}
