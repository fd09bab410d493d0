//! `conclave man`: one manual page for the whole command line. clap_mangen
//! writes the title, name, synopsis and description; every command follows
//! with its arguments, then the exit statuses, the environment and the
//! files, so that `man` needs no page per command.

use clap::{Arg, Command};
use clap_mangen::Man;
use roff::{Roff, bold, italic, roman};
use std::io;

/// The definitions every clap_mangen part starts with; the page gives
/// them once, after its title, so that it starts with `.TH`.
const PREAMBLE: [&str; 2] = [".ie \\n(.g .ds Aq \\(aq", ".el .ds Aq '"];

const EXIT_STATUSES: &[(&str, &str)] = &[
    (
        "0",
        "The run finished with status ok (and every other command succeeded).",
    ),
    (
        "1",
        "An internal error, output that could not be written, or a recording that could not be written.",
    ),
    (
        "2",
        "A bad scenario, a bad argument or a path that cannot be used; the message names the file and the place. An --answer (or --decide) that no question of the scenario takes is one: the message names the options.",
    ),
    (
        "3",
        "The run stopped with another stop reason than success.",
    ),
    ("141", "Whatever read the output went away."),
    (
        "128+N",
        "The dashboard ended on signal N (SIGHUP, SIGINT, SIGTERM) after giving the terminal back.",
    ),
];

const ENVIRONMENT: &[(&str, &str)] = &[
    (
        "OPENAI_API_KEY",
        "The key for an OpenAI-compatible endpoint; never written to a recording or a log.",
    ),
    (
        "OPENAI_BASE_URL",
        "The endpoint's address when --base-url is not given.",
    ),
    (
        "OPENAI_MODEL",
        "The model when neither --model nor the scenario's provider.model names one.",
    ),
    (
        "OPENAI_TIMEOUT_SECONDS",
        "How long one model call may take when the scenario sets no timeout, 60 by default.",
    ),
    (
        "CONCLAVE_THEME",
        "The dashboard's colours when --theme is not given: default or high-contrast.",
    ),
    (
        "NO_COLOR",
        "When set, the dashboard sends no colour; the focused pane stays bold and the selection in reverse video.",
    ),
    (
        "CONCLAVE_MAX_SCENARIO_BYTES",
        "The largest scenario file read, 64 MiB by default.",
    ),
    (
        "CONCLAVE_MAX_BODY_BYTES",
        "The largest model response body read, 8 MiB by default.",
    ),
    (
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        "The OTLP collector's base URL; setting it (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) turns export on without --otlp.",
    ),
    (
        "OTEL_EXPORTER_OTLP_PROTOCOL",
        "http/protobuf (the default) or http/json.",
    ),
    (
        "OTEL_EXPORTER_OTLP_HEADERS",
        "Headers sent with every export, key=value,key2=value2; the values are secrets, scrubbed everywhere else.",
    ),
    (
        "OTEL_SERVICE_NAME",
        "The service name on the traces, conclave by default.",
    ),
    (
        "OTEL_BSP_SCHEDULE_DELAY",
        "Milliseconds between batches of spans, 5000 by default.",
    ),
    (
        "CONCLAVE_MAX_SWEEP_RUNS",
        "The most runs a sweep may have (seeds times flag combinations), 1000000 by default.",
    ),
    (
        "CONCLAVE_NATS_OUTAGE_SECONDS",
        "How long a sweep on NATS waits for a server it lost before it stops with the runs it gathered, 30 by default.",
    ),
    (
        "OTEL_EXPORTER_OTLP_TIMEOUT",
        "Milliseconds one OTLP request, and the flush when a command ends, may take (10 s and 1 s when unset).",
    ),
    (
        "XDG_STATE_HOME",
        "Where the dashboard keeps its recordings (conclave/runs/ under it, else ~/.local/state).",
    ),
];

/// A part of the page clap_mangen writes.
type Part = fn(&Man, &mut dyn io::Write) -> io::Result<()>;

