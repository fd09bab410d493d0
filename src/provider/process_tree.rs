//! Everything a program a scenario starts (a command worker's program, a
//! stdio MCP server) runs in one tree that ends as a whole, whatever the
//! program does to leave it: a new process group, a new session
//! (`setsid`), a double fork. Nothing it started survives its call, its
//! server or Conclave itself.
//!
//! On Linux each program is started under a supervisor of its own: the
//! process Conclave forks for it, which makes itself a child subreaper
//! (`PR_SET_CHILD_SUBREAPER`), forks again and lets the second copy become
//! the program. Whatever the program starts and leaves behind is
//! re-parented to the supervisor, not to init, however it escaped. The
//! supervisor reaps the program, then kills (SIGKILL) and reaps every
//! child it has, again and again until it has none, and exits as the
//! program did. It does the same at once when asked to (SIGTERM, which is
//! how Conclave ends a call, a server or a run) or when Conclave is gone
//! (it looks every second), so a `kill -9` of Conclave leaves nothing
//! behind either. Conclave's own pipes to the program close with the
//! tree, so a grandchild holding stdout cannot hold the call.
//!
//! Why not make Conclave itself the subreaper: orphans re-parented to one
//! process lose the record of which program they came from, so with calls
//! in parallel (and MCP servers living for the whole run) Conclave could
//! not tell whose call's end should end them; and in a process that also
//! starts children of its own (a test harness starting nats-server), it
//! could not tell them apart from escaped descendants. A subreaper per
//! program answers both: its children are that program's, nothing else.
//! A cgroup would do the same where one can be created, which an ordinary
//! user's terminal often cannot.
//!
//! The supervisor runs between fork and exec, where only async-signal-safe
//! calls are allowed: it allocates nothing and calls only the system. On
//! other Unix systems a program leads a process group of its own, killed
//! whole, as before.

use tokio::process::Command;

/// Start `command`'s program in a tree of its own (see the module's doc);
/// its process group's id is the id of the child Conclave gets.
pub(crate) fn contain(command: &mut Command) {
    #[cfg(unix)]
    command.process_group(0);
    #[cfg(target_os = "linux")]
    // SAFETY: the closure runs in the forked child before exec and calls
    // only async-signal-safe functions of the system, allocating nothing.
    unsafe {
        command.pre_exec(|| {
            supervisor::start();
            Ok(())
        });
    }
    #[cfg(not(unix))]
    command.kill_on_drop(true);
}

/// End the tree whose child (the supervisor on Linux) is `pgid`, and which
/// Conclave has not reaped yet (`reaped` false): on Linux ask the
/// supervisor, which kills every process of the tree; elsewhere kill the
/// group. Once Conclave has reaped it (`reaped` true) only its process
/// group is left to kill, never the id alone, which may be another's now.
pub(crate) fn end(pgid: i32, reaped: bool) {
    #[cfg(unix)]
    if pgid > 1 {
        // SAFETY: kill(2) only sends a signal. pgid > 1 rules out our own
        // group (0) and every process (-1); the id is our unreaped child's,
        // which the kernel cannot hand to another process yet, or a group
        // that has no member left (ESRCH) or still holds the tree's.
        unsafe {
            if cfg!(target_os = "linux") && !reaped {
                libc::kill(pgid, libc::SIGTERM);
            } else {
                libc::kill(-pgid, libc::SIGKILL);
            }
        }
    }
    #[cfg(not(unix))]
    let _ = (pgid, reaped);
}

#[cfg(target_os = "linux")]
mod supervisor {
    //! The supervisor's side, in the forked child: async-signal-safe only.

    use std::ptr;

    /// How often the supervisor looks whether Conclave is still there.
    const LOOK_SECONDS: libc::time_t = 1;

