//! The process trees of the programs real workers run: each call's program
//! is started in a tree of its own (`provider::process_tree`), ended whole
//! when the call ends however it ends, when its run ends, and, through the
//! process-wide list, when Conclave itself is ended by a signal. A tree is
//! never signalled once its call has left it, and never with an id that
//! could name Conclave's own group or every process (0, 1, negative).

use crate::provider::process_tree;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

/// Every tree any run of this process has live, by its group's id, with
/// whether Conclave has reaped the process that leads it.
static EVERY: Mutex<Option<HashMap<i32, bool>>> = Mutex::new(None);

/// The trees of one run.
#[derive(Debug, Default)]
pub(crate) struct ProcessGroups {
    live: Mutex<HashMap<i32, bool>>,
}

/// One call's tree: ended when dropped.
#[derive(Debug)]
pub(crate) struct GroupGuard {
    groups: Arc<ProcessGroups>,
    pgid: Option<i32>,
}

impl ProcessGroups {
    /// Track the tree the program `pid` leads.
    pub(crate) fn enter(self: &Arc<Self>, pid: Option<u32>) -> GroupGuard {
        let pgid = pid
            .and_then(|pid| i32::try_from(pid).ok())
            .filter(|p| *p > 1);
        if let Some(pgid) = pgid {
            lock(&self.live).insert(pgid, false);
            lock(&EVERY)
                .get_or_insert_with(HashMap::new)
                .insert(pgid, false);
        }
        GroupGuard {
            groups: Arc::clone(self),
            pgid,
        }
    }

    /// End every tree of the run that is still live.
    pub(crate) fn kill_all(&self) {
        let live: Vec<(i32, bool)> = lock(&self.live).drain().collect();
        for (pgid, reaped) in live {
            process_tree::end(pgid, reaped);
            forget(pgid);
        }
    }
}

impl GroupGuard {
    /// End the tree now (it stays tracked until dropped).
    pub(crate) fn kill(&self) {
        if let Some(pgid) = self.pgid
            && let Some(&reaped) = lock(&self.groups.live).get(&pgid)
        {
            process_tree::end(pgid, reaped);
        }
    }

    /// The program's process has been reaped: from now on only its group
    /// is signalled, never its id, which the kernel may give to another.
    pub(crate) fn reaped(&self) {
        if let Some(pgid) = self.pgid {
            if let Some(reaped) = lock(&self.groups.live).get_mut(&pgid) {
                *reaped = true;
            }
            if let Some(reaped) = lock(&EVERY).as_mut().and_then(|set| set.get_mut(&pgid)) {
                *reaped = true;
            }
        }
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if let Some(pgid) = self.pgid
            && let Some(reaped) = lock(&self.groups.live).remove(&pgid)
        {
            process_tree::end(pgid, reaped);
            forget(pgid);
        }
    }
}

/// End every tree any run of this process has live: for a signal that
/// ends Conclave, whose runs will not get to end on their own.
pub(crate) fn kill_every_group() {
    let every: Vec<(i32, bool)> = lock(&EVERY)
        .as_mut()
        .map(|set| set.drain().collect())
        .unwrap_or_default();
    for (pgid, reaped) in every {
        process_tree::end(pgid, reaped);
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
