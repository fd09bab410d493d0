//! A process measured from outside: its wall time, its CPU time and its
//! peak resident memory (from `wait4`), and the medians of several.

// Each bench that includes this file uses a part of it.
#![allow(dead_code)]

use std::process::Command;
use std::time::{Duration, Instant};

/// What one process took.
#[derive(Clone, Copy, Debug)]
pub struct Took {
    pub wall: Duration,
    /// User and system time.
    pub cpu: Duration,
    /// Peak resident memory, in bytes.
    pub rss: usize,
}

/// Run `command`; what it took. A run that fails stops the bench, with
/// the end of what it said.
pub fn measured(mut command: Command, what: &str) -> Took {
    let stderr = tempfile::tempfile().expect("a temporary file");
    let start = Instant::now();
    // Reaped below by `wait4`, which also gives its peak memory.
    #[allow(clippy::zombie_processes)]
    let child = command
        .stderr(stderr.try_clone().expect("a file handle"))
        .spawn()
        .expect("the command starts");
    let pid = i32::try_from(child.id()).expect("a pid");
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value to be overwritten.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: pid is this process's own child, not yet waited for; both
    // pointers are to live locals.
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall = start.elapsed();
    assert_eq!(reaped, pid, "wait4 failed");
    let exit = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    if !matches!(exit, Some(0 | 1)) {
        let mut said = String::new();
        let mut stderr = stderr;
        let _ = std::io::Seek::rewind(&mut stderr);
        let _ = std::io::Read::read_to_string(&mut stderr, &mut said);
        let tail: String = said
            .chars()
            .rev()
            .take(2000)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        panic!("{what} ended with {exit:?}: {tail}");
    }
    let time = |t: libc::timeval| {
        Duration::from_secs(u64::try_from(t.tv_sec).unwrap_or(0))
            + Duration::from_micros(u64::try_from(t.tv_usec).unwrap_or(0))
    };
    Took {
        wall,
        cpu: time(usage.ru_utime) + time(usage.ru_stime),
        rss: usize::try_from(usage.ru_maxrss).unwrap_or(0) * 1024,
    }
}

/// The median of each figure of `runs`, each taken apart.
pub fn medians(runs: &[Took]) -> Took {
    let middle = |mut figures: Vec<u128>| {
        figures.sort_unstable();
        figures[figures.len() / 2]
    };
    let nanos = |f: fn(&Took) -> Duration| {
        let n = middle(runs.iter().map(|t| f(t).as_nanos()).collect());
        Duration::from_nanos(u64::try_from(n).unwrap_or(u64::MAX))
    };
    Took {
        wall: nanos(|t| t.wall),
        cpu: nanos(|t| t.cpu),
        rss: usize::try_from(middle(runs.iter().map(|t| t.rss as u128).collect()))
            .unwrap_or(usize::MAX),
    }
}

/// The smallest and the largest wall time of `runs`, in seconds: their
/// spread.
pub fn spread(runs: &[Took]) -> (f64, f64) {
    let walls = runs.iter().map(|t| t.wall.as_secs_f64());
    let low = walls.clone().fold(f64::INFINITY, f64::min);
    (low, walls.fold(0.0, f64::max))
}

/// The rows the command line asks for: every row when it names none, else
/// those whose name holds one of the names given.
pub fn wanted_rows() -> impl Fn(&str) -> bool {
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|arg| !arg.starts_with('-'))
        .collect();
    move |row: &str| filters.is_empty() || filters.iter().any(|f| row.contains(f))
}
