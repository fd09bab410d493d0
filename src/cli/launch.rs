//! `conclave launch [options] -- PROGRAM [ARGS…]`: a program launched as
//! a run without a scenario file, in the dashboard or `--headless`.

use super::{parse_flag, pricing_file};
use clap::Args;
use conclave::exit::Exit;
use conclave::launch::{HeadlessLaunch, LaunchSettings, Recording};
use conclave::output;
use conclave::scenario::PriceTable;
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub(crate) struct LaunchCommand {
    /// The program and its arguments, after `--`.
    #[arg(required = true, last = true, value_name = "PROGRAM")]
    pub(crate) command: Vec<String>,
    /// The run's name (default: the program's file name).
    #[arg(long, value_name = "NAME")]
    pub(crate) name: Option<String>,
    /// Print the run's result as one JSON document when the program ends.
    #[arg(long)]
    pub(crate) headless: bool,
    /// A flag the program's hook reads, e.g. --flag legal_analyst=on (repeatable).
    #[arg(long = "flag", value_name = "NAME=on|off", value_parser = parse_flag)]
    pub(crate) flags: Vec<(String, bool)>,
    #[arg(long = "break", value_name = "NAME", help = conclave::watch::steer::protocol::BREAK_ARG_HELP)]
    pub(crate) breaks: Vec<String>,
    /// Handed to the program as CONCLAVE_SEED.
    #[arg(long)]
    pub(crate) seed: Option<u64>,
    /// Record the run to this new JSONL file (default: under
    /// $XDG_STATE_HOME/conclave/runs/).
    #[arg(long, value_name = "FILE.jsonl", conflicts_with = "no_record")]
    pub(crate) record: Option<PathBuf>,
    /// Do not record the run.
    #[arg(long)]
    pub(crate) no_record: bool,
    /// Model prices (USD per million tokens) over the compiled-in ones.
    #[arg(long, value_name = "FILE", value_parser = pricing_file)]
    pub(crate) pricing: Option<PriceTable>,
    /// Serve the run's model endpoint, calling this OpenAI-compatible
    /// upstream (its base URL, with its /v1); the program is given the
    /// endpoint in OPENAI_BASE_URL.
    #[arg(long, value_name = "URL", value_parser = super::parse::parse_base_url)]
    pub(crate) upstream: Option<String>,
    /// The environment variable holding the upstream's key.
    #[arg(long, value_name = "VAR", requires = "upstream")]
    pub(crate) upstream_key_env: Option<String>,
    #[command(flatten)]
    pub(crate) budgets: BudgetArgs,
    /// Serve the program's model calls from this recording of its run, in
    /// order, asking nothing of any upstream.
    #[arg(long, value_name = "REC.jsonl")]
    pub(crate) cassette: Option<PathBuf>,
    /// A call the cassette does not hold: stop the run naming the first
    /// difference (stop), or send it to --upstream (live).
    #[arg(long, value_enum, value_name = "stop|live", requires = "cassette")]
    pub(crate) cassette_miss: Option<conclave::cassette::MissPolicy>,
}

/// The budgets of a launched run's model calls through its endpoint.
#[derive(Args, Debug, Default)]
pub(crate) struct BudgetArgs {
    /// Stop the run once its model calls have taken more than N tokens
    /// (input and output); later calls are answered 429.
    #[arg(long, value_name = "N", requires = "upstream", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) max_tokens: Option<u64>,
    /// Stop the run once its model calls have cost more than USD dollars.
    #[arg(long, value_name = "USD", requires = "upstream", value_parser = super::parse::parse_dollars)]
    pub(crate) max_cost: Option<f64>,
    /// Stop the run at its N+1th model call, which is answered 429.
    #[arg(long, value_name = "N", requires = "upstream", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) max_calls: Option<u64>,
}

impl BudgetArgs {
    pub(crate) fn budgets(&self) -> conclave::watch::start::Budgets {
        conclave::watch::start::Budgets {
            max_tokens: self.max_tokens,
            max_cost_usd: self.max_cost,
            max_calls: self.max_calls,
        }
    }
}

/// Where `--record` and `--no-record` say a launched run goes.
pub(crate) fn recording(record: Option<PathBuf>, no_record: bool) -> Recording {
    match (record, no_record) {
        (_, true) => Recording::Off,
        (Some(path), false) => Recording::To(path),
        (None, false) => Recording::Default,
    }
}

/// The cassette `--cassette PATH` names, loaded for a program whose
/// scenario names a model (`has_model`); said on stderr and exit 2 when it
/// cannot serve (a live miss with nowhere to go included).
pub(crate) fn cassette_of(
    path: Option<&Path>,
    miss: Option<conclave::cassette::MissPolicy>,
    has_model: bool,
) -> Result<Option<conclave::launch::LaunchCassette>, Exit> {
    let Some(path) = path else {
        return Ok(None);
    };
    if !has_model {
        output::message(&format!(
            "conclave: --cassette {}: the program's scenario names no `model`: a cassette \
             serves the model calls a launched program makes through its run's endpoint",
            path.display()
        ));
        return Err(Exit::BadInput);
    }
    let miss = miss.unwrap_or_default();
    conclave::launch::LaunchCassette::load(path, miss)
        .map(Some)
        .map_err(|why| {
            output::message(&format!("conclave: --cassette: {why}"));
            Exit::BadInput
        })
}

/// The program scenario at `path`, when the file is one: loaded, or the
/// exit its errors give (said on stderr).
pub(crate) fn program_at(path: &Path) -> Option<Result<conclave::launch::LoadedProgram, Exit>> {
    conclave::launch::sniff(path).map(|loaded| {
        loaded.map_err(|errors| {
            output::message(&errors.to_string());
            Exit::BadInput
        })
    })
}

impl LaunchCommand {
    /// `conclave launch`: the command line as a program scenario.
    pub(crate) fn run(self) -> Exit {
        let live = self.cassette_miss == Some(conclave::cassette::MissPolicy::Live);
        if live && self.upstream.is_none() {
            output::message(
                "conclave launch: --cassette-miss live sends a missed call to --upstream; name one",
            );
            return Exit::BadInput;
        }
        let cassette = match cassette_of(self.cassette.as_deref(), self.cassette_miss, true) {
            Ok(cassette) => cassette,
            Err(exit) => return exit,
        };
        // Served from a cassette alone, the run's endpoint has no upstream.
        let upstream = self
            .upstream
            .or_else(|| cassette.as_ref().map(|_| String::new()));
        let program = match conclave::launch::prepare::from_command_line(&self.command, self.name) {
            Ok(mut program) => {
                program.scenario.model =
                    upstream.map(|upstream| conclave::launch::scenario::ModelEndpoint {
                        upstream,
                        key_env: self.upstream_key_env,
                        max_tokens: None,
                        max_cost_usd: None,
                        max_calls: None,
                    });
                program
            }
            Err(errors) => {
                output::message(&errors.to_string());
                return Exit::BadInput;
            }
        };
        let settings = LaunchSettings {
            flags: self.flags,
            seed: self.seed,
            prices: self.pricing,
            record: None,
            announce: true,
            breaks: self.breaks,
            budgets: self.budgets.budgets(),
            cassette,
            forked_from: None,
        };
        if !self.headless {
            output::message(
                "conclave launch: the dashboard does not launch programs yet; use --headless",
            );
            return Exit::BadInput;
        }
        conclave::launch::headless(HeadlessLaunch {
            program,
            settings,
            recording: recording(self.record, self.no_record),
        })
    }
}
