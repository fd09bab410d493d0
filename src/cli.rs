//! The command line's shape: every command, argument and option, with
//! the parsers that turn an argument into a value or a usage error.

use clap::{Args, Parser, Subcommand, ValueEnum};
use conclave::engine::ProviderChoice;
use conclave::exit::Exit;
use conclave::output;
use conclave::scenario::{PriceTable, ProviderKind};
use conclave::tui::theme::{Theme, ThemeName};
use std::path::PathBuf;

mod answer;
mod fork;
mod knobs;
pub(crate) mod launch;
mod outlets;
mod parse;
mod probe;
mod run;
mod sweep;
mod watch;

pub(crate) use answer::AnswerArgs;
pub(crate) use fork::ForkCommand;
pub(crate) use knobs::KnobArgs;
pub(crate) use launch::LaunchCommand;
pub(crate) use outlets::{NatsArgs, OtlpArgs, PublishArgs, parse_nats_url};
pub(crate) use parse::{
    existing_folder, parse_base_url, parse_flag, parse_flag_values, parse_seeds, parse_threads,
    pricing_file,
};
pub(crate) use probe::ProbeCommand;
pub(crate) use run::{RunCommand, TuiCommand, choice};
pub(crate) use sweep::{SweepCommand, WorkerCommand};
pub(crate) use watch::WatchCommand;

/// A terminal dashboard and engine for multi-agent runs. Without a command
/// it opens the dashboard on the scenario picker.
#[derive(Parser, Debug)]
#[command(name = "conclave", version, about)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Option<Command>,
}

#[derive(Subcommand, Debug)]
pub(crate) enum Command {
    /// Open the dashboard, launching SCENARIO at once if given.
    Tui(TuiCommand),
    /// Run a scenario: in the dashboard, or with --headless print its result.
    Run(RunCommand),
    /// Watch the live runs of every engine that publishes to a NATS server
    /// (started with --nats), in the dashboard; pause, step and flag them.
    Attach {
        /// The NATS server with JetStream the engines publish to, e.g.
        /// nats://127.0.0.1:4222.
        #[arg(long, value_name = "URL", value_parser = parse_nats_url)]
        nats: String,
        #[command(flatten)]
        look: LookArgs,
    },
    /// Replay a recording in the dashboard, or with --headless print its result.
    Replay {
        /// The recording (JSONL, as --record or the dashboard writes it).
        recording: PathBuf,
        /// Print the run's result on stdout and a line per round or step on stderr.
        #[arg(long)]
        headless: bool,
        /// A launched run's recording: print model call N's answer whole
        /// (a stream folded into the answer it makes), the file `conclave
        /// fork --answer` takes once edited.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
        answer: Option<u64>,
        #[command(flatten)]
        look: LookArgs,
    },
    /// Watch other frameworks' runs live: receive their OpenTelemetry
    /// traces (OTLP over HTTP and gRPC) and show each trace as a run, in
    /// the dashboard or with --headless as one JSON line per finished run.
    Watch(WatchCommand),
    /// Launch another framework's program as a run: its spans, steering,
    /// model calls and output joined to one run, in the dashboard or with
    /// --headless as one JSON document (conclave launch --headless -- python app.py).
    Launch(LaunchCommand),
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
    /// Run a recorded run again from one of its gates: the calls before it
    /// served from the recording, the rest live with other flags, goal,
    /// model or seed.
    Fork(ForkCommand),
    /// Run a scenario under every seed of a range and every combination of
    /// flag values, on the virtual clock, on all cores; show the outcomes per
    /// combination in the dashboard, or with --headless print them as one JSON
    /// document.
    Sweep(SweepCommand),
    /// Run sweep jobs from a NATS server (JetStream) until stopped: each
    /// job's result is published, then the job acknowledged.
    Worker(WorkerCommand),
    /// Send an OpenAI-compatible endpoint a handful of tiny requests and
    /// print what it accepts and refuses, the mode auto settles on and each
    /// request's latency; --write keeps it as a profile a run starts from.
    Probe(ProbeCommand),
    /// Check scenario files and report every error.
    Validate {
        /// The scenario files to check.
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
    },
    /// Send a recorded run as an OpenTelemetry trace over OTLP/HTTP, as
    /// --otlp sends a live one.
    Export {
        /// The recording (JSONL, as --record or the dashboard writes it).
        recording: PathBuf,
        #[command(flatten)]
        otlp: OtlpArgs,
    },
    /// Print the JSON Schema of scenario files.
    Schema {
        /// The schema of program scenarios ("pattern": "program",
        /// docs/launch.md) instead.
        #[arg(long)]
        program: bool,
    },
    /// Print a completion script for a shell, e.g. conclave completions bash > /etc/bash_completion.d/conclave.
    Completions {
        #[arg(value_enum)]
        shell: Shell,
    },
    /// Print the man page (roff) on stdout, e.g. conclave man | man -l -.
    Man,
    /// Real tools that ship with Conclave, for the examples and for trying
    /// real workers: an HTTP tool server and command workers.
    Toolbox {
        #[command(subcommand)]
        tool: ToolboxCommand,
    },
}

/// The shells completions are printed for.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub(crate) enum Shell {
    Bash,
    Zsh,
    Fish,
}

