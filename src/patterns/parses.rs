//! How many times this thread's patterns have parsed a model's answer, by
//! what was read (`plan`, `contribution`, ...): a pattern's test counts
//! the parses of one answer, which the gateway's check reads once and
//! hands over. Tests only; a test runs its pattern on one thread.

use std::cell::RefCell;
use std::collections::HashMap;

thread_local! {
    static PARSES: RefCell<HashMap<&'static str, usize>> = RefCell::new(HashMap::new());
}

/// One more parse of an answer read as `what`.
pub(crate) fn note(what: &'static str) {
    PARSES.with(|parses| *parses.borrow_mut().entry(what).or_default() += 1);
}

/// The parses of answers read as `what` on this thread so far.
pub(crate) fn of(what: &'static str) -> usize {
    PARSES.with(|parses| parses.borrow().get(what).copied().unwrap_or(0))
}
