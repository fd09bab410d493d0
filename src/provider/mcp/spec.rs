//! How a scenario names its MCP servers (`mcp_servers`): a program that
//! Conclave starts and speaks to over its stdin and stdout, or the URL of a
//! server already running that speaks streamable HTTP. Plain serde types
//! and the path rules; starting them is `McpTools`' job.

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The MCP servers of a run by name, in the order the file gives them.
pub type McpServers = IndexMap<String, McpServerSpec>;

/// One MCP server: exactly one of `command` or `url`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(try_from = "RawServerSpec", into = "RawServerSpec")]
pub enum McpServerSpec {
    Stdio(StdioServer),
    Http(HttpServer),
}

/// A program started once per run, without a shell, in its own process
/// group; MCP messages go over its stdin and stdout, its stderr is kept
/// for error messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StdioServer {
    /// The program and its arguments. A program given with a path
    /// (`tools/kb_server`, `./kb`) is relative to the scenario file; a bare
    /// name (`kb-server`) is looked up on `PATH`.
    pub command: Vec<String>,
    /// The working directory, relative to the scenario file; the scenario
    /// file's directory when absent.
    pub cwd: Option<PathBuf>,
    /// The program's variables besides the few it gets from Conclave's
    /// environment (`provider::program_env`); `env:NAME` hands over
    /// Conclave's NAME.
    pub env: IndexMap<String, String>,
}

/// A server already running, reached over streamable HTTP.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpServer {
    /// The server's MCP endpoint, e.g. `http://127.0.0.1:8931/mcp`.
    pub url: String,
    /// Headers sent with every request (secret ones marked sensitive);
    /// set from the scenario at launch, never written back to a file.
    pub headers: reqwest::header::HeaderMap,
}

/// The server as the file writes it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawServerSpec {
    /// The program and its arguments, started without a shell (stdio).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<Vec<String>>,
    /// The program's working directory, relative to the scenario file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<PathBuf>,
    /// The program's environment, as `StdioServer::env`.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub env: IndexMap<String, String>,
    /// The endpoint of a server that speaks streamable HTTP.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// What is wrong with a server's entry, for the scenario's own error.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    #[error(
        "expected exactly one of `command` (a program and its arguments) or `url` (a streamable HTTP endpoint)"
    )]
    NeitherOrBoth,
    #[error(
        "`command` must name a program: expected a non-empty list whose first item is not blank"
    )]
    EmptyCommand,
    #[error("`cwd` and `env` only apply to a `command`, not to a `url`")]
    ProcessKeysOnUrl,
    #[error("`url`: expected an http:// or https:// URL with a host, found {found:?}")]
    BadUrl { found: String },
}

impl TryFrom<RawServerSpec> for McpServerSpec {
    type Error = SpecError;

    fn try_from(raw: RawServerSpec) -> Result<Self, SpecError> {
        match (raw.command, raw.url) {
            (Some(command), None) => {
                if command
                    .first()
                    .is_none_or(|program| program.trim().is_empty())
                {
                    return Err(SpecError::EmptyCommand);
                }
                Ok(McpServerSpec::Stdio(StdioServer {
                    command,
                    cwd: raw.cwd,
                    env: raw.env,
                }))
            }
            (None, Some(url)) => {
                if raw.cwd.is_some() || !raw.env.is_empty() {
                    return Err(SpecError::ProcessKeysOnUrl);
                }
                check_url(&url)?;
                Ok(McpServerSpec::Http(HttpServer {
                    url,
                    headers: reqwest::header::HeaderMap::new(),
                }))
            }
            _ => Err(SpecError::NeitherOrBoth),
        }
    }
}

impl From<McpServerSpec> for RawServerSpec {
    fn from(spec: McpServerSpec) -> Self {
        match spec {
            McpServerSpec::Stdio(StdioServer { command, cwd, env }) => RawServerSpec {
                command: Some(command),
                cwd,
                env,
                url: None,
            },
            McpServerSpec::Http(HttpServer { url, .. }) => RawServerSpec {
                url: Some(url),
                ..RawServerSpec::default()
            },
        }
    }
}