#[derive(Subcommand, Debug)]
pub(crate) enum ToolboxCommand {
    /// Serve /pricing, /inventory and /echo over HTTP on this machine
    /// (POST a JSON body or GET a query); prints its address.
    Serve {
        /// The port to listen on; 0 picks a free one.
        #[arg(long, default_value_t = 8787)]
        port: u16,
        /// The address to listen on.
        #[arg(long, default_value = "127.0.0.1")]
        host: std::net::IpAddr,
        /// /pricing answers HTTP 500 to this many calls first.
        #[arg(long, value_name = "N", default_value_t = 0)]
        fail_first: u64,
        /// How long each answer takes, in milliseconds.
        #[arg(long, value_name = "MS", default_value_t = 0)]
        latency_ms: u64,
    },
    /// A command worker: the args as JSON on stdin, the inventory of their
    /// report_date and region on stdout.
    Inventory {
        /// How long it takes to answer, in milliseconds.
        #[arg(long, value_name = "MS", default_value_t = 0)]
        latency_ms: u64,
    },
    /// A command worker that answers {"received": <its args>}.
    Echo {
        /// Create this file first (to see whether the program ran).
        #[arg(long, value_name = "FILE")]
        touch: Option<PathBuf>,
    },
    /// A small MCP server (a payments knowledge base: search, lookup, and
    /// tools that fail on purpose) over stdio, or over streamable HTTP.
    Mcp {
        /// Serve streamable HTTP at this address (e.g. 127.0.0.1:0; the
        /// endpoint is printed first) instead of stdio.
        #[arg(long, value_name = "ADDRESS")]
        http: Option<String>,
    },
    /// A command worker that breaks on purpose, to watch what the gateway
    /// does with it.
    Misbehave {
        #[arg(value_enum)]
        how: conclave::toolbox::Misbehaviour,
        /// hang: write this process's id (and its child's) to FILE.
        #[arg(long, value_name = "FILE")]
        pid_file: Option<PathBuf>,
        /// hang: start a child that hangs too.
        #[arg(long)]
        child: bool,
        /// huge: the size of the answer in bytes.
        #[arg(long, default_value_t = 16 * 1024 * 1024)]
        bytes: usize,
    },
}

/// Consent to run the programs a scenario names.
#[derive(Args, Debug, Default)]
pub(crate) struct ExecArgs {
    /// Let the scenario start the programs it names (command workers, MCP
    /// servers); remembered for this file where it is and the programs it
    /// runs as they are now, under $XDG_STATE_HOME/conclave/trust/.
    #[arg(long)]
    pub(crate) allow_exec: bool,
}

/// Options of the dashboard.
#[derive(Args, Debug, Default)]
pub(crate) struct ScreenArgs {
    /// Do not record runs (the dashboard records each run under
    /// $XDG_STATE_HOME/conclave/runs/ by default).
    #[arg(long)]
    pub(crate) no_record: bool,
    /// Hold runs at their first gate until resumed (space) or stepped (s).
    #[arg(long)]
    pub(crate) paused: bool,
    #[command(flatten)]
    pub(crate) look: LookArgs,
}

/// How the dashboard looks.
#[derive(Args, Debug, Default)]
pub(crate) struct LookArgs {
    /// The colour theme: default or high-contrast (over CONCLAVE_THEME;
    /// NO_COLOR keeps bold and reverse video but drops colours).
    #[arg(long, value_name = "NAME")]
    pub(crate) theme: Option<ThemeName>,
}

impl LookArgs {
    /// The theme chosen here or in the environment; an unknown name in
    /// CONCLAVE_THEME is the user's to fix.
    pub(crate) fn theme(&self) -> Result<Theme, Exit> {
        Theme::chosen(self.theme, |name| std::env::var(name).ok()).map_err(|e| {
            output::message(&format!("conclave: {e}"));
            Exit::BadInput
        })
    }
}

/// The model behind the runs, over each scenario's `provider`.
#[derive(Args, Debug, Default)]
pub(crate) struct ModelArgs {
    /// The model provider: the embedded simulation or an OpenAI-compatible
    /// endpoint (key from OPENAI_API_KEY, address from OPENAI_BASE_URL).
    #[arg(long, value_enum)]
    pub(crate) provider: Option<ProviderArg>,
    /// The model name sent to the endpoint.
    #[arg(long, value_name = "M")]
    pub(crate) model: Option<String>,
    /// The endpoint's base URL, e.g. http://localhost:11434/v1 for Ollama.
    #[arg(long, value_name = "URL", value_parser = parse_base_url)]
    pub(crate) base_url: Option<String>,
    /// A folder of prompt templates over the compiled-in ones.
    #[arg(long, value_name = "DIR", value_parser = existing_folder)]
    pub(crate) prompts: Option<PathBuf>,
    /// Prices of models in USD per million tokens, {"<model>": {"input": 0.4, "output": 1.6}},
    /// over the scenario's provider.pricing and the compiled-in prices.
    #[arg(long, value_name = "FILE", value_parser = pricing_file)]
    pub(crate) pricing: Option<PriceTable>,
    /// Ask the endpoint for whole answers instead of streaming them (the
    /// dashboard then shows no text until each call finishes).
    #[arg(long)]
    pub(crate) no_stream: bool,
    #[command(flatten)]
    pub(crate) knobs: KnobArgs,
}

impl ModelArgs {
    pub(crate) fn choice(self) -> ProviderChoice {
        ProviderChoice {
            kind: self.provider.map(|kind| match kind {
                ProviderArg::Sim => ProviderKind::Sim,
                ProviderArg::Openai => ProviderKind::Openai,
            }),
            model: self.model,
            base_url: self.base_url,
            prompts: self.prompts,
            pricing: self.pricing,
            no_stream: self.no_stream,
            knobs: self.knobs.knobs(),
            endpoint_profile: None,
        }
    }
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub(crate) enum ProviderArg {
    Sim,
    Openai,
}
