//! A recording's lines read as bytes within the line cap: a line over the
//! cap is skipped without being held, and one long line does not keep its
//! memory for the rest.

use std::io::{self, BufRead, Read};

/// The line buffer's memory kept from one line to the next.
pub(super) const MAX_KEPT_BUFFER: usize = 4 << 20;

/// One line of the file, read into the caller's buffer.
pub(super) enum Line {
    /// The line is in the buffer; its length with its line break.
    Whole(u64),
    /// Longer than the cap: skipped, not held; its length.
    TooLong(u64),
    /// The end of the file.
    End,
    /// No line break within the bytes allowed before the first event.
    Endless,
}

impl Line {
    pub(super) fn bytes(&self) -> u64 {
        match self {
            Line::Whole(n) | Line::TooLong(n) => *n,
            Line::End | Line::Endless => 0,
        }
    }
}

/// The next line into `buf`; `left` is the bytes the reader holds after
/// what was read before, when known (else `u64::MAX`).
pub(super) fn next_line(
    reader: &mut impl BufRead,
    buf: &mut Vec<u8>,
    max_line: usize,
    junk_left: u64,
    left: u64,
) -> io::Result<Line> {
    buf.clear();
    // One long line does not keep its memory for the rest.
    buf.shrink_to(MAX_KEPT_BUFFER);
    let limit = max_line as u64 + 1;
    let first = limit.min(MAX_KEPT_BUFFER as u64);
    let mut read = reader.by_ref().take(first).read_until(b'\n', buf)? as u64;
    if read == 0 {
        return Ok(Line::End);
    }
    if read == first && read < limit && buf.last() != Some(&b'\n') {
        // A long line: room for the rest up to the cap (or to the end of
        // the file, when nearer) at once, rather than doubling (which would
        // hold twice the line at the copy).
        let room = (limit - read).min(left.saturating_sub(read));
        buf.reserve_exact(usize::try_from(room).unwrap_or(usize::MAX));
        read += reader.by_ref().take(limit - read).read_until(b'\n', buf)? as u64;
    }
    if buf.last() == Some(&b'\n') || buf.len() <= max_line {
        return Ok(Line::Whole(read));
    }
    // Over the cap: skip to the line's end without keeping it, within what
    // is allowed before the first event.
    buf.clear();
    let allowed = junk_left.saturating_sub(read);
    let skipped = reader.by_ref().take(allowed).skip_until(b'\n')? as u64;
    if skipped >= allowed {
        return Ok(Line::Endless);
    }
    Ok(Line::TooLong(read + skipped))
}

/// A line without its line break (`\n` or `\r\n`).
pub(super) fn trim_line_end(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}
