//! The binary's allocator, mimalloc, and the two of its defaults the
//! binary changes.
//!
//! - Freed memory goes back to the system at once (`purge_delay` 0):
//!   mimalloc 3 keeps freed pages a second (ten in its arenas) before it
//!   purges them, so a run that frees as it goes held them all at its peak.
//! - No transparent huge pages (the `no_thp` feature in `Cargo.toml`): on
//!   a machine that gives them when asked, mimalloc asked for them for its
//!   arenas, and the kernel zeroed and compacted 2 MiB at a time.
//!
//! Measured with the scale bench's fan-out of 100,000 tasks, release,
//! medians of three interleaved processes: 251 MiB at the peak instead
//! of 319–382, and a third of the system time (docs/development.md).

use std::ffi::{c_int, c_long};

/// `mi_option_purge_delay` in mimalloc 3's `mi_option_e`
/// (`include/mimalloc.h` of the `libmimalloc-sys` version `Cargo.lock`
/// holds); a test holds that it is the option whose default is 1,000 ms,
/// so that an update that moves it fails there.
const PURGE_DELAY: c_int = 15;

// SAFETY: mimalloc's exported C functions, as `include/mimalloc.h`
// declares them; linked through the `mimalloc` crate.
unsafe extern "C" {
    fn mi_option_set(option: c_int, value: c_long);
    #[cfg(test)]
    fn mi_option_get(option: c_int) -> c_long;
}

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Set the allocator's options, first thing in `main`.
pub(crate) fn tune() {
    // SAFETY: an option mimalloc declares, set to a value its header
    // allows (0: purge at once); options may be set at any time.
    unsafe { mi_option_set(PURGE_DELAY, 0) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_purge_delay_is_the_option_tuned() {
        // SAFETY: reading an option mimalloc declares.
        let before = unsafe { mi_option_get(PURGE_DELAY) };
        // No other test tunes it: its default, unless the environment
        // sets it.
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
            assert_eq!(
                before, 1000,
                "option {PURGE_DELAY} is not mimalloc 3's purge_delay"
            );
        }
        tune();
        // SAFETY: as above.
        assert_eq!(unsafe { mi_option_get(PURGE_DELAY) }, 0);
    }
}
