//! The command line's exit statuses (DESIGN.md "Command line"), shared by
//! the headless commands and the dashboard.

use std::process::ExitCode;

/// Exit statuses of the command line (DESIGN.md "Command line").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// The run finished with status `ok`.
    Ok = 0,
    /// Conclave itself failed.
    Internal = 1,
    /// A bad scenario or bad arguments.
    BadInput = 2,
    /// The run stopped with another stop reason.
    Stopped = 3,
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> ExitCode {
        ExitCode::from(exit as u8)
    }
}
