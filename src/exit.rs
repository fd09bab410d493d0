//! The command line's exit statuses (DESIGN.md "Command line"), shared by
//! the headless commands and the dashboard. Beyond DESIGN.md's four, a
//! process ended from outside exits as a shell reports a process killed by
//! the signal: 128 + its number.

use std::process::ExitCode;

/// Exit statuses of the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// The run finished with status `ok` (0).
    Ok,
    /// Conclave itself failed, or could not write its output (1).
    Internal,
    /// A bad scenario, a bad argument or a path that cannot be used (2).
    BadInput,
    /// The run stopped with another stop reason (3).
    Stopped,
    /// Whatever read stdout or stderr went away (`… | head`): 141, as if
    /// SIGPIPE had ended the process, which Rust programs ignore.
    ClosedPipe,
    /// The dashboard ended on this signal, after giving the terminal back.
    Signalled(Signal),
}

/// The signals that end the dashboard cleanly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signal {
    Hangup,
    Interrupt,
    Terminate,
}

impl Signal {
    /// The signal's number, the same on every Unix (POSIX fixes these three).
    pub(crate) fn number(self) -> u8 {
        match self {
            Signal::Hangup => 1,
            Signal::Interrupt => 2,
            Signal::Terminate => 15,
        }
    }
}

/// SIGPIPE's number on Linux and the BSDs.
const SIGPIPE: u8 = 13;

impl Exit {
    /// The process's exit status.
    pub(crate) fn code(self) -> u8 {
        match self {
            Exit::Ok => 0,
            Exit::Internal => 1,
            Exit::BadInput => 2,
            Exit::Stopped => 3,
            Exit::ClosedPipe => 128 + SIGPIPE,
            Exit::Signalled(signal) => 128 + signal.number(),
        }
    }
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> ExitCode {
        ExitCode::from(exit.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_are_the_documented_numbers() {
        let table = [
            (Exit::Ok, 0),
            (Exit::Internal, 1),
            (Exit::BadInput, 2),
            (Exit::Stopped, 3),
            (Exit::ClosedPipe, 141),
            (Exit::Signalled(Signal::Hangup), 129),
            (Exit::Signalled(Signal::Interrupt), 130),
            (Exit::Signalled(Signal::Terminate), 143),
        ];
        for (exit, code) in table {
            assert_eq!(exit.code(), code, "{exit:?}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn signal_numbers_are_the_platform_s() {
        assert_eq!(i32::from(Signal::Hangup.number()), libc::SIGHUP);
        assert_eq!(i32::from(Signal::Interrupt.number()), libc::SIGINT);
        assert_eq!(i32::from(Signal::Terminate.number()), libc::SIGTERM);
        assert_eq!(i32::from(SIGPIPE), libc::SIGPIPE);
    }
}
