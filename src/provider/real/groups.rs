//! The process groups of the programs real workers run: each call's
//! program leads a group of its own, killed whole (SIGKILL to the group)
//! when the call ends however it ends, when its run ends, and, through the
//! process-wide list, when Conclave itself is ended by a signal. A group
//! is never signalled once it has been left, and never with an id that
//! could name Conclave's own group or every process (0, 1, negative).

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};

/// Every group any run of this process has live.
static EVERY: Mutex<Option<HashSet<i32>>> = Mutex::new(None);

/// The groups of one run.
#[derive(Debug, Default)]
pub(crate) struct ProcessGroups {
    live: Mutex<HashSet<i32>>,
}

/// One call's group: killed when dropped.
#[derive(Debug)]
pub(crate) struct GroupGuard {
    groups: Arc<ProcessGroups>,
    pgid: Option<i32>,
}

impl ProcessGroups {
    /// Track the group the program `pid` leads.
    pub(crate) fn enter(self: &Arc<Self>, pid: Option<u32>) -> GroupGuard {
        let pgid = pid
            .and_then(|pid| i32::try_from(pid).ok())
            .filter(|p| *p > 1);
        if let Some(pgid) = pgid {
            lock(&self.live).insert(pgid);
            lock(&EVERY).get_or_insert_with(HashSet::new).insert(pgid);
        }
        GroupGuard {
            groups: Arc::clone(self),
            pgid,
        }
    }

    /// Kill every group of the run that is still live.
    pub(crate) fn kill_all(&self) {
        let live: Vec<i32> = lock(&self.live).drain().collect();
        for pgid in live {
            kill_group(pgid);
            forget(pgid);
        }
    }
}

impl GroupGuard {
    /// Kill the group now (it stays tracked until dropped).
    pub(crate) fn kill(&self) {
        if let Some(pgid) = self.pgid
            && lock(&self.groups.live).contains(&pgid)
        {
            kill_group(pgid);
        }
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if let Some(pgid) = self.pgid
            && lock(&self.groups.live).remove(&pgid)
        {
            kill_group(pgid);
            forget(pgid);
        }
    }
}

/// Kill every group any run of this process has live: for a signal that
/// ends Conclave, whose runs will not get to end on their own.
pub(crate) fn kill_every_group() {
    let every: Vec<i32> = lock(&EVERY)
        .as_mut()
        .map(|set| set.drain().collect())
        .unwrap_or_default();
    for pgid in every {
        kill_group(pgid);
    }
}

fn forget(pgid: i32) {
    if let Some(set) = lock(&EVERY).as_mut() {
        set.remove(&pgid);
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(unix)]
fn kill_group(pgid: i32) {
    if pgid > 1 {
        // SAFETY: kill(2) with a negative id signals that process group
        // only; pgid > 1 rules out our own group (0) and every process (-1).
        unsafe {
            libc::kill(-pgid, libc::SIGKILL);
        }
    }
}

#[cfg(not(unix))]
fn kill_group(_pgid: i32) {
    // Without process groups each child is killed when its handle drops.
}
