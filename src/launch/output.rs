//! A launched program's stdout and stderr, read line by line as fast as
//! it writes them and kept bounded: the last [`KEPT_LINES`] lines, each
//! cut at [`MAX_LINE_CHARS`] characters, and a count of the rest. The
//! reader never waits on anyone, so a program printing without end never
//! stalls on a full pipe and Conclave's memory does not grow with it.

pub(crate) use crate::watch::output_line::{KEPT_LINES, OutputLine, Stream};
use serde::Serialize;
use std::collections::VecDeque;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::sync::mpsc;

/// The most characters kept of one line; a longer one is cut and marked.
pub(crate) const MAX_LINE_CHARS: usize = 2000;
/// The bytes of one line held while its end is awaited: past this, the
/// rest of the line is skipped.
const MAX_LINE_BYTES: usize = 4 * MAX_LINE_CHARS;

/// The run's output as kept: the last lines and how many came before.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct OutputTail {
    /// Lines that came and are no longer kept.
    pub lines_not_kept: u64,
    pub lines: VecDeque<OutputLine>,
}

impl OutputTail {
    /// Keep `line`, letting the oldest go past the bound.
    pub(crate) fn push(&mut self, line: OutputLine) {
        if self.lines.len() == KEPT_LINES {
            self.lines.pop_front();
            self.lines_not_kept += 1;
        }
        self.lines.push_back(line);
    }

    /// The last `n` lines of `stream`, oldest first.
    pub(crate) fn last_of(&self, stream: Stream, n: usize) -> Vec<&str> {
        let mut last: Vec<&str> = self
            .lines
            .iter()
            .rev()
            .filter(|l| l.stream == stream)
            .take(n)
            .map(|l| l.text.as_str())
            .collect();
        last.reverse();
        last
    }
}

/// One stream's lines as read, handed to the run as `(stream, text)`.
/// While the run's channel is full the reader never waits: it keeps the
/// newest lines (at most [`KEPT_LINES`]) and counts the older ones it
/// lets go, so the lines that reach the run are always the latest. The
/// count of lines let go is returned at the stream's end.
pub(crate) async fn read_lines(
    mut from: impl AsyncRead + Unpin,
    stream: Stream,
    to: mpsc::Sender<(Stream, String)>,
) -> u64 {
    let mut chunk = vec![0u8; 64 * 1024];
    let mut line: Vec<u8> = Vec::new();
    let mut skipping = false;
    let mut held = Held::default();
    loop {
        let n = match from.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let mut rest = &chunk[..n];
        while let Some(end) = rest.iter().position(|b| *b == b'\n') {
            if !skipping {
                line.extend_from_slice(&rest[..end]);
                held.send(&to, (stream, text_of(&line)));
            }
            line.clear();
            skipping = false;
            rest = &rest[end + 1..];
        }
        if !skipping {
            let room = MAX_LINE_BYTES.saturating_sub(line.len());
            line.extend_from_slice(&rest[..rest.len().min(room)]);
            if rest.len() > room {
                // The line is longer than is ever kept: its start goes
                // now, the rest of it is skipped up to its end.
                held.send(&to, (stream, text_of(&line)));
                line.clear();
                skipping = true;
            }
        }
    }
    if !line.is_empty() {
        held.send(&to, (stream, text_of(&line)));
    }
    // The stream ended: what is held may wait for room now.
    for item in held.lines.drain(..) {
        if to.send(item).await.is_err() {
            break;
        }
    }
    held.let_go
}

/// Lines waiting for room in the run's channel, newest kept.
#[derive(Default)]
struct Held {
    lines: VecDeque<(Stream, String)>,
    let_go: u64,
}

impl Held {
    fn send(&mut self, to: &mpsc::Sender<(Stream, String)>, item: (Stream, String)) {
        while let Some(first) = self.lines.pop_front() {
            if let Err(e) = to.try_send(first) {
                self.lines.push_front(e.into_inner());
                break;
            }
        }
        if !self.lines.is_empty() {
            self.hold(item);
        } else if let Err(e) = to.try_send(item) {
            self.hold(e.into_inner());
        }
    }

    fn hold(&mut self, item: (Stream, String)) {
        if self.lines.len() == KEPT_LINES {
            self.lines.pop_front();
            self.let_go += 1;
        }
        self.lines.push_back(item);
    }
}

/// A line's bytes as text: invalid UTF-8 replaced, a trailing `\r`
/// dropped, cut at [`MAX_LINE_CHARS`] characters (marked with `…`).
fn text_of(bytes: &[u8]) -> String {
    let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
    let text = String::from_utf8_lossy(bytes);
    match text.char_indices().nth(MAX_LINE_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn lines_of(input: Vec<u8>) -> (Vec<String>, u64) {
        let (tx, mut rx) = mpsc::channel(1024);
        let dropped = read_lines(&input[..], Stream::Stdout, tx).await;
        let mut out = Vec::new();
        while let Ok((_, text)) = rx.try_recv() {
            out.push(text);
        }
        (out, dropped)
    }

    #[tokio::test]
    async fn lines_are_read_whole_cut_when_long_and_the_last_kept_without_an_end() {
        let mut input = b"one\r\ntwo\n".to_vec();
        input.extend(std::iter::repeat_n(b'x', 100_000));
        input.extend(b"\nlast");
        let (lines, dropped) = lines_of(input).await;
        assert_eq!(dropped, 0);
        assert_eq!(lines.len(), 4, "{:?}", &lines[..2]);
        assert_eq!(&lines[..2], ["one", "two"]);
        assert_eq!(lines[2].chars().count(), MAX_LINE_CHARS + 1);
        assert!(lines[2].ends_with('…'));
        assert_eq!(lines[3], "last");
    }

    #[tokio::test]
    async fn a_full_channel_lets_the_oldest_lines_go_and_counts_them_rather_than_wait() {
        let (tx, mut rx) = mpsc::channel(2);
        let input: String = (0..(KEPT_LINES + 10)).map(|n| format!("{n}\n")).collect();
        let reader =
            tokio::spawn(async move { read_lines(input.as_bytes(), Stream::Stderr, tx).await });
        let mut got = Vec::new();
        while let Some((_, text)) = rx.recv().await {
            got.push(text);
        }
        let let_go = reader.await.unwrap();
        assert_eq!(
            got.len() as u64 + let_go,
            KEPT_LINES as u64 + 10,
            "every line counted"
        );
        assert_eq!(
            got.last().map(String::as_str),
            Some(&*(KEPT_LINES + 9).to_string()),
            "the newest line reaches the run"
        );
        assert!(let_go > 0, "the reader did not wait for room");
    }

    #[test]
    fn the_tail_keeps_the_last_lines_and_counts_the_rest() {
        let mut tail = OutputTail::default();
        for n in 0..(KEPT_LINES as u64 + 5) {
            let stream = if n % 2 == 0 {
                Stream::Stdout
            } else {
                Stream::Stderr
            };
            tail.push(OutputLine {
                at_ms: n,
                stream,
                text: n.to_string(),
            });
        }
        assert_eq!(tail.lines_not_kept, 5);
        assert_eq!(tail.lines.len(), KEPT_LINES);
        assert_eq!(tail.lines[0].text, "5");
        let last = KEPT_LINES as u64 + 4;
        assert_eq!(tail.last_of(Stream::Stdout, 1), [last.to_string()]);
        assert_eq!(
            tail.last_of(Stream::Stderr, 2),
            [(last - 3).to_string(), (last - 1).to_string()]
        );
    }
}
