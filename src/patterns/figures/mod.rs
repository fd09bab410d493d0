//! Every pattern's figures, as its `figures.rs` declares them and
//! [`super::declared`] lists them, read across patterns. Data only (it
//! imports the declarations and the pattern kinds, nothing else), so that
//! the floors below the patterns may read it. The declarations' types are
//! the bus's (`bus::figures`), which the comparison reads without this
//! list.

pub(crate) use crate::bus::figures::{FAILED_TASKS, Figures, Read, TASKS};

use crate::scenario::pattern_kind::PatternKind;

pub(crate) use super::declared::{PATTERNS, figures_of};

/// What `patterns` declare (their values, counts or measures), each name
/// once: the patterns' in their order, each pattern's in its own.
pub(crate) fn each_of<T: 'static>(
    patterns: &[PatternKind],
    of: impl Fn(&'static Figures) -> &'static [T],
    name: impl Fn(&T) -> &'static str,
) -> Vec<&'static T> {
    let declared = PATTERNS.iter().filter(|p| patterns.contains(p));
    crate::bus::figures::each_in(declared.map(|p| figures_of(*p)), of, name)
}

/// The names of the measures a sweep tallies, of every pattern.
pub(crate) fn swept_names() -> Vec<&'static str> {
    each_of(PATTERNS, |f| f.swept, |s| s.name)
        .into_iter()
        .map(|s| s.name)
        .collect()
}

/// The names of many lists in one order that keeps each list's: a name
/// first seen in a list goes right after the name before it there
/// (first when it is the list's first).
pub(crate) fn merged<'n, L: IntoIterator<Item = &'n str>>(
    lists: impl IntoIterator<Item = L>,
) -> Vec<&'n str> {
    let mut names: Vec<&str> = Vec::new();
    for list in lists {
        let mut after: Option<usize> = None;
        for name in list {
            let at = match names.iter().position(|n| *n == name) {
                Some(at) => at,
                None => {
                    let at = after.map_or(0, |a| a + 1);
                    names.insert(at, name);
                    at
                }
            };
            after = Some(at);
        }
    }
    names
}

/// One order of every pattern's summary values, and one of their counts,
/// that keeps each pattern's own: a summary, whoever fills it, writes
/// its values and counts in its pattern's order.
pub(crate) fn summary_order() -> &'static (Vec<&'static str>, Vec<&'static str>) {
    static ORDER: std::sync::OnceLock<(Vec<&'static str>, Vec<&'static str>)> =
        std::sync::OnceLock::new();
    ORDER.get_or_init(|| {
        let every: Vec<&Figures> = PATTERNS.iter().map(|p| figures_of(*p)).collect();
        (
            merged(every.iter().map(|f| f.summary.iter().map(|v| v.name))),
            merged(every.iter().map(|f| f.counts.iter().map(|c| c.name))),
        )
    })
}

#[cfg(test)]
mod tests;
