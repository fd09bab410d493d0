//! The tokio runtime a command runs on.

use crate::exit::Exit;

/// The runtime a command runs on, built by `builder`; when none can be
/// started, the command's exit after saying why.
pub(crate) fn start(
    builder: &mut tokio::runtime::Builder,
) -> Result<tokio::runtime::Runtime, Exit> {
    builder.enable_all().build().map_err(|e| {
        crate::output::message(&format!("conclave: cannot start the runtime: {e}"));
        Exit::Internal
    })
}
