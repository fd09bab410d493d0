//! An event's line written into the writer's batch buffer, unless it is
//! long (a run's start carrying a 50 MB context): then it goes straight to
//! the file through a buffer of a fixed size. A buffer grown by doubling
//! to hold such a line would cost up to twice the line while it grows,
//! beside the scenario text it repeats, and keep that much for the rest of
//! the run.

use crate::bus::Event;
use std::io::{self, BufWriter, Write};

/// Past this many bytes a line is written straight to the file.
pub(super) const LONG_LINE: usize = 1 << 20;

/// Whether [`line_into`] took the line.
#[derive(Debug, PartialEq)]
pub(super) enum Taken {
    Joined,
    /// Longer than [`LONG_LINE`]: the batch is as it was, and
    /// [`write_long`] writes the line after it.
    Long,
}

/// Appends `event`'s line (with its newline) to `batch`, unless it is
/// longer than [`LONG_LINE`].
pub(super) fn line_into(batch: &mut Vec<u8>, event: &Event) -> io::Result<Taken> {
    let start = batch.len();
    let mut capped = Capped {
        out: &mut *batch,
        room: LONG_LINE,
        over: false,
    };
    match serde_json::to_writer(&mut capped, event) {
        Ok(()) => {
            batch.push(b'\n');
            Ok(Taken::Joined)
        }
        Err(_) if capped.over => {
            batch.truncate(start);
            Ok(Taken::Long)
        }
        Err(e) => {
            batch.truncate(start);
            Err(e.into())
        }
    }
}

/// `event`'s line written to `file` a piece at a time.
pub(super) fn write_long(file: impl Write, event: &Event) -> io::Result<()> {
    let mut out = BufWriter::with_capacity(LONG_LINE / 4, file);
    serde_json::to_writer(&mut out, event)?;
    out.write_all(b"\n")?;
    out.flush()
}

/// A writer into a buffer that refuses to take more than `room` bytes.
struct Capped<'a> {
    out: &'a mut Vec<u8>,
    room: usize,
    over: bool,
}

impl Write for Capped<'_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        if bytes.len() > self.room {
            self.over = true;
            return Err(io::Error::other("a long line"));
        }
        self.room -= bytes.len();
        self.out.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bus::EventKind;

    fn event_saying(text: String) -> Event {
        Event {
            run: 1,
            seq: 1,
            t_ms: 0,
            kind: EventKind::CallDelta {
                call: 1,
                text,
                reasoning: false,
                arguments: false,
            },
        }
    }

    #[test]
    fn a_short_line_joins_the_batch_and_a_long_one_is_written_apart_whole() {
        let mut batch = b"{\"before\":1}\n".to_vec();
        let short = event_saying("short".into());
        assert_eq!(line_into(&mut batch, &short).unwrap(), Taken::Joined);
        let expected = format!(
            "{{\"before\":1}}\n{}\n",
            serde_json::to_string(&short).unwrap()
        );
        assert_eq!(String::from_utf8(batch.clone()).unwrap(), expected);

        let long = event_saying("x".repeat(LONG_LINE + 10));
        assert_eq!(line_into(&mut batch, &long).unwrap(), Taken::Long);
        assert_eq!(
            String::from_utf8(batch).unwrap(),
            expected,
            "the batch is as it was"
        );
        let mut file = Vec::new();
        write_long(&mut file, &long).unwrap();
        assert_eq!(
            file,
            format!("{}\n", serde_json::to_string(&long).unwrap()).into_bytes()
        );
    }
}
