//! `conclave run app.json --headless` of a program scenario and
//! `conclave launch --headless`: the program launched as a run, its
//! result printed as one JSON document on stdout, exit 0, 3, 2 or 1 as
//! for any scenario, and the run recorded unless told not to.

use super::journal::RecordAt;
use super::recording;
use super::result::LaunchResult;
use super::run::{Ended, LaunchError, LaunchSettings, launch};
use super::scenario::LoadedProgram;
use crate::exit::Exit;
use crate::output;
use std::path::PathBuf;

/// Where a launched run is recorded.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Recording {
    /// The dashboard's runs folder (see [`recording::default_folder`]).
    #[default]
    Default,
    To(PathBuf),
    Off,
}

/// A headless launch.
#[derive(Clone, Debug)]
pub struct HeadlessLaunch {
    pub program: LoadedProgram,
    pub settings: LaunchSettings,
    pub recording: Recording,
}

/// Launch, wait for the end, print the result; the exit status.
pub fn headless(launch_of: HeadlessLaunch) -> Exit {
    let (prepared, runtime) = match ready(&launch_of.program) {
        Ok(ready) => ready,
        Err(exit) => return exit,
    };
    let HeadlessLaunch {
        program,
        mut settings,
        recording,
    } = launch_of;
    settings.record = match recording {
        Recording::Default => recording::default_folder().map(RecordAt::Folder),
        Recording::To(path) => Some(RecordAt::File(path)),
        Recording::Off => None,
    };
    settings.announce = true;
    let cassette = settings.cassette.clone();
    runtime.block_on(async move {
        let mut signals = crate::signals::Signals::new().ok();
        let finished = match launch(&program, &prepared, settings, None, signals.as_mut()).await {
            Ok(finished) => finished,
            Err(LaunchError::BadInput(errors)) => {
                output::message(&errors.to_string());
                return Exit::BadInput;
            }
            Err(LaunchError::Internal(why)) => {
                output::message(&format!("conclave: {why}"));
                return Exit::Internal;
            }
        };
        let mut result = LaunchResult::of(&finished, &program.scenario.name);
        if let Some(path) = &finished.recording
            && let Err(e) = recording::write(path, &finished, &mut result)
        {
            output::message(&format!(
                "conclave: cannot record the run to {}: {e}",
                path.display()
            ));
        }
        if let Ended::CassetteMiss(words) = &finished.ended {
            output::message(&format!("conclave: cassette_miss: {words}"));
        }
        if let Some(cassette) = &cassette {
            output::message(&format!("conclave: {}", cassette.tally()));
        }
        output::document(&result.document());
        match finished.ended {
            Ended::Interrupted(signal) => Exit::Signalled(signal),
            _ => result.exit(),
        }
    })
}

/// The program found and a runtime started, or the exit saying why not
/// (the errors said on stderr).
pub(crate) fn ready(
    program: &LoadedProgram,
) -> Result<(super::prepare::Prepared, tokio::runtime::Runtime), Exit> {
    let prepared = super::prepare::prepare(program).map_err(|errors| {
        output::message(&errors.to_string());
        Exit::BadInput
    })?;
    let runtime = crate::runtime::start(&mut tokio::runtime::Builder::new_multi_thread())?;
    Ok((prepared, runtime))
}
