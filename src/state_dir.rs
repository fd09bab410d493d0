//! Where Conclave keeps what it remembers between runs (recordings,
//! allowances to run a scenario's programs): `$XDG_STATE_HOME/conclave`,
//! else `~/.local/state/conclave`.

use std::path::PathBuf;

/// The state folder, or `None` when neither variable is set.
pub(crate) fn state_dir() -> Option<PathBuf> {
    let state = std::env::var_os("XDG_STATE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".local/state"))
        })?;
    Some(state.join("conclave"))
}
