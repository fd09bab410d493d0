//! A writer into a buffer that takes at most so many bytes: an event's
//! JSON written where it fits, and told apart from one that does not
//! without writing it whole (the recorder's batch, the scrubber's text).

use std::io::{self, Write};

/// Appends to `out` until `room` bytes are taken; a write past that fails
/// and marks the writer [`Capped::over`].
pub(crate) struct Capped<'a> {
    out: &'a mut Vec<u8>,
    room: usize,
    over: bool,
}

impl<'a> Capped<'a> {
    pub(crate) fn new(out: &'a mut Vec<u8>, room: usize) -> Self {
        Capped {
            out,
            room,
            over: false,
        }
    }

    /// Whether a write failed for want of room (not some other failure
    /// of what was written).
    pub(crate) fn over(&self) -> bool {
        self.over
    }
}

impl Write for Capped<'_> {
    #[inline]
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        if bytes.len() > self.room {
            self.over = true;
            return Err(io::Error::other("past the room given"));
        }
        self.room -= bytes.len();
        self.out.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    // serde_json writes each piece whole: one check, not `write`'s loop.
    #[inline]
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.write(bytes).map(|_| ())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_fits_is_written_and_what_does_not_is_told_apart() {
        let mut out = b"[".to_vec();
        let mut capped = Capped::new(&mut out, 8);
        assert!(serde_json::to_writer(&mut capped, &"short").is_ok());
        assert!(!capped.over());
        assert_eq!(out, b"[\"short\"");
        let mut capped = Capped::new(&mut out, 8);
        assert!(serde_json::to_writer(&mut capped, &"longer than eight").is_err());
        assert!(capped.over());
    }
}
