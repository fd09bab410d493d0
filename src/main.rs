//! The `conclave` command line: parses arguments and calls the library.

use clap::{Parser, Subcommand, ValueEnum};
use conclave::bus::ClockMode;
use conclave::headless::{self, Exit, HeadlessRun};
use std::path::PathBuf;
use std::process::ExitCode;

// jemalloc keeps the recorder's frees of events allocated on the engine's
// thread off the engine's path (glibc's arenas serialise them).
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// A terminal dashboard and engine for multi-agent runs.
#[derive(Parser, Debug)]
#[command(name = "conclave", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run a scenario.
    Run {
        /// The scenario file.
        scenario: PathBuf,
        /// Print the result as one JSON document instead of opening the dashboard.
        #[arg(long)]
        headless: bool,
        /// Seed of the run's random choices (overrides the scenario's).
        #[arg(long)]
        seed: Option<u64>,
        /// The engine's clock: virtual (instant and reproducible; the default headless on the sim) or real.
        #[arg(long, value_enum)]
        clock: Option<Clock>,
        /// Set a flag at launch, e.g. --flag legal_analyst=on (repeatable).
        #[arg(long = "flag", value_name = "NAME=on|off", value_parser = parse_flag)]
        flags: Vec<(String, bool)>,
        /// Record every event to this JSONL file.
        #[arg(long, value_name = "FILE.jsonl")]
        record: Option<PathBuf>,
        /// Replace the scenario's goal.
        #[arg(long, value_name = "TEXT")]
        goal: Option<String>,
    },
    /// Check scenario files and report every error.
    Validate {
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
    },
    /// Print the JSON Schema of scenario files.
    Schema,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Clock {
    Virtual,
    Real,
}

fn parse_flag(text: &str) -> Result<(String, bool), String> {
    let (name, state) = text
        .split_once('=')
        .ok_or_else(|| format!("expected NAME=on or NAME=off, found {text:?}"))?;
    let on = match state {
        "on" | "true" | "1" => true,
        "off" | "false" | "0" => false,
        other => return Err(format!("expected on or off after {name}=, found {other:?}")),
    };
    if name.is_empty() {
        return Err("expected a flag name before =".into());
    }
    Ok((name.to_string(), on))
}

const DEFAULT_SCENARIO: &str = "scenarios/checkout_v2_launch.json";

fn main() -> ExitCode {
    let cli = Cli::parse();
    let exit = match cli.command {
        None => headless::run(HeadlessRun {
            scenario: PathBuf::from(DEFAULT_SCENARIO),
            seed: None,
            clock: ClockMode::Virtual,
            flags: Vec::new(),
            record: None,
            goal: None,
        }),
        Some(Command::Run {
            scenario,
            headless: _,
            seed,
            clock,
            flags,
            record,
            goal,
        }) => headless::run(HeadlessRun {
            scenario,
            seed,
            clock: match clock {
                Some(Clock::Real) => ClockMode::Real,
                Some(Clock::Virtual) | None => ClockMode::Virtual,
            },
            flags,
            record,
            goal,
        }),
        Some(Command::Validate { files }) => headless::validate(&files),
        Some(Command::Schema) => {
            match serde_json::to_string_pretty(conclave::scenario::json_schema()) {
                Ok(text) => {
                    println!("{text}");
                    Exit::Ok
                }
                Err(_) => Exit::Internal,
            }
        }
    };
    exit.into()
}
