//! Text the command line writes about itself: a shell's completion
//! script and the manual page.

use crate::cli::{Cli, Shell};
use crate::man;
use clap::CommandFactory;
use conclave::exit::Exit;
use conclave::output;

/// `conclave completions SHELL`: the shell's completion script.
pub(crate) fn completions(shell: Shell) -> Exit {
    let shell = match shell {
        Shell::Bash => clap_complete::Shell::Bash,
        Shell::Zsh => clap_complete::Shell::Zsh,
        Shell::Fish => clap_complete::Shell::Fish,
    };
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "conclave", &mut script);
    print_text(&script)
}

/// `conclave man`: the manual page, in roff.
pub(crate) fn man_page() -> Exit {
    match man::page(Cli::command()) {
        Ok(page) => print_text(page.as_bytes()),
        Err(e) => {
            output::message(&format!("conclave: cannot write the man page: {e}"));
            Exit::Internal
        }
    }
}

/// Generated text (a completion script, a man page) on stdout.
fn print_text(text: &[u8]) -> Exit {
    output::line(String::from_utf8_lossy(text).trim_end_matches('\n'));
    Exit::Ok
}
