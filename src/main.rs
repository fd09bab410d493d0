//! The `conclave` command line: parses arguments and calls the library.

use clap::Parser;
use conclave::bus::ClockMode;
use conclave::engine::ProviderChoice;
use conclave::exit::Exit;
use conclave::headless::{self, HeadlessRun};
use conclave::output;
use conclave::tui::{self, TuiOptions, app::Overrides};
use std::path::PathBuf;
use std::process::ExitCode;

mod cli;
#[cfg(test)]
mod doc_snippets;
mod fleet;
mod from_recording;
mod generated;
mod man;

use cli::*;

// mimalloc keeps the recorder's frees of events allocated on the engine's
// thread off the engine's path (glibc's arenas serialise them). It is one
// file of C to build, where jemalloc's configure-and-make held every clean
// build (and CI) up by three minutes; `cargo bench --bench bus` publishes
// within 10% of what it did on jemalloc (docs/development.md).
#[cfg(not(target_env = "msvc"))]
mod allocator;

/// Where a dashboard's runs go besides the screen: traces to an OTLP
/// collector, events to a NATS server.
struct Outlets<'a> {
    otlp: &'a OtlpArgs,
    publish: PublishArgs,
}

fn dashboard(
    scenario: Option<PathBuf>,
    screen: ScreenArgs,
    overrides: Overrides,
    provider: ProviderChoice,
    exec: ExecArgs,
    cache: Option<PathBuf>,
    outlets: Outlets,
) -> Exit {
    let Outlets { otlp, publish } = outlets;
    let theme = match screen.look.theme() {
        Ok(theme) => theme,
        Err(exit) => return exit,
    };
    let otlp = match otlp.config() {
        Ok(otlp) => otlp,
        Err(exit) => return exit,
    };
    tui::run(TuiOptions {
        scenario,
        overrides,
        record: !screen.no_record,
        start_paused: screen.paused,
        provider,
        theme,
        allow_exec: exec.allow_exec,
        cache,
        otlp,
        nats: publish.to(),
        ..TuiOptions::default()
    })
}

fn toolbox(tool: ToolboxCommand) -> Exit {
    use conclave::toolbox::{self, MisbehaveOptions, ServeOptions};
    match tool {
        ToolboxCommand::Serve {
            port,
            host,
            fail_first,
            latency_ms,
        } => toolbox::serve(ServeOptions {
            listen: std::net::SocketAddr::new(host, port),
            fail_first,
            latency: std::time::Duration::from_millis(latency_ms),
        }),
        ToolboxCommand::Inventory { latency_ms } => {
            toolbox::inventory(std::time::Duration::from_millis(latency_ms))
        }
        ToolboxCommand::Echo { touch } => toolbox::echo(touch),
        ToolboxCommand::Mcp { http } => toolbox::mcp_server(http.as_deref()),
        ToolboxCommand::Misbehave {
            how,
            pid_file,
            child,
            bytes,
        } => toolbox::misbehave(
            how,
            &MisbehaveOptions {
                pid_file,
                child,
                bytes,
            },
        ),
    }
}

fn main() -> ExitCode {
    #[cfg(not(target_env = "msvc"))]
    allocator::tune();
    let _ = color_eyre::install();
    // Every secret of the environment is masked in whatever any command
    // writes, from the start: an argument error quotes the arguments, and
    // a key typed as one is masked there too.
    conclave::known_secrets::register_environment();
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
        None => open_dashboard(TuiCommand::default()),
        Some(Command::Tui(tui)) => open_dashboard(tui),
        Some(Command::Run(run)) => match run.launch_program() {
            Ok(exit) => exit,
            Err(run) if run.headless => run_headless(*run),
            Err(run) => run_in_dashboard(*run),
        },
        Some(Command::Launch(args)) => args.run(),
        Some(Command::Replay {
            recording,
            answer: Some(call),
            ..
        }) => conclave::launch::fork::print_answer(&recording, call),
        Some(Command::Replay {
            recording,
            headless: true,
            ..
        }) if conclave::watch::record::is_watch_recording(&recording) => {
            conclave::watch::replay::replay(&recording)
        }
        Some(Command::Replay {
            recording,
            headless: true,
            ..
        }) => headless::replay(&recording),
        Some(Command::Replay {
            recording,
            headless: false,
            look,
            ..
        }) => view_in_dashboard(
            &look,
            TuiOptions {
                replay: Some(recording),
                // A fork of the replay, or a run launched beside it, is
                // recorded as any run of the dashboard.
                record: true,
                ..TuiOptions::default()
            },
        ),
        Some(Command::Attach { nats, look }) => view_in_dashboard(
            &look,
            TuiOptions {
                attach: Some(nats),
                ..TuiOptions::default()
            },
        ),
        Some(Command::Watch(args)) if args.headless => {
            conclave::watch::start::headless(args.settings())
        }
        Some(Command::Watch(mut args)) => {
            let look = std::mem::take(&mut args.look);
            view_in_dashboard(
                &look,
                TuiOptions {
                    watch: Some(args.settings()),
                    ..TuiOptions::default()
                },
            )
        }
        Some(Command::Fork(args)) => from_recording::fork(args),
        Some(Command::Sweep(args)) => match args.launch_program() {
            Ok(exit) => exit,
            Err(args) => fleet::sweep(*args),
        },
        Some(Command::Worker(args)) => fleet::worker(args),
        Some(Command::Probe(args)) => conclave::provider::openai::probe::probe(args.options()),
        Some(Command::Validate { files }) => headless::validate(&files),
        Some(Command::Export { recording, otlp }) => match otlp.config() {
            Err(exit) => exit,
            Ok(otlp) => headless::export(&recording, otlp),
        },
        Some(Command::Schema { program }) => headless::schema(program),
        Some(Command::Compare { a, b, headless }) => compare(&a, &b, headless),
        Some(Command::Completions { shell }) => generated::completions(shell),
        Some(Command::Man) => generated::man_page(),
        Some(Command::Toolbox { tool }) => toolbox(tool),
    }
}

