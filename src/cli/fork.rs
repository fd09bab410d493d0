//! The arguments of `conclave fork`: a recorded run, served from its
//! recording up to a gate and live from there with changes.

use super::{AnswerArgs, ExecArgs, ModelArgs, OtlpArgs, ScreenArgs, parse_flag};
use clap::Args;
use std::path::PathBuf;

/// `--output` edits a node's recorded output here, so the output mode is
/// set only as `--output-mode`, the name every command also takes.
#[derive(Args, Debug)]
#[command(mut_arg("output", |arg| arg.long("output-mode").visible_alias(None)))]
#[command(mut_arg("answer", |arg| arg.value_name("OPTION|FILE").help(
    "Answer in advance the run's question with OPTION, as run --answer does. For a launched \
     program's recording, FILE: the answer of the call --at names, whole, as `conclave replay \
     REC --answer N` prints it (edited)")))]
pub(crate) struct ForkCommand {
    /// The recording to fork (JSONL, as --record or the dashboard writes it).
    pub(crate) recording: PathBuf,
    /// The gate to go live at, as the replay timeline names it ("round 3",
    /// "wave 2", "turn 5", "step 4"), or an event number ("#120"), rounded
    /// down to the gate before that event. For a launched program's
    /// recording, the model call: "model call N" (or "call N", "call:N").
    #[arg(long, value_name = "GATE")]
    pub(crate) at: String,
    /// A launched program's fork: send the call --at names to the
    /// upstream (the default, without --answer FILE).
    #[arg(long, conflicts_with = "answer")]
    pub(crate) live: bool,
    /// A launched program's fork: where the calls made live go, over the
    /// recorded run's upstream (its base URL, with its /v1).
    #[arg(long, value_name = "URL", value_parser = super::parse::parse_base_url)]
    pub(crate) upstream: Option<String>,
    /// A launched program's fork: the environment variable holding the
    /// upstream's key, over the recorded run's.
    #[arg(long, value_name = "VAR")]
    pub(crate) upstream_key_env: Option<String>,
    /// Set a flag at the gate, e.g. --flag legal_analyst=on (repeatable).
    #[arg(long = "flag", value_name = "NAME=on|off", value_parser = parse_flag)]
    pub(crate) flags: Vec<(String, bool)>,
    /// Replace the goal of the calls made live.
    #[arg(long, value_name = "TEXT")]
    pub(crate) goal: Option<String>,
    // Given, the fork answers the run's question with it rather than as
    // the person did in the recorded run (whose answer a fork gives again
    // by default).
    #[command(flatten)]
    pub(crate) answer: AnswerArgs,
    /// Serve a node's recorded output changed, e.g. --output
    /// review:/verdict=approve: its last answer before the gate, with the
    /// value at the JSON Pointer set (read as JSON, else as a string).
    /// Repeatable.
    #[arg(long = "output", value_name = "NODE:/POINTER=VALUE")]
    pub(crate) outputs: Vec<conclave::cassette::OutputEdit>,
    /// Seed of the fork's random choices (the recorded run's by default).
    #[arg(long)]
    pub(crate) seed: Option<u64>,
    /// Record every event of the fork to this new JSONL file (a file there
    /// already is refused, never written over).
    #[arg(long, value_name = "FILE.jsonl")]
    pub(crate) record: Option<PathBuf>,
    /// Print the fork's result as one JSON document instead of opening the
    /// dashboard.
    #[arg(long)]
    pub(crate) headless: bool,
    /// The fork's clock with --headless: virtual (instant and
    /// reproducible; the default on the sim) or real, as the dashboard
    /// forks. On the real clock the served part still takes no time.
    #[arg(long, value_enum, requires = "headless")]
    pub(crate) clock: Option<super::run::Clock>,
    #[command(flatten)]
    pub(crate) model: ModelArgs,
    #[command(flatten)]
    pub(crate) screen: ScreenArgs,
    #[command(flatten)]
    pub(crate) exec: ExecArgs,
    #[command(flatten)]
    pub(crate) otlp: OtlpArgs,
}
