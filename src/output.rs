//! The one way out for text: every command prints its result on stdout and
//! its messages on stderr through here, and `main` settles the exit status
//! here last. A write never panics: a reader that went away (`… | head`)
//! ends the output quietly with status 141, any other failure (`> /dev/full`)
//! with one line on stderr and status 1. Nothing from a model or a scenario
//! reaches either stream raw: messages are cleaned, and the JSON document
//! escapes what it cannot show.

use crate::exit::Exit;
use crate::sanitize::{clean_lines, needs_cleaning};
use parking_lot::Mutex;
use serde::Serialize;
use std::borrow::Cow;
use std::fmt::Write as _;
use std::io::{self, Stderr, Stdout, Write};
use std::sync::LazyLock;

/// The process's console: stdout and stderr behind one lock, so a failure
/// on either is seen by every later write.
static CONSOLE: LazyLock<Mutex<Console<Stdout, Stderr>>> =
    LazyLock::new(|| Mutex::new(Console::new(io::stdout(), io::stderr())));

/// Print `value` as the command's JSON document on stdout.
pub fn document<T: Serialize + ?Sized>(value: &T) {
    CONSOLE.lock().document(value);
}

/// Print a JSON text (a run's result document, kept as text) as the
/// command's pretty JSON document on stdout, as [`document`] prints the
/// value it stands for, without building that value.
pub(crate) fn json_text(text: &str) {
    CONSOLE.lock().json_text(text);
}

/// Print a run's result document as the command's pretty JSON document on
/// stdout: one this process wrote is laid out by a walk over its bytes.
pub(crate) fn result(doc: &crate::bus::ResultDoc) {
    let mut console = CONSOLE.lock();
    if doc.written_here() {
        console.pretty(&pretty::pretty_of_compact(doc.text()));
    } else {
        console.json_text(doc.text());
    }
}

/// Print one line of plain output on stdout (`FILE: ok`).
pub fn line(text: &str) {
    CONSOLE.lock().line(text);
}

/// Print a message (an error, a problem, a step) on stderr.
pub fn message(text: &str) {
    CONSOLE.lock().message(text);
}

/// Flush both streams and turn `exit` into the process's exit status: 141
/// when a reader went away, 1 when a write failed, `exit` otherwise (and
/// always after a signal).
pub fn finish(exit: Exit) -> Exit {
    CONSOLE.lock().finish(exit)
}

/// Whether a write error means the reader went away rather than a failure.
/// Rust ignores SIGPIPE, so a closed pipe shows up as this error.
fn is_closed_pipe(error: &io::Error) -> bool {
    error.kind() == io::ErrorKind::BrokenPipe
}

/// Every text that leaves the process through the console, on either
/// stream, passes the secret scrubber once, after cleaning and escaping.
fn scrub(text: &str) -> Cow<'_, str> {
    crate::secrets::scrub(text)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stream {
    Stdout,
    Stderr,
}

/// The first write that failed; everything after it is dropped (after a
/// closed pipe, as SIGPIPE would have ended the process at that write).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Failure {
    /// The reader went away (EPIPE).
    Closed,
    /// Anything else (a full disk, an I/O error, an unprintable document);
    /// said on stderr when stderr still works.
    Failed,
}

/// stdout and stderr and whether either has failed.
pub(crate) struct Console<O, E> {
    out: O,
    err: E,
    failure: Option<Failure>,
}

impl<O: Write, E: Write> Console<O, E> {
    pub(crate) fn new(out: O, err: E) -> Self {
        Console {
            out,
            err,
            failure: None,
        }
    }

    /// `value` as pretty JSON and a newline on stdout.
    pub(crate) fn document<T: Serialize + ?Sized>(&mut self, value: &T) {
        match serde_json::to_string_pretty(value) {
            Ok(text) => self.pretty(&text),
            Err(e) => self.fail(&format!("conclave: cannot print the result: {e}")),
        }
    }

    /// The JSON `text` as pretty JSON and a newline on stdout.
    pub(crate) fn json_text(&mut self, text: &str) {
        match pretty_json(text) {
            Ok(pretty) => self.pretty(&pretty),
            Err(e) => self.fail(&format!("conclave: cannot print the result: {e}")),
        }
    }

    /// Pretty JSON `text`, its control characters escaped, and a newline.
    fn pretty(&mut self, text: &str) {
        // A large result is not copied when it has nothing to escape.
        if let Cow::Owned(escaped) = escape_controls(text) {
            self.write(Stream::Stdout, &escaped);
        } else {
            self.write(Stream::Stdout, text);
        }
        self.write(Stream::Stdout, "\n");
    }

