//! Server-sent events read from bytes as they arrive: lines ended by LF,
//! CRLF or CR (split anywhere between two reads), `data:` lines joined into
//! one event at a blank line, comments and other fields skipped. It holds
//! at most one event and one line, and refuses a stream past its caps (per
//! event and in total) the moment it passes them. It knows nothing of what
//! the events mean.

/// One event: its `event:` name (empty when it had none) and its data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SseEvent {
    pub(crate) name: String,
    pub(crate) data: String,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum SseError {
    #[error("the stream is larger than {limit} bytes")]
    TooLarge { limit: usize },
    #[error("an event of the stream is larger than {limit} bytes")]
    EventTooLarge { limit: usize },
    #[error("a line of the stream is not UTF-8")]
    NotUtf8,
}

#[derive(Debug)]
pub(crate) struct SseReader {
    /// The line read so far, without its end.
    line: Vec<u8>,
    /// The event's data lines so far, joined by newlines.
    data: String,
    has_data: bool,
    name: String,
    /// The last byte read was a CR: a LF right after it ends no new line.
    after_cr: bool,
    /// No byte read yet: a byte-order mark may open the stream.
    at_start: bool,
    read: usize,
    total_limit: usize,
    event_limit: usize,
}

impl SseReader {
    /// A reader that refuses more than `total_limit` bytes in all, or an
    /// event (its lines and their ends) of more than `event_limit`.
    pub(crate) fn new(total_limit: usize, event_limit: usize) -> Self {
        SseReader {
            line: Vec::new(),
            data: String::new(),
            has_data: false,
            name: String::new(),
            after_cr: false,
            at_start: true,
            read: 0,
            total_limit,
            event_limit,
        }
    }

    /// Read `bytes`; the events they complete, in order.
    pub(crate) fn feed(&mut self, mut bytes: &[u8]) -> Result<Vec<SseEvent>, SseError> {
        if bytes.len() > self.total_limit - self.read {
            return Err(SseError::TooLarge {
                limit: self.total_limit,
            });
        }
        self.read += bytes.len();
        if self.at_start && !bytes.is_empty() {
            self.at_start = false;
            bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
        }
        let mut events = Vec::new();
        for &byte in bytes {
            match byte {
                b'\n' if self.after_cr => self.after_cr = false,
                b'\n' | b'\r' => {
                    self.after_cr = byte == b'\r';
                    if let Some(event) = self.end_line()? {
                        events.push(event);
                    }
                }
                _ => {
                    self.after_cr = false;
                    if self.line.len() + self.data.len() >= self.event_limit {
                        return Err(SseError::EventTooLarge {
                            limit: self.event_limit,
                        });
                    }
                    self.line.push(byte);
                }
            }
        }
        Ok(events)
    }

    /// The stream ended: the event its last lines hold, if any (a server
    /// that closes without the final blank line still meant it).
    pub(crate) fn finish(&mut self) -> Result<Option<SseEvent>, SseError> {
        if !self.line.is_empty() {
            self.take_line()?;
        }
        Ok(self.dispatch())
    }

    fn end_line(&mut self) -> Result<Option<SseEvent>, SseError> {
        if self.line.is_empty() {
            return Ok(self.dispatch());
        }
        self.take_line()?;
        Ok(None)
    }

    /// Read the line held as a field.
    fn take_line(&mut self) -> Result<(), SseError> {
        let line = std::mem::take(&mut self.line);
        let line = std::str::from_utf8(&line).map_err(|_| SseError::NotUtf8)?;
        if line.starts_with(':') {
            return Ok(());
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match field {
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            "event" => self.name = value.to_string(),
            _ => {}
        }
        Ok(())
    }

    fn dispatch(&mut self) -> Option<SseEvent> {
        let name = std::mem::take(&mut self.name);
        if !std::mem::take(&mut self.has_data) {
            return None;
        }
        Some(SseEvent {
            name,
            data: std::mem::take(&mut self.data),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(events: &[SseEvent]) -> Vec<&str> {
        events.iter().map(|e| e.data.as_str()).collect()
    }

    #[test]
    fn events_end_at_blank_lines_whatever_the_line_ends_and_the_reads() {
        let stream = b"\xef\xbb\xbf: a comment\ndata: one\r\n\r\nevent: note\rdata:two\rdata:  three\r\rid: 4\n\ndata: [DONE]\n\n";
        let whole = SseReader::new(1 << 20, 1 << 20).feed(stream).unwrap();
        assert_eq!(data(&whole), ["one", "two\n three", "[DONE]"]);
        assert_eq!(whole[1].name, "note");
        assert_eq!(whole[0].name, "");
        // A byte at a time: CRLF split between reads is one line end.
        let mut reader = SseReader::new(1 << 20, 1 << 20);
        let mut bytewise = Vec::new();
        for byte in stream {
            bytewise.extend(reader.feed(&[*byte]).unwrap());
        }
        assert_eq!(bytewise, whole);
        assert_eq!(reader.finish().unwrap(), None);
    }

    #[test]
    fn a_multibyte_character_split_between_reads_is_whole() {
        let text = "data: {\"content\": \"Zürich €\"}\n\n".as_bytes();
        let mut reader = SseReader::new(1 << 20, 1 << 20);
        let (a, b) = text.split_at(text.iter().position(|b| *b >= 0x80).unwrap() + 1);
        assert_eq!(reader.feed(a).unwrap(), vec![]);
        assert_eq!(
            data(&reader.feed(b).unwrap()),
            ["{\"content\": \"Zürich €\"}"]
        );
        assert_eq!(
            SseReader::new(64, 64).feed(b"data: \xff\n\n"),
            Err(SseError::NotUtf8)
        );
    }

    #[test]
    fn the_last_event_counts_without_its_blank_line() {
        let mut reader = SseReader::new(1 << 20, 1 << 20);
        assert_eq!(reader.feed(b"data: [DONE]").unwrap(), vec![]);
        assert_eq!(reader.finish().unwrap().unwrap().data, "[DONE]");
    }

    #[test]
    fn the_caps_hold_in_total_and_per_event() {
        let mut reader = SseReader::new(100, 1000);
        reader.feed(&[b'x'; 60]).unwrap();
        assert_eq!(
            reader.feed(&[b'x'; 41]),
            Err(SseError::TooLarge { limit: 100 })
        );
        // One event whose lines pass the event cap, in small reads.
        let mut reader = SseReader::new(1 << 20, 32);
        let mut result = Ok(Vec::new());
        for _ in 0..10 {
            result = reader.feed(b"data: abcd\n");
            if result.is_err() {
                break;
            }
        }
        assert_eq!(result, Err(SseError::EventTooLarge { limit: 32 }));
        // Many small events stay under it.
        let mut reader = SseReader::new(1 << 20, 32);
        for _ in 0..1000 {
            assert_eq!(data(&reader.feed(b"data: abcd\n\n").unwrap()), ["abcd"]);
        }
    }
}
