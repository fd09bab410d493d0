//! Why an MCP server or one of its tools failed, in words a user can act
//! on. Every text that comes from a server (its stderr, a tool's error
//! message, a result it should not have sent) is scrubbed of secrets,
//! cleaned of terminal controls and capped before it gets here.

use std::fmt::Write as _;

/// How many characters of a server's text an error quotes.
pub(crate) const QUOTE_CHARS: usize = 300;

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum McpError {
    /// The program could not be started (missing, not executable, a bad
    /// working directory) or the URL could not be used.
    #[error("MCP server `{server}`: cannot start {program}: {reason}")]
    Start {
        server: String,
        program: String,
        reason: String,
    },
    /// The server started but did not complete `initialize` and
    /// `tools/list`.
    #[error("MCP server `{server}` did not complete the MCP handshake: {reason}{stderr}")]
    Handshake {
        server: String,
        reason: String,
        /// `; its stderr ends: …` when it wrote anything.
        stderr: String,
    },
    #[error("no MCP server `{server}` was started (servers: {})", list(known))]
    UnknownServer { server: String, known: Vec<String> },
    #[error(
        "MCP server `{server}` has no tool `{tool}` (its tools: {})",
        list(available)
    )]
    UnknownTool {
        server: String,
        tool: String,
        available: Vec<String>,
    },
    /// The tool ran and reported a failure (`isError`).
    #[error("MCP tool `{server}/{tool}` reported an error: {message}")]
    Tool {
        server: String,
        tool: String,
        message: String,
    },
    /// The server refused the call with a JSON-RPC error (bad arguments,
    /// an internal error).
    #[error("MCP server `{server}` refused the call to `{tool}`: {message}")]
    Refused {
        server: String,
        tool: String,
        message: String,
    },
    /// The tool answered, but with nothing Conclave can take as a result:
    /// neither structured content nor a text that is a JSON object.
    #[error("MCP tool `{server}/{tool}` answered with {what}, not a JSON object")]
    BadResult {
        server: String,
        tool: String,
        what: String,
    },
    /// A stdio server's process ended during the run; every later call to
    /// it fails at once with this error.
    #[error("MCP server `{server}` exited during the run ({status}){stderr}")]
    Exited {
        server: String,
        status: String,
        stderr: String,
    },
    /// The connection to the server broke (an HTTP server that went away,
    /// a stdio server that closed its output).
    #[error("MCP server `{server}` is unreachable: {message}")]
    Disconnected { server: String, message: String },
}

impl McpError {
    /// The server the error is about.
    pub fn server(&self) -> &str {
        match self {
            McpError::Start { server, .. }
            | McpError::Handshake { server, .. }
            | McpError::UnknownServer { server, .. }
            | McpError::UnknownTool { server, .. }
            | McpError::Tool { server, .. }
            | McpError::Refused { server, .. }
            | McpError::BadResult { server, .. }
            | McpError::Exited { server, .. }
            | McpError::Disconnected { server, .. } => server,
        }
    }

    /// Whether the tool answered with something that is not a result
    /// (`worker_bad_result:<name>` rather than `worker_error:<name>`).
    pub fn is_bad_result(&self) -> bool {
        matches!(self, McpError::BadResult { .. })
    }
}

fn list(names: &[String]) -> String {
    if names.is_empty() {
        "none".to_string()
    } else {
        names
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// A server's text as an error may quote it: scrubbed of secrets, on one
/// line without terminal controls, at most [`QUOTE_CHARS`] characters.
pub(crate) fn quote(text: &str) -> String {
    let scrubbed = crate::secrets::scrub_model_text(text);
    let clean = crate::sanitize::clean(scrubbed.trim());
    let mut out: String = clean.chars().take(QUOTE_CHARS).collect();
    if clean.chars().nth(QUOTE_CHARS).is_some() {
        out.push('…');
    }
    out
}

/// `; its stderr ends: "…"` for the last lines a server wrote, or nothing.
pub(crate) fn stderr_suffix(lines: &[String]) -> String {
    let joined = lines
        .iter()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" / ");
    if joined.is_empty() {
        return String::new();
    }
    // Keep the end: the last words are the ones that say why it stopped.
    let chars: Vec<char> = joined.chars().collect();
    let tail: String = chars[chars.len().saturating_sub(QUOTE_CHARS)..]
        .iter()
        .collect();
    let mut out = String::from("; its stderr ends: \"");
    if chars.len() > QUOTE_CHARS {
        out.push('…');
    }
    let _ = write!(out, "{}\"", quote_unbounded(&tail));
    out
}

fn quote_unbounded(text: &str) -> String {
    let scrubbed = crate::secrets::scrub(text);
    crate::sanitize::clean(&scrubbed).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_are_one_clean_capped_line() {
        assert_eq!(quote("  broken\n\x1b[31mred\x1b[0m "), "broken red");
        let long = "x".repeat(QUOTE_CHARS + 10);
        let quoted = quote(&long);
        assert_eq!(quoted.chars().count(), QUOTE_CHARS + 1);
        assert!(quoted.ends_with('…'));
    }

    #[test]
    fn the_stderr_suffix_keeps_the_last_words() {
        assert_eq!(stderr_suffix(&[]), "");
        assert_eq!(stderr_suffix(&[" ".into()]), "");
        assert_eq!(
            stderr_suffix(&["starting".into(), "panic: no db\x07".into()]),
            "; its stderr ends: \"starting / panic: no db\""
        );
        let long = format!("{} the end", "y".repeat(QUOTE_CHARS));
        let suffix = stderr_suffix(&[long]);
        assert!(suffix.starts_with("; its stderr ends: \"…"));
        assert!(suffix.ends_with("the end\""));
    }

    #[test]
    fn unknown_names_list_what_there_is() {
        let error = McpError::UnknownTool {
            server: "kb".into(),
            tool: "serch".into(),
            available: vec!["search".into(), "lookup".into()],
        };
        assert_eq!(
            error.to_string(),
            "MCP server `kb` has no tool `serch` (its tools: `search`, `lookup`)"
        );
        assert_eq!(error.server(), "kb");
        assert!(!error.is_bad_result());
    }
}