/// `conclave compare A B`: two recordings, the watch's or Conclave's, in
/// the dashboard (two of the watch's headless as one JSON document, two
/// of Conclave's as its comparison); one of each is refused by name.
fn compare(a: &std::path::Path, b: &std::path::Path, headless: bool) -> Exit {
    use conclave::watch::record::is_watch_recording;
    match (is_watch_recording(a), is_watch_recording(b), headless) {
        (true, true, true) => conclave::watch::replay::compare(a, b),
        (false, false, true) => headless::compare(a, b),
        // Two watched runs compare in the dashboard as two of Conclave's
        // do: their spans told as a run's events.
        (true, true, false) | (false, false, false) => tui::run(TuiOptions {
            compare: Some((a.to_path_buf(), b.to_path_buf())),
            record: true,
            ..TuiOptions::default()
        }),
        (watched, _, _) => {
            let (one, other) = if watched { (a, b) } else { (b, a) };
            output::message(&format!(
                "conclave compare: {} is a recording of `conclave watch` and {} is not; \
                 compare compares two watched runs or two of Conclave's runs",
                one.display(),
                other.display()
            ));
            Exit::BadInput
        }
    }
}

/// `conclave tui`, and `conclave` alone: the dashboard, launching the
/// scenario at once if one is given.
fn open_dashboard(tui: TuiCommand) -> Exit {
    let provider = match choice(tui.model, tui.endpoint_profile) {
        Ok(provider) => provider,
        Err(exit) => return exit,
    };
    dashboard(
        tui.scenario,
        tui.screen,
        Overrides::default(),
        provider,
        tui.exec,
        None,
        Outlets {
            otlp: &tui.otlp,
            publish: tui.publish,
        },
    )
}

/// `conclave run` without `--headless`: the dashboard, launching the
/// scenario at once with the run's seed, flags and goal, and its calls
/// served from `--cassette`.
fn run_in_dashboard(run: RunCommand) -> Exit {
    let provider = match choice(run.model, run.endpoint_profile) {
        Ok(provider) => provider,
        Err(exit) => return exit,
    };
    let cassette = match from_recording::cassette_of(run.cassette, run.cassette_miss) {
        Ok(cassette) => cassette,
        Err(exit) => return exit,
    };
    dashboard(
        Some(run.scenario),
        run.screen,
        Overrides {
            seed: run.seed,
            flags: run.flags,
            goal: run.goal,
            record: run.record,
            answer: run.answer.given(),
            cassette,
        },
        provider,
        run.exec,
        run.cache,
        Outlets {
            otlp: &run.otlp,
            publish: run.publish,
        },
    )
}

/// `conclave run --headless`: one run, its result on stdout.
fn run_headless(run: RunCommand) -> Exit {
    let provider = match choice(run.model, run.endpoint_profile) {
        Ok(provider) => provider,
        Err(exit) => return exit,
    };
    let otlp = match run.otlp.config() {
        Ok(otlp) => otlp,
        Err(exit) => return exit,
    };
    let cassette = match from_recording::cassette_of(run.cassette, run.cassette_miss) {
        Ok(cassette) => cassette,
        Err(exit) => return exit,
    };
    headless::run(HeadlessRun {
        scenario: run.scenario,
        seed: run.seed,
        clock: run.clock.map(ClockMode::from),
        flags: run.flags,
        record: run.record,
        goal: run.goal,
        provider,
        allow_exec: run.exec.allow_exec,
        answer: run.answer.given(),
        cache: run.cache,
        otlp,
        nats: run.publish.to(),
        cassette,
    })
}

/// The dashboard on something it does not launch (a replay, a sweep, the
/// runs of other engines), in the theme chosen.
pub(crate) fn view_in_dashboard(look: &LookArgs, options: TuiOptions) -> Exit {
    match look.theme() {
        Ok(theme) => tui::run(TuiOptions { theme, ..options }),
        Err(exit) => exit,
    }
}