    /// `text`, cleaned, and a newline on stdout.
    pub(crate) fn line(&mut self, text: &str) {
        self.write(Stream::Stdout, &terminated(text));
    }

    /// `text`, cleaned, and a newline on stderr.
    pub(crate) fn message(&mut self, text: &str) {
        self.write(Stream::Stderr, &terminated(text));
    }

    /// Flush both streams; the exit status after what happened to them.
    pub(crate) fn finish(&mut self, exit: Exit) -> Exit {
        if self.failure.is_none()
            && let Err(e) = self.out.flush()
        {
            self.failed(Stream::Stdout, &e);
        }
        if self.failure.is_none()
            && let Err(e) = self.err.flush()
        {
            self.failed(Stream::Stderr, &e);
        }
        match (exit, self.failure) {
            // A signal ended the dashboard, often with its terminal gone (a
            // hangup): what could not be written after that is no news.
            (Exit::Signalled(_), _) | (_, None) => exit,
            (_, Some(Failure::Closed)) => Exit::ClosedPipe,
            (_, Some(Failure::Failed)) => Exit::Internal,
        }
    }

    fn write(&mut self, stream: Stream, text: &str) {
        if self.failure.is_some() {
            return;
        }
        let text = scrub(text);
        let written = match stream {
            Stream::Stdout => write_flushed(&mut self.out, &text),
            Stream::Stderr => write_flushed(&mut self.err, &text),
        };
        if let Err(e) = written {
            self.failed(stream, &e);
        }
    }

    /// Remember the failure and say what failed, once, where possible.
    fn failed(&mut self, stream: Stream, error: &io::Error) {
        if is_closed_pipe(error) {
            self.failure = Some(Failure::Closed);
            return;
        }
        self.failure = Some(Failure::Failed);
        if stream == Stream::Stdout {
            let _ = write_flushed(
                &mut self.err,
                &format!("conclave: cannot write to stdout: {error}\n"),
            );
        }
    }

    /// Say `text` on stderr and fail the command.
    fn fail(&mut self, text: &str) {
        self.message(text);
        self.failure.get_or_insert(Failure::Failed);
    }
}

/// `text`, one JSON value and nothing else, as pretty JSON: byte for byte
/// what serde_json's pretty printer writes for the value it stands for,
/// streamed from serde_json's reader into its writer without building the
/// value. serde_json reads 128 levels deep at most, so a hostile
/// recording's result is an error here, never a stack overflow.
fn pretty_json(text: &str) -> Result<String, serde_json::Error> {
    // Pretty JSON of a compact document is about 1.6 times its size.
    let mut pretty = Vec::with_capacity(text.len().saturating_mul(2));
    let mut from = serde_json::Deserializer::from_str(text);
    serde_transcode::transcode(&mut from, &mut serde_json::Serializer::pretty(&mut pretty))?;
    from.end()?;
    // serde_json writes UTF-8 only: this error never happens.
    String::from_utf8(pretty).map_err(serde::ser::Error::custom)
}

fn write_flushed(stream: &mut impl Write, text: &str) -> io::Result<()> {
    stream.write_all(text.as_bytes())?;
    stream.flush()
}

fn terminated(text: &str) -> String {
    let mut text = clean_lines(text).into_owned();
    text.push('\n');
    text
}

/// `json` with every character a terminal could act on written as a
/// `\uXXXX` escape: C1 controls, DEL and bidi controls, which serde_json
/// leaves raw (it escapes C0 itself). Outside strings serialised JSON holds
/// only ASCII punctuation, digits, letters, spaces and newlines, so every
/// such character is inside a string, where the escape stands for the same
/// character: the document's value is unchanged.
pub(crate) fn escape_controls(json: &str) -> Cow<'_, str> {
    let unsafe_char = |c: char| needs_cleaning(c) && c != '\n';
    // Printable ASCII and newlines are safe, and a result of many
    // megabytes is almost all that: look at characters only from the
    // first block with another byte on. Every byte before it is ASCII, so
    // the block begins a character. A block is looked at whole, without
    // stopping early, which the compiler does many bytes at a time.
    const BLOCK: usize = 64;
    let safe = |block: &[u8]| {
        block.iter().fold(true, |safe, &b| {
            safe & (matches!(b, b' '..=b'~') | (b == b'\n'))
        })
    };
    let Some(first) = json.as_bytes().chunks(BLOCK).position(|block| !safe(block)) else {
        return Cow::Borrowed(json);
    };
    let first = first * BLOCK;
    if !json[first..].chars().any(unsafe_char) {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if unsafe_char(c) {
            // Every such character is in the Basic Multilingual Plane: one
            // escape, never a surrogate pair.
            let _ = write!(out, "\\u{:04x}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

mod pretty;
#[cfg(test)]
mod tests;
