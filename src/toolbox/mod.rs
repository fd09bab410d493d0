//! `conclave toolbox`: real tools that ship with Conclave, so the examples
//! need nothing outside the repository and anyone can try real workers
//! before writing their own. `serve` is an HTTP tool server on this
//! machine; `inventory` and `echo` are command workers (args as JSON on
//! stdin, a JSON object on stdout); `misbehave` is a tool that breaks on
//! purpose (hangs, answers garbage, exits mid-call), to watch the gateway
//! and the panes deal with it. None of it is used by the engine itself.

mod data;
pub mod mcp;
mod serve;

pub use serve::{ServeOptions, serve};

use crate::exit::Exit;
use crate::output;
use serde_json::{Value, json};
use std::io::Read;
use std::path::PathBuf;

/// A command worker's args: the JSON on stdin (`{}` when there is none).
fn read_args() -> Result<Value, String> {
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .map_err(|e| format!("cannot read the args on stdin: {e}"))?;
    if text.trim().is_empty() {
        return Ok(json!({}));
    }
    serde_json::from_str(&text).map_err(|e| format!("the args on stdin are not JSON: {e}"))
}

/// Answer with `answer(args)`, or fail with status 2 and the reason on
/// stderr, as a command worker does.
fn answer_with(answer: impl FnOnce(&Value) -> Value) -> Exit {
    match read_args() {
        Ok(args) => {
            output::document(&answer(&args));
            Exit::Ok
        }
        Err(why) => {
            output::message(&format!("conclave toolbox: {why}"));
            Exit::BadInput
        }
    }
}

/// `conclave toolbox inventory`: the inventory system of the examples,
/// answering after `latency` (a real system takes its time).
pub fn inventory(latency: std::time::Duration) -> Exit {
    answer_with(|args| {
        std::thread::sleep(latency);
        data::inventory(args)
    })
}

/// `conclave toolbox echo`: answers `{"received": <args>}`; with `touch`,
/// first creates that file (to see whether a program ran at all).
pub fn echo(touch: Option<PathBuf>) -> Exit {
    if let Some(path) = touch
        && let Err(e) = std::fs::write(&path, b"ran\n")
    {
        output::message(&format!(
            "conclave toolbox: cannot create {}: {e}",
            path.display()
        ));
        return Exit::Internal;
    }
    answer_with(|args| json!({"received": args}))
}

/// How `conclave toolbox misbehave` breaks (its words are the command
/// line's help).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Misbehaviour {
    /// Never answers (with --child, starts a copy of itself that never
    /// ends either).
    Hang,
    /// Answers text that is not JSON.
    Garbage,
    /// Answers a JSON list instead of an object.
    List,
    /// Answers a JSON object of --bytes bytes.
    Huge,
    /// Writes half an answer and a complaint on stderr, then exits with
    /// status 1.
    Exit,
}

/// Options of `conclave toolbox misbehave`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MisbehaveOptions {
    /// Hang: write this process's id (and its child's) here, one a line.
    pub pid_file: Option<PathBuf>,
    /// Hang: start a child that hangs too.
    pub child: bool,
    /// Huge: the size of the answer.
    pub bytes: usize,
}

pub fn misbehave(how: Misbehaviour, options: &MisbehaveOptions) -> Exit {
    match how {
        Misbehaviour::Hang => hang(options),
        Misbehaviour::Garbage => {
            let _ = read_args();
            output::line("this is not JSON");
            Exit::Ok
        }
        Misbehaviour::List => {
            let _ = read_args();
            output::line("[1, 2, 3]");
            Exit::Ok
        }
        Misbehaviour::Huge => {
            let _ = read_args();
            output::document(&json!({"blob": "x".repeat(options.bytes)}));
            Exit::Ok
        }
        Misbehaviour::Exit => {
            let _ = read_args();
            output::line("{\"price_index\": ");
            output::message("connecting to the pricing database");
            output::message("fatal: the connection was reset mid-query");
            Exit::Internal
        }
    }
}

fn hang(options: &MisbehaveOptions) -> Exit {
    let mut pids = vec![std::process::id().to_string()];
    let mut child = None;
    if options.child {
        let started = std::env::current_exe().and_then(|exe| {
            std::process::Command::new(exe)
                .args(["toolbox", "misbehave", "hang"])
                .stdin(std::process::Stdio::null())
                .spawn()
        });
        match started {
            Ok(c) => {
                pids.push(c.id().to_string());
                child = Some(c);
            }
            Err(e) => output::message(&format!("conclave toolbox: cannot start a child: {e}")),
        }
    }
    if let Some(path) = &options.pid_file
        && let Err(e) = std::fs::write(path, format!("{}\n", pids.join("\n")))
    {
        output::message(&format!(
            "conclave toolbox: cannot write {}: {e}",
            path.display()
        ));
    }
    loop {
        std::thread::sleep(std::time::Duration::from_secs(3600));
        // Keeps the child's handle (and so the child) for as long as this
        // process hangs.
        let _ = &child;
    }
}

/// `conclave toolbox mcp`: the demo MCP server until its client leaves
/// (stdio) or the process is stopped (HTTP).
pub fn mcp_server(http: Option<&str>) -> Exit {
    let runtime = match crate::runtime::start(&mut tokio::runtime::Builder::new_multi_thread()) {
        Ok(runtime) => runtime,
        Err(exit) => return exit,
    };
    match runtime.block_on(mcp::serve(http, &["toolbox", "mcp"])) {
        Ok(()) => Exit::Ok,
        Err(e) => {
            crate::output::message(&format!("conclave toolbox mcp: {e}"));
            Exit::Internal
        }
    }
}
