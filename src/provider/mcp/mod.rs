//! Tools on Model Context Protocol servers, through the official Rust SDK
//! (rmcp): every server of a run is started once (a stdio program in its
//! own process group, or a streamable HTTP URL), its tools listed, called
//! as often as the run needs, and shut down at the end. It never retries
//! and never times a call out: the gateway does both, by dropping a call's
//! future, which is safe here.
//!
//! rmcp speaks the protocol; Conclave starts a stdio server's process
//! itself and hands rmcp its stdin and stdout, because rmcp's own child
//! process transport neither reports how a process ended nor kills its
//! process group without a running runtime, and waits seconds to close.

mod error;
mod process;
mod result;
mod session;
mod spec;

pub use error::McpError;
pub use spec::{HttpServer, McpServerSpec, McpServers, RawServerSpec, SpecError, StdioServer};

use futures_util::future::join_all;
use indexmap::IndexMap;
use serde_json::Value;
use session::Session;
use std::path::Path;

/// The MCP servers of one run, started and listed.
pub struct McpTools {
    servers: IndexMap<String, Session>,
}

impl McpTools {
    /// Start every server of `servers` at once (relative paths are
    /// relative to `scenario_dir`), and list each one's tools. When one
    /// fails, those already started are shut down and the first failure,
    /// in the file's order, is the error. Dropping the future part way
    /// kills whatever it had started.
    pub async fn start(servers: &McpServers, scenario_dir: &Path) -> Result<McpTools, McpError> {
        let started = join_all(
            servers
                .iter()
                .map(|(name, spec)| Session::start(name, spec, scenario_dir)),
        )
        .await;
        let mut sessions = IndexMap::new();
        let mut first_error = None;
        for (name, started) in servers.keys().zip(started) {
            match started {
                Ok(session) => {
                    sessions.insert(name.clone(), session);
                }
                Err(error) => {
                    first_error.get_or_insert(error);
                }
            }
        }
        let tools = McpTools { servers: sessions };
        match first_error {
            None => Ok(tools),
            Some(error) => {
                tools.shutdown().await;
                Err(error)
            }
        }
    }

    /// The description the server gives `tool`, to fill in one the
    /// scenario leaves out.
    pub fn description(&self, server: &str, tool: &str) -> Option<&str> {
        self.servers.get(server)?.description(tool)
    }

    /// The names of `server`'s tools, in the order it lists them.
    pub fn tools(&self, server: &str) -> Option<Vec<&str>> {
        Some(self.servers.get(server)?.tools().collect())
    }

    /// Whether `server` lists `tool`: an error that lists what it has when
    /// not, so a scenario's mistake shows before the run needs the tool.
    pub fn check_tool(&self, server: &str, tool: &str) -> Result<(), McpError> {
        self.session(server)?.check_tool(tool)
    }

    /// Call `tool` on `server` with `args` (a JSON object): the result, a
    /// JSON object, or why there is none.
    pub async fn call(&self, server: &str, tool: &str, args: &Value) -> Result<Value, McpError> {
        self.session(server)?.call(tool, args).await
    }

    /// Close every connection and end every server process with its
    /// process group, all at once.
    pub async fn shutdown(self) {
        join_all(self.servers.into_values().map(Session::shutdown)).await;
    }

    fn session(&self, server: &str) -> Result<&Session, McpError> {
        self.servers
            .get(server)
            .ok_or_else(|| McpError::UnknownServer {
                server: server.to_string(),
                known: self.servers.keys().cloned().collect(),
            })
    }
}

impl std::fmt::Debug for McpTools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpTools")
            .field("servers", &self.servers.keys().collect::<Vec<_>>())
            .finish()
    }
}
