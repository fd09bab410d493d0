//! The `conclave` command line: parses arguments and calls the library.

use clap::{CommandFactory, Parser};
use conclave::bus::ClockMode;
use conclave::engine::ProviderChoice;
use conclave::exit::Exit;
use conclave::headless::{self, HeadlessRun};
use conclave::nats::jobs::WorkerOptions;
use conclave::output;
use conclave::sweep::{SweepArgs, SweepPlan};
use conclave::tui::{self, TuiOptions, app::Overrides};
use std::path::PathBuf;
use std::process::ExitCode;

mod cli;
mod man;

use cli::*;

// jemalloc keeps the recorder's frees of events allocated on the engine's
// thread off the engine's path (glibc's arenas serialise them).
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

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
    // Every secret of the environment is masked in whatever any command
    // writes, from the start.
    conclave::secrets::register_environment();
    match cli.command {
        None => dashboard(
            None,
            ScreenArgs::default(),
            Overrides::default(),
            ProviderChoice::default(),
            ExecArgs::default(),
            None,
            Outlets {
                otlp: &OtlpArgs::default(),
                publish: PublishArgs::default(),
            },
        ),
        Some(Command::Tui {
            scenario,
            model,
            screen,
            exec,
            otlp,
            publish,
        }) => dashboard(
            scenario,
            screen,
            Overrides::default(),
            model.choice(),
            exec,
            None,
            Outlets {
                otlp: &otlp,
                publish,
            },
        ),
        Some(Command::Run {
            scenario,
            headless: false,
            seed,
            flags,
            record,
            goal,
            decide,
            cache,
            model,
            screen,
            exec,
            otlp,
            publish,
            ..
        }) => dashboard(
            Some(scenario),
            screen,
            Overrides {
                seed,
                flags,
                goal,
                record,
                decide,
            },
            model.choice(),
            exec,
            cache,
            Outlets {
                otlp: &otlp,
                publish,
            },
        ),
        Some(Command::Run {
            scenario,
            headless: true,
            seed,
            clock,
            flags,
            record,
            goal,
            decide,
            cache,
            model,
            exec,
            otlp,
            publish,
            ..
        }) => match otlp.config() {
            Err(exit) => exit,
            Ok(otlp) => headless::run(HeadlessRun {
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
                allow_exec: exec.allow_exec,
                decide,
                cache,
                otlp,
                nats: publish.to(),
            }),
        },
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
        Some(Command::Attach { nats, look }) => match look.theme() {
            Ok(theme) => tui::run(TuiOptions {
                attach: Some(nats),
                theme,
                ..TuiOptions::default()
            }),
            Err(exit) => exit,
        },
        Some(Command::Sweep {
            scenario,
            seeds,
            flags,
            parallel,
            headless,
            allow_real,
            decide,
            model,
            exec,
            look,
            nats,
            otlp,
        }) => {
            let otlp = match otlp.config() {
                Ok(otlp) => otlp,
                Err(exit) => return exit,
            };
            if nats.nats.is_some() && otlp.is_some() {
                output::message(
                    "conclave: with --nats the workers run the runs: give --otlp to each conclave worker instead",
                );
                return Exit::BadInput;
            }
            if nats.nats.is_some() && (parallel.is_some() || !headless) {
                output::message(if headless {
                    "conclave: --parallel sets this machine's threads; with --nats each worker sets its own (conclave worker --parallel N)"
                } else {
                    "conclave: a sweep on NATS prints its document: add --headless (the dashboard shows sweeps on this machine)"
                });
                return Exit::BadInput;
            }
            let plan = match SweepPlan::new(seeds, flags) {
                Ok(plan) => plan,
                Err(e) => {
                    output::message(&format!("conclave: {e}"));
                    return Exit::BadInput;
                }
            };
            let args = SweepArgs {
                scenario,
                plan,
                parallel,
                provider: model.choice(),
                allow_real,
                allow_exec: exec.allow_exec,
                decide,
                otlp,
            };
            if let Some(url) = nats.nats {
                conclave::nats::jobs::sweep_headless(args, &url)
            } else if headless {
                conclave::sweep::headless(args)
            } else {
                match look.theme() {
                    Ok(theme) => tui::run(TuiOptions {
                        sweep: Some(args),
                        theme,
                        ..TuiOptions::default()
                    }),
                    Err(exit) => exit,
                }
            }
        }
        Some(Command::Worker {
            nats,
            parallel,
            ack_wait,
            exec,
            otlp,
        }) => {
            let otlp = match otlp.config() {
                Ok(otlp) => otlp,
                Err(exit) => return exit,
            };
            let Some(events) = nats.to() else {
                output::message(
                    "conclave: worker needs --nats URL, the NATS server the jobs are on (e.g. --nats nats://127.0.0.1:4222)",
                );
                return Exit::BadInput;
            };
            conclave::nats::jobs::worker(WorkerOptions {
                url: events.url.clone(),
                events,
                otlp,
                parallel: parallel.unwrap_or_else(conclave::sweep::default_parallelism),
                ack_wait,
                allow_exec: exec.allow_exec,
            })
        }
        Some(Command::Validate { files }) => headless::validate(&files),
        Some(Command::Export { recording, otlp }) => match otlp.config() {
            Err(exit) => exit,
            Ok(otlp) => headless::export(&recording, otlp),
        },
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
        Some(Command::Toolbox { tool }) => toolbox(tool),
    }
}

/// Generated text (a completion script, a man page) on stdout.
fn print_text(text: &[u8]) -> Exit {
    output::line(String::from_utf8_lossy(text).trim_end_matches('\n'));
    Exit::Ok
}
