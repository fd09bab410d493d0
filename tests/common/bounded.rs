//! The binary run as a child that must end within a bound: its exit
//! status or signal and its peak memory (from `wait4`), or a failure
//! naming the run when it is still going at the bound (it is killed).

use std::process::Command;
use std::sync::mpsc;
use std::time::Duration;

pub struct Finished {
    pub exit: Option<i32>,
    pub signal: Option<i32>,
    /// The child's peak resident memory, in KiB. It counts the memory of
    /// this process at the moment the child started too (Linux carries it
    /// over `exec`), so it is only a measure when this process is small.
    pub max_rss_kib: i64,
}

/// Start `command` and wait for it at most `bound`; panics naming `what`
/// when it does not end in time.
pub fn run(mut command: Command, bound: Duration, what: &str) -> Finished {
    let child = command.spawn().expect("the binary starts");
    let pid = i32::try_from(child.id()).unwrap();
    let (done, waited) = mpsc::channel();
    std::thread::spawn(move || {
        let mut status = 0;
        // SAFETY: an all-zero rusage is a valid value to be overwritten.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: pid is this process's own child, not yet waited for;
        // both pointers are to live locals.
        let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        let _ = done.send((reaped, status, usage.ru_maxrss));
    });
    let Ok((reaped, status, max_rss_kib)) = waited.recv_timeout(bound) else {
        // SAFETY: signalling this process's own child.
        unsafe { libc::kill(pid, libc::SIGKILL) };
        panic!("{what}: still running after {bound:?}");
    };
    drop(child);
    assert_eq!(reaped, pid, "{what}: wait4 failed");
    Finished {
        exit: libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)),
        signal: libc::WIFSIGNALED(status).then(|| libc::WTERMSIG(status)),
        max_rss_kib,
    }
}

/// This process's own peak resident memory so far, in KiB.
pub fn own_peak_kib() -> i64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}
