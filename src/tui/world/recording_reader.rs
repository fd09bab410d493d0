//! Recordings read for the app on the loop's blocking threads: a file
//! opened to replay, and the two sides of a comparison read whole and
//! compared. Each says how far it has come as it reads (every
//! [`REPORT_EVERY`] bytes or events), so the screen shows progress and
//! stays responsive while a 200 MB recording loads.

use crate::bus::{Event, EventKind};
use crate::compare::{self, Comparison, Side};
use crate::tui::effect::{CompareSide, SideEvents, Unit};
use crate::tui::recording::Opened;
use crate::tui::replay::Replay;
use crate::watch::record::is_watch_recording;
use std::path::Path;
use std::sync::Arc;

/// How much is read between two reports of progress: bytes of a file,
/// or (a sixteenth as many) events of a replay.
const REPORT_EVERY: u64 = 1 << 20;

/// Where a reading tells its progress: `(read, total, unit)`.
pub(crate) type Report<'a> = &'a mut dyn FnMut(u64, u64, Unit);

/// The size of the file at `path`, for progress; 0 when unknown.
fn size_of(path: &Path) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.len())
}

/// Tell `report` each time `read` passes another [`REPORT_EVERY`] bytes.
fn every_mb(total: u64, report: Report<'_>) -> impl FnMut(u64) + '_ {
    let mut told = 0;
    move |read: u64| {
        if read >= told + REPORT_EVERY {
            told = read;
            report(read.min(total), total, Unit::Bytes);
        }
    }
}

/// Open the recording at `path` to replay it; the error says why the file
/// cannot be replayed.
pub fn open(path: &Path) -> Result<Opened, String> {
    open_reporting(path, &mut |_, _, _| {})
}

/// [`open`], telling `report` how many bytes are read as it goes.
pub(crate) fn open_reporting(path: &Path, report: Report<'_>) -> Result<Opened, String> {
    let total = size_of(path);
    let opened = if is_watch_recording(path) {
        // A watched run's spans, told as a run's events (docs/watch.md).
        let events = crate::watch::translate::recorded::events_of(path)?;
        Replay::open(crate::record::Recording {
            events,
            problems: Vec::new(),
        })
    } else {
        Replay::open_file_reporting(path, every_mb(total, report)).map_err(|e| e.to_string())?
    };
    let Some((replay, state)) = opened else {
        return Err(format!("{}: no events", path.display()));
    };
    let first = replay.events().first();
    let Some(EventKind::RunStarted(started)) = first.map(|e| &e.kind) else {
        return Err(format!(
            "{}: the recording does not start with the run's start (seq {})",
            path.display(),
            first.map_or(0, |e| e.seq)
        ));
    };
    let scenario = Arc::clone(&started.scenario);
    Ok(Opened {
        path: path.to_path_buf(),
        replay,
        state,
        scenario,
    })
}

/// Every event of one side of a comparison, read where it is.
fn events_of(side: &CompareSide, report: Report<'_>) -> Result<Vec<Arc<Event>>, String> {
    match &side.events {
        SideEvents::Held(events) => Ok(events.clone()),
        SideEvents::File(path) if is_watch_recording(path) => {
            crate::watch::translate::recorded::events_of(path)
        }
        SideEvents::File(path) => {
            let total = size_of(path);
            crate::record::read_recording_reporting(path, every_mb(total, report))
                .map(|recording| recording.events)
                .map_err(|e| e.to_string())
        }
        SideEvents::Replay(seeker) => {
            let events = &seeker.events;
            let total = events.len() as u64;
            let mut read = Vec::with_capacity(events.len());
            let step = (REPORT_EVERY / 16) as usize;
            for from in (0..events.len()).step_by(step.max(1)) {
                read.extend(seeker.read_ahead(from, step).map_err(|e| e.to_string())?);
                report(read.len() as u64, total, Unit::Events);
            }
            Ok(read)
        }
    }
}

/// Run `a` compared with run `b`, both read where their events are, or
/// why they cannot be.
pub(crate) fn compare(
    a: &CompareSide,
    b: &CompareSide,
    report: Report<'_>,
) -> Result<Comparison, String> {
    let (events_a, events_b) = (events_of(a, report)?, events_of(b, report)?);
    let side_a = Side::new(&a.label, &events_a).map_err(|e| e.to_string())?;
    let side_b = Side::new(&b.label, &events_b).map_err(|e| e.to_string())?;
    Ok(compare::compare(
        side_a,
        side_b,
        crate::patterns::compare_rules,
    ))
}