fn check_url(url: &str) -> Result<(), SpecError> {
    match reqwest::Url::parse(url) {
        Ok(parsed)
            if matches!(parsed.scheme(), "http" | "https")
                && parsed.host_str().is_some_and(|h| !h.is_empty()) =>
        {
            Ok(())
        }
        _ => Err(SpecError::BadUrl {
            found: crate::sanitize::clean(&url.chars().take(200).collect::<String>()).into_owned(),
        }),
    }
}

impl StdioServer {
    /// The program as it will be started, found by the rule every
    /// program of a scenario is (`crate::provider::program`): `conclave`
    /// is the running binary, a path is relative to the scenario file's
    /// directory, a bare name is looked up on `PATH` (this server's
    /// `env.PATH` when it sets one).
    pub(crate) fn program(
        &self,
        scenario_dir: &Path,
    ) -> Result<PathBuf, crate::provider::program::Unresolved> {
        use crate::provider::program::{resolve_program, search_path};
        let path_var = search_path(self.env.get("PATH"), &|name| std::env::var(name).ok());
        resolve_program(&self.command[0], scenario_dir, path_var.as_deref())
    }

    /// The directory the program starts in.
    pub(crate) fn working_dir(&self, scenario_dir: &Path) -> PathBuf {
        let base = if scenario_dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            scenario_dir
        };
        match &self.cwd {
            Some(cwd) => base.join(cwd),
            None => base.to_path_buf(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(value: serde_json::Value) -> Result<McpServerSpec, String> {
        serde_json::from_value(value).map_err(|e| e.to_string())
    }

    #[test]
    fn a_server_is_a_command_or_a_url() {
        let stdio = parse(json!({"command": ["tools/kb", "--quiet"], "cwd": "data",
                                 "env": {"KB": "1"}}))
        .unwrap();
        let McpServerSpec::Stdio(server) = &stdio else {
            panic!("{stdio:?}")
        };
        assert_eq!(server.command, ["tools/kb", "--quiet"]);
        assert_eq!(
            server.program(Path::new("/s")),
            Err(crate::provider::program::Unresolved::Missing(
                PathBuf::from("/s/tools/kb")
            )),
            "a path is relative to the scenario's folder"
        );
        assert_eq!(
            server.working_dir(Path::new("/s")),
            PathBuf::from("/s/data")
        );
        assert_eq!(server.working_dir(Path::new("")), PathBuf::from("./data"));
        let http = parse(json!({"url": "http://127.0.0.1:9/mcp"})).unwrap();
        assert_eq!(
            http,
            McpServerSpec::Http(HttpServer {
                url: "http://127.0.0.1:9/mcp".into(),
                headers: reqwest::header::HeaderMap::new(),
            })
        );
        // It writes back as it reads.
        assert_eq!(
            serde_json::to_value(&stdio).unwrap(),
            json!({"command": ["tools/kb", "--quiet"], "cwd": "data", "env": {"KB": "1"}})
        );
    }

    #[test]
    fn wrong_entries_say_what_was_expected() {
        let error = |v| parse(v).unwrap_err();
        assert!(error(json!({})).contains("exactly one of `command`"));
        assert!(error(json!({"command": ["x"], "url": "http://a/"})).contains("exactly one"));
        assert!(error(json!({"command": []})).contains("must name a program"));
        assert!(error(json!({"command": [" "]})).contains("must name a program"));
        assert!(error(json!({"url": "http://a/", "cwd": "."})).contains("only apply"));
        assert!(error(json!({"url": "ftp://a/"})).contains("http:// or https://"));
        assert!(error(json!({"url": "not a url"})).contains("found \"not a url\""));
        assert!(error(json!({"command": ["x"], "args": []})).contains("unknown field `args`"));
    }
}
