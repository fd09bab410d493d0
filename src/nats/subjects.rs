//! Where a run's events and controls travel on NATS, by name: the events
//! stream and its subjects, the message ids JetStream dedupes on, and the
//! control subject. Every name is built here and read back here only.

use crate::bus::RunId;
use std::fmt;

/// The stream every engine publishes its runs' events to.
pub(crate) const EVENTS_STREAM: &str = "CONCLAVE_EVENTS";
/// Every run's events: `conclave.events.<engine>.<run>`.
pub(crate) const EVENTS_ALL: &str = "conclave.events.>";
const EVENTS_PREFIX: &str = "conclave.events.";
const CONTROL_PREFIX: &str = "conclave.control.";

/// A run as other machines name it: the engine that runs it and its
/// number there. The recording's numeric `run` is the second half; the
/// pair is unique across engines because engine ids are.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RemoteRunId {
    pub engine: String,
    pub run: RunId,
}

impl RemoteRunId {
    pub(crate) fn new(engine: &str, run: RunId) -> RemoteRunId {
        RemoteRunId {
            engine: engine.to_string(),
            run,
        }
    }

    /// The subject the run's events are published on.
    pub(crate) fn events_subject(&self) -> String {
        format!("{EVENTS_PREFIX}{}.{}", self.engine, self.run)
    }

    /// The subject the run's engine answers control requests on.
    pub(crate) fn control_subject(&self) -> String {
        format!("{CONTROL_PREFIX}{}.{}", self.engine, self.run)
    }

    /// The message id of the run's event `seq`: JetStream drops a second
    /// message with the same id (a publish retried after a lost ack).
    pub(crate) fn message_id(&self, seq: u64) -> String {
        format!("{}/{}/{seq}", self.engine, self.run)
    }

    /// The run an events subject names; `None` for any other subject.
    pub(crate) fn of_events_subject(subject: &str) -> Option<RemoteRunId> {
        let rest = subject.strip_prefix(EVENTS_PREFIX)?;
        let (engine, run) = rest.split_once('.')?;
        if engine.is_empty() || run.contains('.') {
            return None;
        }
        Some(RemoteRunId {
            engine: engine.to_string(),
            run: run.parse().ok()?,
        })
    }
}

/// `engine/run`, as the dashboard and messages name a remote run.
impl fmt::Display for RemoteRunId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.engine, self.run)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_runs_names_follow_the_design_and_read_back() {
        let id = RemoteRunId::new("box-4242-a1b2", 3);
        assert_eq!(id.events_subject(), "conclave.events.box-4242-a1b2.3");
        assert_eq!(id.control_subject(), "conclave.control.box-4242-a1b2.3");
        assert_eq!(id.message_id(17), "box-4242-a1b2/3/17");
        assert_eq!(id.to_string(), "box-4242-a1b2/3");
        assert_eq!(
            RemoteRunId::of_events_subject(&id.events_subject()),
            Some(id)
        );
    }

    #[test]
    fn other_subjects_name_no_run() {
        for subject in [
            "conclave.jobs.s1",
            "conclave.events.box",
            "conclave.events..3",
            "conclave.events.box.x",
            "conclave.events.box.3.4",
        ] {
            assert_eq!(RemoteRunId::of_events_subject(subject), None, "{subject}");
        }
    }
}
