//! A run's start read from a recording another one links to (a fork's
//! parent), within a bound: a device or a pipe is not read at all, and a
//! file is read no further than its first lines, however large it is.

use super::line::decode;
use crate::bus::{EventKind, RunId, RunStarted};
use crate::sanitize::clean;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// The lines a start is looked for in: a run's start is its first event.
const START_LINES: usize = 1000;
/// The bytes a start is looked for in: its line holds the whole scenario,
/// so as far as the longest line a recording may have.
const START_BYTES: u64 = super::MAX_LINE as u64;
/// The bytes of lines that hold no event passed over before the start: a
/// damaged line is short, and a file of nothing (a sparse file) is no
/// recording.
const JUNK_BYTES: u64 = 1 << 20;

/// The start of run `run` in the recording at `path`; why it cannot be
/// had, naming the file.
pub(crate) fn run_start(path: &Path, run: RunId) -> Result<RunStarted, String> {
    start_of(path, Some(run))
}

/// The first run's start in the recording at `path`, whichever run it is.
pub(crate) fn first_start(path: &Path) -> Result<RunStarted, String> {
    start_of(path, None)
}

fn start_of(path: &Path, wanted: Option<RunId>) -> Result<RunStarted, String> {
    let run = wanted.map_or_else(|| "a".to_string(), |run| run.to_string());
    let shown = clean(&path.display().to_string()).into_owned();
    let unreadable = |e: std::io::Error| format!("{shown}: cannot read the recording: {e}");
    // Looked at before it is opened: opening a FIFO blocks.
    let kind = std::fs::metadata(path).map_err(unreadable)?.file_type();
    if let Some(kind) = super::file_kind::not_a_file(&kind) {
        return Err(format!("{shown}: expected a recording file, found {kind}"));
    }
    let file = std::fs::File::open(path).map_err(unreadable)?;
    let mut reader = BufReader::new(file.take(START_BYTES));
    let not_within = |bytes: u64| {
        format!(
            "{shown}: run {run}'s start is not in its first {} MiB",
            bytes >> 20
        )
    };
    let (mut line, mut junk) = (Vec::new(), 0);
    for _ in 0..START_LINES {
        let Some(&opens) = reader.fill_buf().map_err(unreadable)?.first() else {
            if reader.get_ref().limit() == 0 {
                return Err(not_within(START_BYTES));
            }
            return Err(format!("{shown}: holds no start of run {run}"));
        };
        // A line that cannot open an event is passed over, not held.
        if !(opens == b'{' || opens == 0xef || opens.is_ascii_whitespace()) {
            let mut within = reader.by_ref().take(JUNK_BYTES - junk);
            junk += within.skip_until(b'\n').map_err(unreadable)? as u64;
            if junk >= JUNK_BYTES {
                return Err(not_within(JUNK_BYTES));
            }
            continue;
        }
        line.clear();
        reader.read_until(b'\n', &mut line).map_err(unreadable)?;
        let text = line.strip_suffix(b"\n").unwrap_or(&line);
        if let Ok(event) = decode(text.strip_prefix(b"\xef\xbb\xbf").unwrap_or(text))
            && wanted.is_none_or(|run| event.run == run)
            && let EventKind::RunStarted(started) = event.kind
        {
            return Ok(started);
        }
    }
    Err(format!(
        "{shown}: run {run}'s start is not in its first {START_LINES} lines"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bus::{Bus, Hub};
    use crate::clock::RunClock;

    /// A recording of run 3's start alone, after `before`.
    fn recording(dir: &Path, before: &[u8]) -> std::path::PathBuf {
        let path = dir.join("run.jsonl");
        let made = dir.join("made.jsonl");
        let (sink, recorder) = super::super::Recorder::create(&made).unwrap();
        let bus = Bus::new(3, RunClock::start(), Hub::new(1), Some(Box::new(sink)));
        let scenario =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/checkout_v2_launch.json");
        let scenario = std::sync::Arc::new(crate::scenario::load(&scenario).unwrap());
        bus.publish(EventKind::RunStarted(RunStarted {
            pattern: scenario.pattern,
            seed: 9,
            goal: "g".into(),
            clock: crate::bus::ClockMode::Virtual,
            flags: Vec::new(),
            source: None,
            started_at_ms: 1,
            model: None,
            forked_from: None,
            scenario,
        }));
        drop(bus);
        recorder.finish().unwrap();
        let mut bytes = before.to_vec();
        bytes.extend(std::fs::read(&made).unwrap());
        std::fs::write(&path, bytes).unwrap();
        path
    }

    #[test]
    fn a_start_after_damaged_lines_is_found() {
        let dir = tempfile::tempdir().unwrap();
        let path = recording(dir.path(), b"\x00garbage\n{not json\n\n");
        assert_eq!(run_start(&path, 3).unwrap().seed, 9);
        let err = run_start(&path, 4).unwrap_err();
        assert_eq!(err, format!("{}: holds no start of run 4", path.display()));
    }

    #[test]
    fn a_device_a_pipe_or_a_file_of_nothing_is_not_read() {
        let err = run_start(Path::new("/dev/zero"), 1).unwrap_err();
        assert_eq!(err, "/dev/zero: expected a recording file, found a device");
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let c_path = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path; mkfifo touches nothing else.
        assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
        let err = run_start(&fifo, 1).unwrap_err();
        assert!(err.ends_with("found a FIFO (a named pipe)"), "{err}");
        let nothing = recording(dir.path(), &vec![0; 2 << 20]);
        let err = run_start(&nothing, 3).unwrap_err();
        assert!(
            err.ends_with("run 3's start is not in its first 1 MiB"),
            "{err}"
        );
    }
}
