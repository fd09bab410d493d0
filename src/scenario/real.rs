//! Real workers and tools (DESIGN.md "Real workers and tools"): the
//! scenario side of a call that leaves the process, to an HTTP endpoint, a
//! program or a tool on a Model Context Protocol server, and the MCP
//! servers a scenario starts. Types only; the checks live in `checks`, the
//! calls in `provider::real`, the decision to let programs run in `trust`.

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The prefix of a `secret_headers` value: the rest names an environment
/// variable.
pub(crate) const ENV_PREFIX: &str = "env:";

/// The pattern every `secret_headers` value matches (`env:NAME`).
pub(crate) const ENV_REF_PATTERN: &str = "^env:[A-Za-z_][A-Za-z0-9_]*$";

/// The pattern every URL of a real call matches: http or https.
pub(crate) const URL_PATTERN: &str = "^[Hh][Tt][Tt][Pp][Ss]?://";

/// A worker or tool answered by an HTTP endpoint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct HttpSpec {
    /// The endpoint, an http:// or https:// URL.
    #[schemars(regex(pattern = URL_PATTERN))]
    pub(crate) url: String,
    /// `POST` (the default) sends the args as a JSON body; `GET` sends them
    /// as query parameters.
    #[serde(default)]
    pub(crate) method: HttpMethod,
    /// Headers sent with every call, as written.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub(crate) headers: IndexMap<String, String>,
    /// Headers whose values come from the environment, written
    /// `"env:NAME"`; the values are scrubbed from everything Conclave
    /// writes, like the API key.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    #[schemars(extend("additionalProperties" = {"type": "string", "pattern": ENV_REF_PATTERN}))]
    pub(crate) secret_headers: IndexMap<String, String>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub(crate) enum HttpMethod {
    #[default]
    #[serde(rename = "POST")]
    Post,
    #[serde(rename = "GET")]
    Get,
}

/// A worker or tool answered by a program, started without a shell for
/// each call: the args as JSON on its stdin, its stdout a JSON object.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CommandSpec {
    /// The program and its arguments. A program written as a path with a
    /// `/` is relative to the scenario file; a bare name is looked up on
    /// `PATH`; `conclave` is the running conclave binary itself.
    #[schemars(length(min = 1))]
    pub(crate) argv: Vec<String>,
    /// The folder the program runs in, relative to the scenario file
    /// (default: the scenario file's folder).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) cwd: Option<String>,
    /// The program's environment besides PATH, HOME, USER, LOGNAME, LANG,
    /// LANGUAGE, LC_*, TERM, TZ, TMPDIR and SHELL (nothing else of
    /// Conclave's): a value as written, or `"env:NAME"` for Conclave's
    /// variable NAME, the only way a secret reaches a program.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub(crate) env: IndexMap<String, String>,
}

/// A worker or tool answered by a tool of an MCP server declared in
/// `mcp_servers`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct McpToolSpec {
    /// The server's name in `mcp_servers`.
    pub(crate) server: String,
    /// The tool's name on that server.
    pub(crate) tool: String,
}

/// A Model Context Protocol server, started once per run: a program
/// spoken to over stdio (`command`), or a streamable HTTP endpoint
/// (`url`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct McpServerSpec {
    /// stdio: the program and its arguments, as a command worker's `argv`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1))]
    pub(crate) command: Option<Vec<String>>,
    /// stdio: the folder the server runs in, relative to the scenario file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) cwd: Option<String>,
    /// stdio: the server's environment, as a command worker's `env`.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub(crate) env: IndexMap<String, String>,
    /// Streamable HTTP: the server's endpoint, an http:// or https:// URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = URL_PATTERN))]
    pub(crate) url: Option<String>,
    /// Streamable HTTP: headers sent with every request, as written.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub(crate) headers: IndexMap<String, String>,
    /// Streamable HTTP: headers whose values come from the environment,
    /// written `"env:NAME"`.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    #[schemars(extend("additionalProperties" = {"type": "string", "pattern": ENV_REF_PATTERN}))]
    pub(crate) secret_headers: IndexMap<String, String>,
}

/// How a real worker or tool is called: the one kind its spec gives.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum RealCall<'a> {
    Http(&'a HttpSpec),
    Command(&'a CommandSpec),
    Mcp(&'a McpToolSpec),
}

impl RealCall<'_> {
    /// The scenario key that gives this kind.
    pub(crate) fn key(self) -> &'static str {
        match self {
            RealCall::Http(_) => "http",
            RealCall::Command(_) => "command",
            RealCall::Mcp(_) => "mcp",
        }
    }
}

/// The keys that make a worker or tool real, as a spec holds them.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct RealKeys<'a> {
    pub(crate) http: Option<&'a HttpSpec>,
    pub(crate) command: Option<&'a CommandSpec>,
    pub(crate) mcp: Option<&'a McpToolSpec>,
}

impl<'a> RealKeys<'a> {
    /// Every real kind given, in the order `http`, `command`, `mcp`.
    pub(crate) fn given(self) -> Vec<RealCall<'a>> {
        let mut kinds = Vec::new();
        kinds.extend(self.http.map(RealCall::Http));
        kinds.extend(self.command.map(RealCall::Command));
        kinds.extend(self.mcp.map(RealCall::Mcp));
        kinds
    }

    /// The first real kind given, if any.
    pub(crate) fn first(self) -> Option<RealCall<'a>> {
        self.given().into_iter().next()
    }
}

/// The environment variable a `secret_headers` value names, when it is
/// written `env:NAME`.
pub(crate) fn env_name(value: &str) -> Option<&str> {
    let name = value.strip_prefix(ENV_PREFIX)?;
    let mut chars = name.chars();
    let head = chars.next()?;
    ((head.is_ascii_alphabetic() || head == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_'))
    .then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_references_name_a_variable() {
        assert_eq!(env_name("env:SALES_TOKEN"), Some("SALES_TOKEN"));
        assert_eq!(env_name("env:_x1"), Some("_x1"));
        for bad in [
            "SALES_TOKEN",
            "env:",
            "env:1X",
            "env:A-B",
            "Bearer x",
            "ENV:X",
        ] {
            assert_eq!(env_name(bad), None, "{bad}");
        }
    }
}
