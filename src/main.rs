//! The `conclave` command line: parses arguments and calls the library.

use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};
use conclave::bus::ClockMode;
use conclave::engine::ProviderChoice;
use conclave::exit::Exit;
use conclave::headless::{self, HeadlessRun};
use conclave::output;
use conclave::scenario::ProviderKind;
use conclave::tui::theme::{Theme, ThemeName};
use conclave::tui::{self, TuiOptions, app::Overrides};
use std::path::PathBuf;
use std::process::ExitCode;

mod man;

// jemalloc keeps the recorder's frees of events allocated on the engine's
// thread off the engine's path (glibc's arenas serialise them).
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// A terminal dashboard and engine for multi-agent runs. Without a command
/// it opens the dashboard on the scenario picker.
#[derive(Parser, Debug)]
#[command(name = "conclave", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Open the dashboard, launching SCENARIO at once if given.
    Tui {
        /// The scenario file.
        scenario: Option<PathBuf>,
        #[command(flatten)]
        model: ModelArgs,
        #[command(flatten)]
        screen: ScreenArgs,
    },
    /// Run a scenario: in the dashboard, or with --headless print its result.
    Run {
        /// The scenario file.
        scenario: PathBuf,
        /// Print the result as one JSON document instead of opening the dashboard.
        #[arg(long)]
        headless: bool,
        /// Seed of the run's random choices (overrides the scenario's).
        #[arg(long)]
        seed: Option<u64>,
        /// The engine's clock: virtual (instant and reproducible; the default headless) or real.
        #[arg(long, value_enum)]
        clock: Option<Clock>,
        /// Set a flag at launch, e.g. --flag legal_analyst=on (repeatable).
        #[arg(long = "flag", value_name = "NAME=on|off", value_parser = parse_flag)]
        flags: Vec<(String, bool)>,
        /// Record every event of the run to this JSONL file (its folder must exist).
        #[arg(long, value_name = "FILE.jsonl", conflicts_with = "no_record")]
        record: Option<PathBuf>,
        /// Replace the scenario's goal.
        #[arg(long, value_name = "TEXT")]
        goal: Option<String>,
        #[command(flatten)]
        model: ModelArgs,
        #[command(flatten)]
        screen: ScreenArgs,
    },
    /// Replay a recording in the dashboard, or with --headless print its result.
    Replay {
        /// The recording (JSONL, as --record or the dashboard writes it).
        recording: PathBuf,
        /// Print the run's result on stdout and a line per round or step on stderr.
        #[arg(long)]
        headless: bool,
        #[command(flatten)]
        look: LookArgs,
    },
    /// Compare two recorded runs side by side and name the first event
    /// where they diverge.
    Compare {
        /// The first recording (A).
        a: PathBuf,
        /// The second recording (B).
        b: PathBuf,
        /// Print the differences as one JSON document instead of opening the dashboard.
        #[arg(long)]
        headless: bool,
    },
    /// Check scenario files and report every error.
    Validate {
        /// The scenario files to check.
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
    },
    /// Print the JSON Schema of scenario files.
    Schema,
    /// Print a completion script for a shell, e.g. conclave completions bash > /etc/bash_completion.d/conclave.
    Completions {
        #[arg(value_enum)]
        shell: Shell,
    },
    /// Print the man page (roff) on stdout, e.g. conclave man | man -l -.
    Man,
}

/// The shells completions are printed for.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum Shell {
    Bash,
    Zsh,
    Fish,
}

/// Options of the dashboard.
#[derive(Args, Debug, Default)]
struct ScreenArgs {
    /// Do not record runs (the dashboard records each run under
    /// $XDG_STATE_HOME/conclave/runs/ by default).
    #[arg(long)]
    no_record: bool,
    /// Hold runs at their first gate until resumed (space) or stepped (s).
    #[arg(long)]
    paused: bool,
    #[command(flatten)]
    look: LookArgs,
}

/// How the dashboard looks.
#[derive(Args, Debug, Default)]
struct LookArgs {
    /// The colour theme: default or high-contrast (over CONCLAVE_THEME;
    /// NO_COLOR keeps bold and reverse video but drops colours).
    #[arg(long, value_name = "NAME")]
    theme: Option<ThemeName>,
}

impl LookArgs {
    /// The theme chosen here or in the environment; an unknown name in
    /// CONCLAVE_THEME is the user's to fix.
    fn theme(&self) -> Result<Theme, Exit> {
        Theme::chosen(self.theme, |name| std::env::var(name).ok()).map_err(|e| {
            output::message(&format!("conclave: {e}"));
            Exit::BadInput
        })
    }
}

/// The model behind the runs, over each scenario's `provider`.
#[derive(Args, Debug, Default)]
struct ModelArgs {
    /// The model provider: the embedded simulation or an OpenAI-compatible
    /// endpoint (key from OPENAI_API_KEY, address from OPENAI_BASE_URL).
    #[arg(long, value_enum)]
    provider: Option<ProviderArg>,
    /// The model name sent to the endpoint.
    #[arg(long, value_name = "M")]
    model: Option<String>,
    /// The endpoint's base URL, e.g. http://localhost:11434/v1 for Ollama.
    #[arg(long, value_name = "URL", value_parser = parse_base_url)]
    base_url: Option<String>,
    /// A folder of prompt templates over the compiled-in ones.
    #[arg(long, value_name = "DIR", value_parser = existing_folder)]
    prompts: Option<PathBuf>,
    /// Ask the endpoint for whole answers instead of streaming them (the
    /// dashboard then shows no text until each call finishes).
    #[arg(long)]
    no_stream: bool,
}

