//! A run to start, as the dashboard asks for it: the scenario, where it
//! came from, and the seed, flags and goal it runs with.

use crate::bus::GivenAnswer;
use crate::scenario::Scenario;
use std::path::PathBuf;
use std::sync::Arc;

/// What a launch may change from the scenario.
#[derive(Clone, Debug, Default)]
pub struct Overrides {
    pub seed: Option<u64>,
    pub flags: Vec<(String, bool)>,
    pub goal: Option<String>,
    /// Record this launch to this file (`--record`) instead of the runs
    /// folder; a restart goes to the runs folder.
    pub record: Option<PathBuf>,
    /// `--answer` (or `--decide`): the answer to this launch's first
    /// question to a person that offers it, given in advance; a restart
    /// asks again.
    pub answer: Option<GivenAnswer>,
    /// `--cassette REC`, or a fork planned on the command line: the calls
    /// served from a recording; a restart runs live.
    pub cassette: Option<crate::engine::CassettePlan>,
}

/// A run to start: the scenario, where it came from, and the seed, flags
/// and goal it runs with.
#[derive(Clone, Debug, PartialEq)]
pub struct Launch {
    pub(crate) scenario: Arc<Scenario>,
    pub(crate) source: Option<String>,
    pub(crate) seed: u64,
    /// Flag states over the scenario's defaults.
    pub(crate) flags: Vec<(String, bool)>,
    pub(crate) goal: Option<String>,
    /// The recording file the user named, over the runs folder.
    pub(crate) record: Option<PathBuf>,
    /// The user allowed the scenario's programs to run.
    pub(crate) allow_exec: bool,
    /// The answer to a question the run asks, given in advance.
    pub(crate) answer: Option<GivenAnswer>,
    /// Serve the run's calls from a recording (a fork, `--cassette`).
    pub(crate) cassette: Option<crate::engine::CassettePlan>,
    /// A fork of a replayed recording, planned where the launch starts:
    /// its scenario, seed, flags, goal and cassette come from the parent.
    pub(crate) fork: Option<crate::engine::ForkRequest>,
    /// The model, over the dashboard's choice.
    pub(crate) model: Option<String>,
}

impl Launch {
    /// `scenario` with `overrides` over its seed, flags and goal.
    pub(crate) fn of(
        scenario: Arc<Scenario>,
        source: Option<String>,
        overrides: Overrides,
    ) -> Launch {
        let seed = overrides.seed.or(scenario.seed).unwrap_or(0);
        let mut flags: Vec<(String, bool)> = scenario
            .flags
            .iter()
            .map(|(name, flag)| (name.clone(), flag.default))
            .collect();
        flags.extend(overrides.flags);
        Launch {
            scenario,
            source,
            seed,
            flags,
            goal: overrides.goal,
            record: overrides.record,
            allow_exec: false,
            answer: overrides.answer,
            cassette: overrides.cassette,
            fork: None,
            model: None,
        }
    }
}
