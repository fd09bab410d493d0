//! An event's line written after the lines waiting for the writer,
//! unless it is long (a run's start carrying a 50 MB context): then it
//! goes straight to the file through a buffer of a fixed size. A buffer
//! grown by doubling to hold such a line would cost up to twice the line
//! while it grows, beside the scenario text it repeats, and keep that much
//! for the rest of the run.

use super::json_line::{self, Stop};
use crate::bus::{Capped, Event};
use serde::Serialize;
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
    match json_line::write_event(batch, event, LONG_LINE) {
        Ok(()) => {
            batch.push(b'\n');
            return Ok(Taken::Joined);
        }
        Err(Stop::Long) => {
            batch.truncate(start);
            return Ok(Taken::Long);
        }
        Err(Stop::Other) => batch.truncate(start),
    }
    // The writer by value, not `&mut`: serde_json's writes of a brace or
    // a comma then reach `Capped::write_all` inlined, not through a call.
    let mut line = serde_json::Serializer::new(Capped::new(batch, LONG_LINE));
    let written = event.serialize(&mut line);
    let over = line.into_inner().over();
    match written {
        Ok(()) => {
            batch.push(b'\n');
            Ok(Taken::Joined)
        }
        Err(_) if over => {
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