/// The page for `cmd`, roff source.
pub(crate) fn page(mut cmd: Command) -> io::Result<String> {
    cmd.build();
    let man = Man::new(cmd.clone());
    let mut out = String::new();
    let parts: [Part; 4] = [
        Man::render_title,
        Man::render_name_section,
        Man::render_synopsis_section,
        Man::render_description_section,
    ];
    for (i, render) in parts.into_iter().enumerate() {
        let mut part = Vec::new();
        render(&man, &mut part)?;
        out.push_str(&without_preamble(&String::from_utf8_lossy(&part)));
        if i == 0 {
            for line in PREAMBLE {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    let mut roff = Roff::new();
    roff.control("PP", []);
    roff.text([roman(
        "Without a command it opens the dashboard on the scenario picker (the files in ./scenarios).",
    )]);
    roff.control("SH", ["COMMANDS"]);
    for sub in cmd.get_subcommands_mut().filter(|s| s.get_name() != "help") {
        command(&mut roff, sub);
    }
    list(&mut roff, "EXIT STATUS", EXIT_STATUSES);
    keys(&mut roff);
    list(&mut roff, "ENVIRONMENT", ENVIRONMENT);
    roff.control("SH", ["FILES"]);
    roff.text([
        italic("$XDG_STATE_HOME/conclave/runs/"),
        roman(" holds a JSONL recording of every run the dashboard launches; "),
        bold("conclave replay"),
        roman(" and "),
        bold("conclave compare"),
        roman(" read them."),
    ]);
    out.push_str(&without_preamble(&roff.render()));
    Ok(out)
}

/// One command: its usage, what it does, and each of its arguments.
fn command(roff: &mut Roff, cmd: &mut Command) {
    let usage = cmd.render_usage().to_string();
    roff.control("TP", []);
    roff.text([bold(usage.trim_start_matches("Usage: ").trim())]);
    if let Some(about) = cmd.get_about() {
        roff.text([roman(about.to_string())]);
    }
    let args: Vec<&Arg> = cmd
        .get_arguments()
        .filter(|a| !a.is_hide_set() && a.get_id() != "help")
        .collect();
    if args.is_empty() {
        return;
    }
    roff.control("RS", []);
    for arg in args {
        roff.control("TP", []);
        roff.text([bold(written(arg))]);
        if let Some(help) = arg.get_help() {
            roff.text([roman(help.to_string())]);
        }
    }
    roff.control("RE", []);
}

/// An argument as typed: `--seed <SEED>`, `--clock virtual|real`, `<A>`.
fn written(arg: &Arg) -> String {
    let values: Vec<String> = arg
        .get_possible_values()
        .iter()
        .filter(|v| !v.is_hide_set())
        .map(|v| v.get_name().to_string())
        .collect();
    let names: Vec<String> = arg
        .get_value_names()
        .map(|names| names.iter().map(|n| format!("<{n}>")).collect())
        .unwrap_or_else(|| vec![format!("<{}>", arg.get_id().as_str().to_uppercase())]);
    let value = if values.is_empty() {
        names.join(" ")
    } else {
        values.join("|")
    };
    let takes_value = arg.get_num_args().is_some_and(|n| n.takes_values());
    match (arg.get_long(), arg.get_short()) {
        (Some(long), _) if takes_value => format!("--{long} {value}"),
        (Some(long), _) => format!("--{long}"),
        (None, Some(short)) if takes_value => format!("-{short} {value}"),
        (None, Some(short)) => format!("-{short}"),
        (None, None) if values.is_empty() => value,
        (None, None) => format!("<{}> {value}", arg.get_id().as_str().to_uppercase()),
    }
}

/// The dashboard's keys, from the table its help shows (`?`).
fn keys(roff: &mut Roff) {
    roff.control("SH", ["KEYS"]);
    roff.text([roman(
        "The dashboard's keys, as its help (?) lists them, by where they apply.",
    )]);
    for (title, keys) in conclave::tui::key_table() {
        roff.control("SS", [title]);
        for (key, what) in keys {
            roff.control("TP", []);
            roff.text([bold(spelled(key))]);
            roff.text([roman(spelled(what))]);
        }
    }
}

/// `text` in ASCII, which every man reader renders: the arrow keys by
/// their names.
fn spelled(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '←' => "Left".to_string(),
            '→' => "Right".to_string(),
            '↑' => "Up".to_string(),
            '↓' => "Down".to_string(),
            c if c.is_ascii() => c.to_string(),
            c => format!("U+{:04X}", u32::from(c)),
        })
        .collect()
}

fn list(roff: &mut Roff, title: &str, items: &[(&str, &str)]) {
    roff.control("SH", [title]);
    for (name, text) in items {
        roff.control("TP", []);
        roff.text([bold(*name)]);
        roff.text([roman(*text)]);
    }
}

fn without_preamble(text: &str) -> String {
    text.lines()
        .filter(|line| !PREAMBLE.contains(line))
        .map(|line| format!("{line}\n"))
        .collect()
}
