//! JSONL recordings: one event per line, every seq of a run in order.
//! Each event is written as its line where it is published and handed to
//! a writer on its own thread (`writer`), so recording is lossless and
//! never makes the engine wait; the writer writes whole lines, all that
//! are waiting at once, so a killed process leaves a file that is valid
//! up to its last line. A line over a megabyte (a run's start with a 50 MB
//! context) is written in pieces rather than held whole a second time; a
//! kill in the middle of it leaves it cut, and a reader skips a cut line
//! and says so. A write that fails (a full disk) ends the file there: the
//! writer keeps taking what is handed to it and says so at the end.

mod events;
mod file_kind;
mod json_line;
mod line;
mod long_line;
mod one_run;
mod problem;
mod reader;
mod sequence;
mod start;
mod writer;

pub use events::{Changed, Events};
pub use problem::{RecordingError, RecordingProblem};
pub use reader::{MAX_LINE, Recording, parse_recording};
pub use reader::{read_recording, read_recording_each};
pub(crate) use start::{first_start, run_start};
pub use writer::RecordSink;

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread::JoinHandle;

/// [`read_recording`], telling `progress` the byte each event's line ends
/// at as it is read, so a reader on another thread can say how far it is.
pub fn read_recording_reporting(
    path: &Path,
    mut progress: impl FnMut(u64),
) -> Result<Recording, RecordingError> {
    let mut events = Vec::new();
    let problems = reader::each_placed(path, |placed| {
        progress(placed.span.0 + u64::from(placed.span.1));
        events.push(placed.event);
    })?;
    Ok(Recording { events, problems })
}

/// Why a recording cannot be written where it was asked for.
#[derive(Debug, thiserror::Error)]
#[error("cannot record to {}: {reason}", path.display())]
pub struct RecordPathError {
    pub(crate) path: PathBuf,
    pub(crate) reason: String,
}

/// How a recording's file is made. A recording is never written over: a
/// file the user named that is there already is refused, and a name
/// Conclave picked that is taken gets a number.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RecordMode {
    /// The file named, new: a file there already is refused.
    #[default]
    New,
    /// A new file named like the one given, with `-2`, `-3`, … before its
    /// extension while the name is taken (two dashboards launching the
    /// same scenario in the same second).
    Numbered,
}

/// How many taken names a numbered recording tries before giving up.
const MOST_NUMBERS: u32 = 1000;

/// Create the file a recording goes to, never over an existing one; where
/// it was made. Its folder must exist: a mistyped folder is an error, not a
/// new tree of folders.
fn create_file(path: &Path, mode: RecordMode) -> Result<(File, PathBuf), RecordPathError> {
    let refused = |reason: String| RecordPathError {
        path: path.to_path_buf(),
        reason,
    };
    if path.is_dir() {
        return Err(refused("it is a folder".into()));
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        if !dir.exists() {
            return Err(refused(format!(
                "the folder {} does not exist",
                dir.display()
            )));
        }
        if !dir.is_dir() {
            return Err(refused(format!("{} is not a folder", dir.display())));
        }
    }
    let mut number = 1;
    loop {
        let candidate = numbered(path, number);
        let e = match File::create_new(&candidate) {
            Ok(file) => return Ok((file, candidate)),
            Err(e) => e,
        };
        let taken = e.kind() == io::ErrorKind::AlreadyExists;
        if taken && mode == RecordMode::Numbered && number < MOST_NUMBERS {
            number += 1;
            continue;
        }
        if taken && !is_regular(&candidate) {
            // A device or a pipe (`--record /dev/stdout`) holds no
            // recording to lose: written to as before.
            let file = std::fs::OpenOptions::new().write(true).open(&candidate);
            let file = file.map_err(|e| refused(create_failed(&e, mode)))?;
            return Ok((file, candidate));
        }
        return Err(refused(create_failed(&e, mode)));
    }
}

/// Whether `path` is a regular file (through a link).
fn is_regular(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file())
}

/// Why a recording's file could not be created, in words.
fn create_failed(e: &io::Error, mode: RecordMode) -> String {
    match e.kind() {
        io::ErrorKind::AlreadyExists if mode == RecordMode::New => {
            "a file is there already, and a recording is never written over (remove it first, or record to another name)".into()
        }
        io::ErrorKind::AlreadyExists => {
            format!("the name and {MOST_NUMBERS} numbered names after it are taken")
        }
        io::ErrorKind::PermissionDenied => "permission denied".into(),
        io::ErrorKind::ReadOnlyFilesystem => "the file system is read-only".into(),
        _ => e.to_string(),
    }
}

/// `path` with `-number` before its extension, from 2; `path` itself for 1.
fn numbered(path: &Path, number: u32) -> PathBuf {
    if number == 1 {
        return path.to_path_buf();
    }
    let stem = path.file_stem().unwrap_or_default().to_string_lossy();
    let name = match path.extension() {
        Some(ext) => format!("{stem}-{number}.{}", ext.to_string_lossy()),
        None => format!("{stem}-{number}"),
    };
    path.with_file_name(name)
}

/// The writer thread of one recording.
#[derive(Debug)]
pub struct Recorder {
    path: PathBuf,
    thread: JoinHandle<io::Result<u64>>,
}

impl Recorder {
    /// Create a new file at `path`, in a folder that exists, and start the
    /// writer; a file there already is refused.
    pub fn create(path: &Path) -> Result<(RecordSink, Recorder), RecordPathError> {
        Recorder::create_as(path, RecordMode::New)
    }

    /// [`Recorder::create`], the file made as `mode` says.
    pub(crate) fn create_as(
        path: &Path,
        mode: RecordMode,
    ) -> Result<(RecordSink, Recorder), RecordPathError> {
        let (file, path) = create_file(path, mode)?;
        let shared = writer::Shared::new();
        let handed = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("conclave-recorder".into())
            .spawn(move || {
                lower_priority();
                writer::write_lines(file, &handed)
            })
            .map_err(|e| RecordPathError {
                path: path.clone(),
                reason: format!("cannot start the recorder: {e}"),
            })?;
        shared.set_writer(thread.thread().clone());
        Ok((RecordSink::new(shared), Recorder { path, thread }))
    }

    /// The file the recording goes to.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Wait until every recorded event is on disk, once every sink is
    /// dropped; returns how many events the file holds, or the first write
    /// that failed.
    pub fn finish(self) -> io::Result<u64> {
        self.thread
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the recorder thread panicked")))
    }
}

/// The writer yields the CPU to the engine and the dashboard when they
/// compete for it: it catches up on its unbounded channel afterwards.
fn lower_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: setpriority on the calling thread's own id changes only that
    // thread's nice value; gettid cannot fail.
    unsafe {
        let tid = libc::gettid();
        libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, 10);
    }
}

#[cfg(test)]
mod tests;
