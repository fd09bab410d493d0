//! The dashboard's sweep: the tally as results arrive, the chart shown,
//! the bar and the run selected. A reducer over results and moves; it
//! starts no run (replaying one is an effect the app returns).

use super::bars::{self, Group};
pub use super::chart::Chart;
use crate::scenario::Scenario;
use crate::sweep::{Job, JobResult, Prepared, Tally};
use std::sync::Arc;

/// How the sweep's executor ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ended {
    Done,
    /// The words of the error that stopped it.
    Failed(String),
}

pub struct SweepState {
    pub(crate) scenario: Arc<Scenario>,
    pub(crate) source: String,
    /// A sweep from a point: `from FILE at GATE`, the recording by its name.
    pub(crate) from: Option<String>,
    /// The model the runs' tokens are priced as, named where it has no
    /// price.
    pub(crate) model: String,
    pub(crate) tally: Tally,
    pub(crate) chart: Chart,
    /// The selected bar, counted over every combination's bars in order.
    pub(crate) bar: usize,
    /// The selected bar's runs are listed, this row selected.
    pub(crate) listing: Option<usize>,
    pub(crate) ended: Option<Ended>,
}

impl SweepState {
    pub fn new(sweep: &Prepared) -> Self {
        SweepState {
            scenario: Arc::clone(&sweep.scenario),
            source: sweep.source.clone(),
            from: sweep.setup.fork.as_ref().map(|fork| {
                let file = fork.source();
                let name = std::path::Path::new(&file)
                    .file_name()
                    .map_or_else(|| file.clone(), |n| n.to_string_lossy().into_owned());
                format!("from {name} at {}", fork.gate())
            }),
            model: sweep.setup.provider.model_priced(&sweep.scenario),
            tally: Tally::new(&sweep.plan),
            chart: Chart::Outcomes,
            bar: 0,
            listing: None,
            ended: None,
        }
    }

    pub fn tally(&self) -> &Tally {
        &self.tally
    }

    /// A result from the executor; counted once.
    pub(crate) fn add(&mut self, result: JobResult) {
        self.tally.add(result);
    }

    pub(crate) fn end(&mut self, ended: Ended) {
        self.ended = Some(ended);
    }

    /// The bars of the chart shown.
    pub(crate) fn groups(&self) -> Vec<Group> {
        bars::groups(&self.tally, self.chart)
    }

    /// The selected bar as (group, bar) in `groups`, clamped to the bars
    /// there are.
    pub(crate) fn selected_in(&self, groups: &[Group]) -> Option<(usize, usize)> {
        let total: usize = groups.iter().map(|g| g.bars.len()).sum();
        let mut left = self.bar.min(total.checked_sub(1)?);
        for (g, group) in groups.iter().enumerate() {
            if left < group.bars.len() {
                return Some((g, left));
            }
            left -= group.bars.len();
        }
        None
    }

    /// The runs of the selected bar, in order of seed.
    pub(crate) fn listed(&self) -> Vec<&JobResult> {
        let groups = self.groups();
        let Some((g, b)) = self.selected_in(&groups) else {
            return Vec::new();
        };
        let results = self.tally.results(groups[g].combination);
        groups[g].bars[b]
            .runs
            .iter()
            .map(|&i| &results[i])
            .collect()
    }

    /// The job of the listed run selected, to replay.
    pub(crate) fn selected_job(&self) -> Option<Job> {
        let row = self.listing?;
        let listed = self.listed();
        let result = listed.get(row.min(listed.len().checked_sub(1)?))?;
        let flags = self.tally.combination(result.combination)?;
        Some(Job::new(result.combination, result.seed, flags))
    }

    /// Show the next (`by` 1) or previous (-1) chart, from its first bar.
    pub(crate) fn turn_chart(&mut self, by: isize) {
        self.chart = self.chart.step(by);
        self.bar = 0;
        self.listing = None;
    }

    /// Move the selection by `by` bars, or rows of the list when the
    /// bar's runs are listed; within bounds.
    pub(crate) fn move_by(&mut self, by: isize) {
        let last = match self.listing {
            Some(_) => self.listed().len(),
            None => self.groups().iter().map(|g| g.bars.len()).sum(),
        }
        .saturating_sub(1);
        let at = self.listing.unwrap_or(self.bar);
        let moved = at.saturating_add_signed(by).min(last);
        match &mut self.listing {
            Some(row) => *row = moved,
            None => self.bar = moved,
        }
    }

    /// Go to the first (`false`) or last (`true`) bar or row.
    pub(crate) fn move_to_end(&mut self, last: bool) {
        self.move_by(if last { isize::MAX } else { isize::MIN });
    }

    /// List the selected bar's runs; false when it has none.
    pub(crate) fn open_listing(&mut self) -> bool {
        if self.listed().is_empty() {
            return false;
        }
        self.listing = Some(0);
        true
    }

    /// Back from the list to the bars; false when no list was open.
    pub(crate) fn close_listing(&mut self) -> bool {
        self.listing.take().is_some()
    }
}
