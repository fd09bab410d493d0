//! Each event's kind by its serde name, as the log's filter and the
//! recordings write it.

use crate::bus::EventKind;
use crate::bus::pattern::PatternPayload;

/// The kind of an event as its serde name, e.g. `call_finished`.
pub(crate) fn kind_name<P: PatternPayload>(kind: &EventKind<P>) -> &'static str {
    match kind {
        EventKind::Pattern(event) => event.kind_name(),
        shared => shared.into(),
    }
}
