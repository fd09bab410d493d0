//! How a pattern declares its figures: the named values its run summary
//! holds, the counts its runner keeps and the measures its runs report in
//! a sweep, each in the pattern's order, with where each is read. Types
//! only, importing nothing: each pattern fills them in a `figures.rs` of
//! its own, and the floors below the patterns (the summary, the
//! comparison, the sweep) loop over the names declared.

/// The figures a pattern's runs report.
#[derive(Debug, PartialEq, Eq)]
pub struct Figures {
    /// The summary's values, the answer among them, in the order a
    /// summary writes them.
    pub(crate) summary: &'static [Figure],
    /// The counts its runner keeps, in the order a summary writes them.
    pub(crate) counts: &'static [Count],
    /// The measures a sweep tallies of each run, in the order the sweep
    /// document lists them.
    pub(crate) swept: &'static [Swept],
    /// The summary value a sweep tallies as what the run came to (its
    /// `verdicts`, and the last part of its outcome's key), in words: a
    /// list reads as its items joined by `→`. `None`: runs of the pattern
    /// come to no verdict (`-`).
    pub(crate) verdict: Option<&'static str>,
}

/// A value of the run summary, by its name there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Figure {
    pub(crate) name: &'static str,
    pub(crate) shape: Shape,
    /// Where a result document written before runs published a summary
    /// holds it.
    pub(crate) was: Was,
}

/// The run's answer or brief: a value every pattern may give, declared
/// where the pattern writes it among its own.
pub(crate) const ANSWER: Figure = Figure {
    name: "answer",
    shape: Shape::Value,
    was: Was::Value("/answer"),
};

/// Tasks a run finished, done or failed: a count any pattern with tasks
/// keeps, which a run's shortfall is read from.
pub(crate) const TASKS: &str = "tasks";
/// Of those, the tasks that failed: a run with any falls short.
pub(crate) const FAILED_TASKS: &str = "failed_tasks";

/// What a figure holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// One value (a string, a number): a run without it compares as null.
    Value,
    /// A list: a run without it compares as an empty list, and a summary
    /// leaves an empty one out.
    List,
}

/// Where a result document written before runs published a summary holds
/// a figure or a count (a JSON pointer into the document).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Was {
    /// The value there, as it is.
    Value(&'static str),
    /// The length of the list there.
    Length(&'static str),
    /// Nowhere: such runs did not write it.
    Nowhere,
}

/// A count of the run summary, by its name in its `counts`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Count {
    pub(crate) name: &'static str,
    pub(crate) was: Was,
}

/// One measure a sweep tallies, by its name in the sweep document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Swept {
    pub(crate) name: &'static str,
    pub(crate) read: Read,
}

/// Where a swept measure is read from a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Read {
    /// The count of the same name in the run's summary, as its runner
    /// counted it; left out of a run that has none.
    Count,
    /// The steps the run's events opened (`describe::opens_step`), zero
    /// included: counted as the run went, whatever its result says.
    StepsOpened,
    /// One measure per key of the summary's value of the same name, an
    /// object of counts (a graph's `visits`), named `NAME.KEY` in the
    /// object's order; left out of a run that has no such value.
    EachKey,
}

impl Figures {
    /// No figures: a run whose pattern is not yet known reports none.
    pub(crate) const NONE: Figures = Figures {
        summary: &[],
        counts: &[],
        swept: &[],
        verdict: None,
    };
}

/// What `declared` hold (their values, counts or measures), each name
/// once: the declarations' in the order given, each one's in its own.
pub(crate) fn each_in<T: 'static>(
    declared: impl IntoIterator<Item = &'static Figures>,
    of: impl Fn(&'static Figures) -> &'static [T],
    name: impl Fn(&T) -> &'static str,
) -> Vec<&'static T> {
    let mut each: Vec<&'static T> = Vec::new();
    for figures in declared {
        for item in of(figures) {
            if !each.iter().any(|had| name(had) == name(item)) {
                each.push(item);
            }
        }
    }
    each
}