impl ModelArgs {
    fn choice(self) -> ProviderChoice {
        ProviderChoice {
            kind: self.provider.map(|kind| match kind {
                ProviderArg::Sim => ProviderKind::Sim,
                ProviderArg::Openai => ProviderKind::Openai,
            }),
            model: self.model,
            base_url: self.base_url,
            prompts: self.prompts,
            no_stream: self.no_stream,
        }
    }
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum ProviderArg {
    Sim,
    Openai,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Clock {
    Virtual,
    Real,
}

/// `--base-url` is checked as it is parsed, so that a malformed one is
/// refused before any dashboard or run starts.
fn parse_base_url(text: &str) -> Result<String, String> {
    use conclave::provider::openai;
    openai::base_url(text).map_err(|problem| format!("{}; {problem}", openai::BASE_URL_EXPECTED))
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

/// A folder the user named, refused at once (exit 2) when it is not one,
/// rather than when the first prompt is needed or never (with the sim).
fn existing_folder(text: &str) -> Result<PathBuf, String> {
    let path = PathBuf::from(text);
    match std::fs::metadata(&path) {
        Ok(meta) if meta.is_dir() => Ok(path),
        Ok(_) => Err(format!("{text} is not a folder")),
        Err(e) => Err(format!("cannot open the folder {text}: {e}")),
    }
}

fn dashboard(
    scenario: Option<PathBuf>,
    screen: ScreenArgs,
    overrides: Overrides,
    provider: ProviderChoice,
) -> Exit {
    let theme = match screen.look.theme() {
        Ok(theme) => theme,
        Err(exit) => return exit,
    };
    tui::run(TuiOptions {
        scenario,
        overrides,
        record: !screen.no_record,
        start_paused: screen.paused,
        provider,
        theme,
        ..TuiOptions::default()
    })
}

fn main() -> ExitCode {
    let _ = color_eyre::install();
    // Help, the version and clap's own errors (which quote the arguments)
    // go through the same output as every command, without colour.
    let exit = match Cli::try_parse() {
        Ok(cli) => command(cli),
        Err(e) if !e.use_stderr() => {
            output::line(e.render().to_string().trim_end_matches('\n'));
            Exit::Ok
        }
        Err(e) => {
            output::message(e.render().to_string().trim_end_matches('\n'));
            Exit::BadInput
        }
    };
    output::finish(exit).into()
}

fn command(cli: Cli) -> Exit {
    match cli.command {
        None => dashboard(
            None,
            ScreenArgs::default(),
            Overrides::default(),
            ProviderChoice::default(),
        ),
        Some(Command::Tui {
            scenario,
            model,
            screen,
        }) => dashboard(scenario, screen, Overrides::default(), model.choice()),
        Some(Command::Run {
            scenario,
            headless: false,
            seed,
            flags,
            record,
            goal,
            model,
            screen,
            ..
        }) => dashboard(
            Some(scenario),
            screen,
            Overrides {
                seed,
                flags,
                goal,
                record,
            },
            model.choice(),
        ),
        Some(Command::Run {
            scenario,
            headless: true,
            seed,
            clock,
            flags,
            record,
            goal,
            model,
            ..
        }) => headless::run(HeadlessRun {
            scenario,
            seed,
            clock: clock.map(|clock| match clock {
                Clock::Real => ClockMode::Real,
                Clock::Virtual => ClockMode::Virtual,
            }),
            flags,
            record,
            goal,
            provider: model.choice(),
        }),
        Some(Command::Replay {
            recording,
            headless: true,
            ..
        }) => headless::replay(&recording),
        Some(Command::Replay {
            recording,
            headless: false,
            look,
        }) => match look.theme() {
            Ok(theme) => tui::run(TuiOptions {
                replay: Some(recording),
                theme,
                ..TuiOptions::default()
            }),
            Err(exit) => exit,
        },
        Some(Command::Validate { files }) => headless::validate(&files),
        Some(Command::Schema) => {
            output::document(conclave::scenario::json_schema());
            Exit::Ok
        }
        Some(Command::Compare {
            a,
            b,
            headless: true,
        }) => headless::compare(&a, &b),
        Some(Command::Compare {
            a,
            b,
            headless: false,
        }) => tui::run(TuiOptions {
            compare: Some((a, b)),
            ..TuiOptions::default()
        }),
        Some(Command::Completions { shell }) => {
            let shell = match shell {
                Shell::Bash => clap_complete::Shell::Bash,
                Shell::Zsh => clap_complete::Shell::Zsh,
                Shell::Fish => clap_complete::Shell::Fish,
            };
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "conclave", &mut script);
            print_text(&script)
        }
        Some(Command::Man) => match man::page(Cli::command()) {
            Ok(page) => print_text(page.as_bytes()),
            Err(e) => {
                output::message(&format!("conclave: cannot write the man page: {e}"));
                Exit::Internal
            }
        },
    }
}

/// Generated text (a completion script, a man page) on stdout.
fn print_text(text: &[u8]) -> Exit {
    output::line(String::from_utf8_lossy(text).trim_end_matches('\n'));
    Exit::Ok
}
