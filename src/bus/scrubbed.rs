//! The net under every source of an event's text: no event leaves the
//! bus with a registered secret in any of its strings.

use super::{Capped, EventKind};
use std::cell::RefCell;
use std::sync::Arc;

/// The longest event text looked through in the buffer each thread keeps;
/// a longer one is written into a buffer of its own exact size.
const KEPT_TEXT: usize = 64 * 1024;

thread_local! {
    /// The JSON text of the event being looked through, kept between
    /// events so that each costs one write and no allocation.
    static TEXT: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// `kind` without any registered secret in any of its strings, so that no
/// viewer, recording or screen can get one, whatever text the event was
/// built from (a scenario, a goal, a tool's answer). The provider scrubs
/// what it takes in already; this is the net under every other source.
/// With no secret registered (the sim) it costs one atomic load; with one
/// (a remote model, or a key in the environment of a run on the sim) a
/// streamed walk of the event's JSON text, which builds no tree (an event
/// may carry a 50 MB context), and the event rebuilt only when something
/// is to be masked.
pub(super) fn scrubbed(kind: EventKind) -> EventKind {
    if !crate::secrets::is_active() {
        return kind;
    }
    if !holds_secret(&kind) {
        return kind;
    }
    let Some(Ok(mut value)) = json_text(&kind).map(|text| serde_json::from_str(&text)) else {
        return kind;
    };
    if !crate::secrets::scrub_json(&mut value) {
        return kind;
    }
    // Every event reads back from its JSON, as a replay reads it: its only
    // float outside a JSON value is a validated (finite) confidence.
    serde_json::from_value(value).unwrap_or(kind)
}

/// Whether `kind`'s JSON may hold a registered secret. A run's start is
/// read without writing its scenario's shared facts out again: they are
/// the file's JSON text already, read where they are, and the rest of the
/// event is written without them (a 50 MB context would otherwise be
/// held twice while the run starts).
fn holds_secret(kind: &EventKind) -> bool {
    let EventKind::RunStarted(start) = kind else {
        return json_holds_secret(kind);
    };
    let Some(facts) = start.scenario.context_text() else {
        return json_holds_secret(kind);
    };
    if crate::secrets::json_holds_secret(facts) {
        return true;
    }
    let mut bare = start.clone();
    bare.scenario = Arc::new(start.scenario.without_context());
    json_holds_secret(&EventKind::RunStarted(bare))
}

/// Whether `kind`'s JSON text holds a registered secret. The text of an
/// event of up to [`KEPT_TEXT`] bytes (nearly every one) is written once,
/// into the buffer this thread keeps; a longer one is then written again
/// into a buffer of its exact size ([`json_text`]), so that it costs its
/// size once and is not kept. An event that cannot be written holds none.
fn json_holds_secret(kind: &EventKind) -> bool {
    let kept = TEXT.with(|text| {
        // Looking through an event publishes none, so the buffer is free;
        // should it not be, the event goes the long way.
        let mut text = text.try_borrow_mut().ok()?;
        text.clear();
        let mut capped = Capped::new(&mut text, KEPT_TEXT);
        let written = serde_json::to_writer(&mut capped, kind);
        let over = capped.over();
        match written {
            Ok(()) => Some(std::str::from_utf8(&text).is_ok_and(crate::secrets::json_holds_secret)),
            Err(_) if over => None,
            Err(_) => Some(false),
        }
    });
    kept.unwrap_or_else(|| {
        json_text(kind).is_some_and(|text| crate::secrets::json_holds_secret(&text))
    })
}

/// `value` as JSON text in a buffer of exactly its size: counted first,
/// then written, so that a 50 MB event costs 50 MB once, not a buffer
/// doubled on the way there.
fn json_text<T: serde::Serialize>(value: &T) -> Option<String> {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    serde_json::to_writer(&mut count, value).ok()?;
    let mut text = Vec::with_capacity(count.0);
    serde_json::to_writer(&mut text, value).ok()?;
    String::from_utf8(text).ok()
}
