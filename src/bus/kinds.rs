//! Each event's kind by its serde name, as the log's filter and the
//! recordings write it.

use crate::bus::EventKind;

/// The kind of an event as its serde name, e.g. `contribution_accepted`.
pub(crate) fn kind_name(kind: &EventKind) -> &'static str {
    match kind {
        EventKind::Round(event) => event.into(),
        EventKind::Tasks(event) => event.into(),
        EventKind::Team(event) => event.into(),
        EventKind::Research(event) => event.into(),
        shared => shared.into(),
    }
}
