//! The arguments of the commands that run a scenario on this machine:
//! `tui` (the dashboard, launching the scenario at once if one is given)
//! and `run` (in the dashboard, or headless).

use super::{AnswerArgs, ExecArgs, ModelArgs, OtlpArgs, PublishArgs, ScreenArgs, parse_flag};
use clap::{Args, ValueEnum};
use conclave::bus::ClockMode;
use conclave::engine::ProviderChoice;
use conclave::exit::Exit;
use conclave::output;
use conclave::provider::openai::EndpointProfile;
use std::path::PathBuf;

/// What `conclave tui` is given; `conclave` alone is this with nothing.
#[derive(Args, Debug, Default)]
pub(crate) struct TuiCommand {
    /// The scenario file.
    pub(crate) scenario: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) model: ModelArgs,
    /// Start an endpoint's run from this profile (conclave probe --write):
    /// its first request already asks in the mode and with the parameters
    /// the endpoint accepts.
    #[arg(long, value_name = "FILE")]
    pub(crate) endpoint_profile: Option<PathBuf>,

    #[command(flatten)]
    pub(crate) screen: ScreenArgs,
    #[command(flatten)]
    pub(crate) exec: ExecArgs,
    #[command(flatten)]
    pub(crate) otlp: OtlpArgs,
    #[command(flatten)]
    pub(crate) publish: PublishArgs,
}

/// What `conclave run` is given, in the dashboard or headless.
#[derive(Args, Debug)]
pub(crate) struct RunCommand {
    /// The scenario file.
    pub(crate) scenario: PathBuf,
    /// Print the result as one JSON document instead of opening the dashboard.
    #[arg(long)]
    pub(crate) headless: bool,
    /// Seed of the run's random choices (overrides the scenario's).
    #[arg(long)]
    pub(crate) seed: Option<u64>,
    /// The engine's clock: virtual (instant and reproducible; the default headless
    /// on the sim) or real. A scenario with real workers or a remote model always
    /// runs on the real clock.
    #[arg(long, value_enum)]
    pub(crate) clock: Option<Clock>,
    /// Set a flag at launch, e.g. --flag legal_analyst=on (repeatable).
    #[arg(long = "flag", value_name = "NAME=on|off", value_parser = parse_flag)]
    pub(crate) flags: Vec<(String, bool)>,
    /// Record every event of the run to this new JSONL file (its folder must
    /// exist; a file there already is refused, never written over).
    #[arg(long, value_name = "FILE.jsonl", conflicts_with = "no_record")]
    pub(crate) record: Option<PathBuf>,
    /// Replace the scenario's goal.
    #[arg(long, value_name = "TEXT")]
    pub(crate) goal: Option<String>,
    #[command(flatten)]
    pub(crate) answer: AnswerArgs,
    /// Keep the tools' last good answers in this folder between runs, for a
    /// scenario whose safe mode falls back to them
    /// (resilience.safe_mode.fallback: "last_known_good").
    #[arg(long, value_name = "DIR")]
    pub(crate) cache: Option<PathBuf>,
    /// Serve every model and tool call from this recording of the scenario,
    /// matched by what it asks: no network, no cost, the recorded result.
    #[arg(long, value_name = "REC.jsonl")]
    pub(crate) cassette: Option<PathBuf>,
    /// A call the cassette does not hold: stop the run naming the first
    /// difference (stop), or make it live and record it (live).
    #[arg(long, value_enum, value_name = "stop|live", requires = "cassette")]
    pub(crate) cassette_miss: Option<conclave::cassette::MissPolicy>,
    #[command(flatten)]
    pub(crate) model: ModelArgs,
    /// Start an endpoint's run from this profile (conclave probe --write):
    /// its first request already asks in the mode and with the parameters
    /// the endpoint accepts.
    #[arg(long, value_name = "FILE")]
    pub(crate) endpoint_profile: Option<PathBuf>,

    #[command(flatten)]
    pub(crate) screen: ScreenArgs,
    #[command(flatten)]
    pub(crate) exec: ExecArgs,
    #[command(flatten)]
    pub(crate) otlp: OtlpArgs,
    #[command(flatten)]
    pub(crate) publish: PublishArgs,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub(crate) enum Clock {
    Virtual,
    Real,
}

impl From<Clock> for ClockMode {
    fn from(clock: Clock) -> Self {
        match clock {
            Clock::Real => ClockMode::Real,
            Clock::Virtual => ClockMode::Virtual,
        }
    }
}

/// The model of a run: `model`'s choice, started from the endpoint
/// profile in `profile`. A profile that cannot be read, or is no profile,
/// is refused (exit 2) naming the file, the place and what was expected.
/// It is read here rather than as the flag is parsed, so that a command
/// line naming one parses anywhere (the docs' examples are checked so).
pub(crate) fn choice(model: ModelArgs, profile: Option<PathBuf>) -> Result<ProviderChoice, Exit> {
    let endpoint_profile = match profile {
        None => None,
        Some(path) => Some(EndpointProfile::load(&path).map_err(|e| {
            output::message(&format!("conclave: --endpoint-profile: {e}"));
            Exit::BadInput
        })?),
    };
    Ok(ProviderChoice {
        endpoint_profile,
        ..model.choice()
    })
}

impl RunCommand {
    /// A program scenario's run (`"pattern": "program"`), launched here:
    /// its exit; any other scenario is handed back to run as a scenario.
    pub(crate) fn launch_program(self) -> Result<Exit, Box<RunCommand>> {
        let program = match super::launch::program_at(&self.scenario) {
            None => return Err(Box::new(self)),
            Some(Err(exit)) => return Ok(exit),
            Some(Ok(program)) => program,
        };
        if !self.headless {
            return Ok(self.program_in_dashboard(program));
        }
        let cassette = match super::launch::cassette_of(
            self.cassette.as_deref(),
            self.cassette_miss,
            program.scenario.model.is_some(),
        ) {
            Ok(cassette) => cassette,
            Err(exit) => return Ok(exit),
        };
        Ok(conclave::launch::headless(
            conclave::launch::HeadlessLaunch {
                program,
                settings: conclave::launch::LaunchSettings {
                    flags: self.flags,
                    seed: self.seed,
                    prices: self.model.pricing,
                    record: None,
                    announce: true,
                    cassette,
                    ..Default::default()
                },
                recording: super::launch::recording(self.record, self.screen.no_record),
            },
        ))
    }

    /// `conclave run app.json` of a program scenario: the dashboard, the
    /// program launched at once with the run's flags and seed, recorded
    /// to the runs folder unless `--no-record`.
    fn program_in_dashboard(self, mut program: conclave::launch::LoadedProgram) -> Exit {
        if let Some(path) = &self.cassette {
            output::message(&format!(
                "conclave run: --cassette {}: a program's model calls are served from a \
                 cassette with --headless",
                path.display()
            ));
            return Exit::BadInput;
        }
        if let Some(path) = &self.record {
            output::message(&format!(
                "conclave run: --record {}: a program launched in the dashboard is recorded to \
                 the runs folder (launch-RUN_ID.jsonl); --record FILE is for --headless",
                path.display()
            ));
            return Exit::BadInput;
        }
        let scenario = &mut program.scenario;
        for (name, on) in self.flags {
            scenario.flags.entry(name).or_default().default = on;
        }
        scenario.seed = self.seed.or(scenario.seed);
        crate::view_in_dashboard(
            &self.screen.look,
            conclave::tui::TuiOptions {
                program: Some(std::sync::Arc::new(program)),
                record: !self.screen.no_record,
                ..conclave::tui::TuiOptions::default()
            },
        )
    }
}
