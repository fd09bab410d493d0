//! The gateway mechanisms a run's flags switch (flags with `"gateway":
//! ...`), as the last gate left them. The gate writes them when a flag
//! changes; the gateway reads them before each call, so a switch takes
//! effect from the next gate on. It holds state and decides nothing.

use super::Flags;
use crate::scenario::GatewayMechanism;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

const MECHANISMS: usize = GatewayMechanism::ALL.len();

#[derive(Clone, Debug)]
pub(crate) struct Switches {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    on: [AtomicBool; MECHANISMS],
    /// How often each mechanism has been switched off, so a mechanism can
    /// tell it was off between two of its calls.
    offs: [AtomicU64; MECHANISMS],
}

impl Switches {
    /// Every mechanism on: what a run without gateway flags has.
    pub(crate) fn all_on() -> Self {
        Switches {
            inner: Arc::new(Inner {
                on: std::array::from_fn(|_| AtomicBool::new(true)),
                offs: std::array::from_fn(|_| AtomicU64::new(0)),
            }),
        }
    }

    pub(crate) fn of(flags: &Flags) -> Self {
        let switches = Switches::all_on();
        switches.follow(flags);
        switches
    }

    pub(crate) fn is_on(&self, mechanism: GatewayMechanism) -> bool {
        self.inner.on[mechanism.index()].load(Ordering::Acquire)
    }

    /// How often `mechanism` has been switched off so far.
    pub(crate) fn times_off(&self, mechanism: GatewayMechanism) -> u64 {
        self.inner.offs[mechanism.index()].load(Ordering::Acquire)
    }

    /// Take the states the flags give.
    pub(crate) fn follow(&self, flags: &Flags) {
        for mechanism in GatewayMechanism::ALL {
            let on = flags.mechanism_on(mechanism);
            let was = self.inner.on[mechanism.index()].swap(on, Ordering::AcqRel);
            if was && !on {
                self.inner.offs[mechanism.index()].fetch_add(1, Ordering::AcqRel);
            }
        }
    }
}