    /// Called in the child Conclave forked, before exec: from here on this
    /// process supervises, and only the copy it forks returns (to become
    /// the program).
    pub(super) fn start() {
        // SAFETY: every call below is an async-signal-safe system call on
        // memory of this stack frame; nothing allocates or takes a lock.
        unsafe {
            let mut saved: libc::sigset_t = std::mem::zeroed();
            let mut wanted: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut wanted);
            libc::sigaddset(&mut wanted, libc::SIGCHLD);
            libc::sigaddset(&mut wanted, libc::SIGTERM);
            // Blocked before the fork, so that neither signal is lost or
            // kills the supervisor before it waits for them.
            libc::sigprocmask(libc::SIG_BLOCK, &wanted, &mut saved);
            if libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0 {
                // Without it the supervisor could not catch what escapes:
                // run the program as before, in its group.
                libc::sigprocmask(libc::SIG_SETMASK, &saved, ptr::null_mut());
                return;
            }
            let parent = libc::getppid();
            let program = libc::fork();
            if program == 0 {
                // The program: as Conclave set it up, the subreaper role
                // and the mask left with the supervisor.
                libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
                libc::sigprocmask(libc::SIG_SETMASK, &saved, ptr::null_mut());
                return;
            }
            if program < 0 {
                libc::_exit(127);
            }
            supervise(program, parent, &wanted);
        }
    }

    /// Wait for the program (or a request to end, or Conclave's end),
    /// then end the rest of the tree and exit as the program did.
    unsafe fn supervise(program: libc::pid_t, parent: libc::pid_t, wanted: &libc::sigset_t) -> ! {
        // SAFETY: as in `start`.
        unsafe {
            // The supervisor keeps none of the program's pipes open (so
            // stdout ends with the program's tree, and std's exec-error
            // pipe with the exec) and none of Conclave's files.
            close_every_file();
            let mut status: Option<libc::c_int> = None;
            loop {
                if status.is_none() {
                    status = reap_program(program);
                }
                if status.is_some() || libc::getppid() != parent {
                    break;
                }
                let wait = libc::timespec {
                    tv_sec: LOOK_SECONDS,
                    tv_nsec: 0,
                };
                if libc::sigtimedwait(wanted, ptr::null_mut(), &wait) == libc::SIGTERM {
                    break;
                }
            }
            end_every_child();
            exit_as(status)
        }
    }

    /// The program's wait status once it has ended (reaping whatever else
    /// has ended meanwhile).
    unsafe fn reap_program(program: libc::pid_t) -> Option<libc::c_int> {
        let mut found = None;
        loop {
            let mut status = 0;
            // SAFETY: waitpid on our own children, into a local.
            let pid = unsafe { libc::waitpid(-1, &mut status, libc::WNOHANG) };
            if pid <= 0 {
                return found;
            }
            if pid == program {
                found = Some(status);
            }
        }
    }

    /// Kill every child until none is left: a killed child's own children
    /// come to the supervisor and are killed in the next round.
    unsafe fn end_every_child() {
        loop {
            // SAFETY: as in `start`.
            unsafe {
                kill_children();
                if libc::waitpid(-1, ptr::null_mut(), 0) < 0
                    && *libc::__errno_location() != libc::EINTR
                {
                    return;
                }
            }
        }
    }

    /// SIGKILL every child the kernel lists for this (single-threaded)
    /// process in /proc/thread-self/children.
    unsafe fn kill_children() {
        // SAFETY: open/read/close/kill on a stack buffer.
        unsafe {
            let fd = libc::open(
                c"/proc/thread-self/children".as_ptr(),
                libc::O_RDONLY | libc::O_CLOEXEC,
            );
            if fd < 0 {
                return;
            }
            let mut buffer = [0u8; 4096];
            let mut pid: libc::pid_t = 0;
            loop {
                let n = libc::read(fd, buffer.as_mut_ptr().cast(), buffer.len());
                if n <= 0 {
                    break;
                }
                for &byte in &buffer[..n as usize] {
                    if byte.is_ascii_digit() {
                        pid = pid.saturating_mul(10).saturating_add((byte - b'0') as i32);
                    } else {
                        if pid > 1 {
                            libc::kill(pid, libc::SIGKILL);
                        }
                        pid = 0;
                    }
                }
            }
            if pid > 1 {
                libc::kill(pid, libc::SIGKILL);
            }
            libc::close(fd);
        }
    }

    unsafe fn close_every_file() {
        // SAFETY: closing descriptors of this process only.
        unsafe {
            for fd in 0..3 {
                libc::close(fd);
            }
            if libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, 0u32) != 0 {
                let mut limit: libc::rlimit = std::mem::zeroed();
                let top = if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 {
                    limit.rlim_cur.min(65536) as libc::c_int
                } else {
                    1024
                };
                for fd in 3..top {
                    libc::close(fd);
                }
            }
        }
    }

    /// Exit with the program's status: its code, or its signal raised
    /// again (without a core file); SIGKILL when it never ended.
    unsafe fn exit_as(status: Option<libc::c_int>) -> ! {
        // SAFETY: as in `start`.
        unsafe {
            let signal = match status {
                Some(status) if libc::WIFEXITED(status) => libc::_exit(libc::WEXITSTATUS(status)),
                Some(status) if libc::WIFSIGNALED(status) => libc::WTERMSIG(status),
                _ => libc::SIGKILL,
            };
            let none = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            libc::setrlimit(libc::RLIMIT_CORE, &none);
            libc::signal(signal, libc::SIG_DFL);
            let mut only: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut only);
            libc::sigaddset(&mut only, signal);
            libc::sigprocmask(libc::SIG_UNBLOCK, &only, ptr::null_mut());
            libc::kill(libc::getpid(), signal);
            libc::_exit(128 + signal)
        }
    }
}
