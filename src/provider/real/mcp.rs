//! The MCP servers of one run, as real workers and tools reach them: the
//! scenario's `mcp_servers` turned into what the client starts (secret
//! headers read from the environment now), started together when the run
//! begins, and a tool call's answer or failure in a worker's terms.

use crate::provider::WorkerError;
use crate::provider::mcp::{
    HttpServer, McpError, McpServerSpec as McpServer, McpServers, McpTools, StdioServer,
};
use crate::scenario::{JsonPath, Scenario};
use serde_json::Value;
use std::path::PathBuf;
use tokio::sync::OnceCell;

/// The run's MCP servers: started together when the run begins (or at the
/// first call that needs one), kept for the run, and ended with it (each
/// stdio server with its process group when this is dropped). A server
/// that cannot start fails every call to its tools with the reason, as a
/// worker that is down would.
#[derive(Debug)]
pub(super) struct Mcp {
    servers: McpServers,
    folder: PathBuf,
    started: OnceCell<Result<McpTools, String>>,
}

impl Mcp {
    /// The scenario's servers, ready to start; every server that cannot be
    /// (an unset variable, a header that cannot be sent) placed in the file.
    pub(super) fn for_scenario(
        scenario: &Scenario,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Mcp, Vec<(JsonPath, String)>> {
        let mut servers = McpServers::new();
        let mut found = Vec::new();
        for (name, spec) in &scenario.mcp_servers {
            match mcp_server(spec, env) {
                Ok(server) => {
                    servers.insert(name.clone(), server);
                }
                Err((keys, why)) => {
                    let at = JsonPath::root().key("mcp_servers").key(name);
                    found.push((keys.iter().fold(at, |p, k| p.key(k)), why));
                }
            }
        }
        if !found.is_empty() {
            return Err(found);
        }
        Ok(Mcp {
            servers,
            folder: scenario.origin.folder(),
            started: OnceCell::new(),
        })
    }

    /// The servers, started at the first call of this.
    pub(super) async fn start(&self) -> Result<&McpTools, &String> {
        self.started
            .get_or_init(|| async {
                McpTools::start(&self.servers, &self.folder)
                    .await
                    .map_err(|e| e.to_string())
            })
            .await
            .as_ref()
    }

    /// Call `tool` on `server`: its answer, or why there is none in a
    /// worker's terms (an answer that is not a JSON object is a bad
    /// result; everything else a failure with the reason).
    pub(super) async fn call(
        &self,
        server: &str,
        tool: &str,
        args: &Value,
    ) -> Result<Value, WorkerError> {
        let shown =
            |detail: &str| crate::sanitize::clean(&crate::secrets::scrub(detail)).into_owned();
        let failed = |detail: &str| WorkerError::Failed {
            detail: Some(shown(detail)),
            http_status: None,
        };
        let tools = self.start().await.map_err(|why| failed(why))?;
        tools.call(server, tool, args).await.map_err(|e| match e {
            McpError::BadResult { .. } => WorkerError::BadResult {
                detail: shown(&e.to_string()),
            },
            other => failed(&other.to_string()),
        })
    }
}

/// An MCP server of the scenario as the client starts it: a stdio program
/// with its folder and environment, or a URL with its headers (secret ones
/// read from `env` now and registered with the scrubber). `Err` names the
/// key at fault and why.
fn mcp_server(
    spec: &crate::scenario::McpServerSpec,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<McpServer, (Vec<String>, String)> {
    use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
    match (&spec.command, &spec.url) {
        (Some(command), None) => {
            // Checked now, so that a variable handed over by name that is
            // not set stops the launch, placed in the file.
            if let Err(unset) = crate::provider::program_env::program_env(&spec.env, env) {
                return Err((
                    vec!["env".to_string(), unset.name.clone()],
                    unset.to_string(),
                ));
            }
            Ok(McpServer::Stdio(StdioServer {
                command: command.clone(),
                cwd: spec.cwd.as_ref().map(PathBuf::from),
                env: spec.env.clone(),
            }))
        }
        (None, Some(url)) => {
            let mut headers = HeaderMap::new();
            let bad = |key: &str, header: &str| {
                (
                    vec![key.to_string(), header.to_string()],
                    "expected a header name and a value a header can carry".to_string(),
                )
            };
            for (name, value) in &spec.headers {
                let header =
                    HeaderName::from_bytes(name.as_bytes()).map_err(|_| bad("headers", name))?;
                let value = HeaderValue::from_str(value).map_err(|_| bad("headers", name))?;
                headers.insert(header, value);
            }
            for (name, reference) in &spec.secret_headers {
                let variable = reference.strip_prefix("env:").unwrap_or(reference);
                let Some(secret) = env(variable).filter(|v| !v.is_empty()) else {
                    return Err((
                        vec!["secret_headers".to_string(), name.clone()],
                        format!(
                            "the environment variable {variable} is not set; the header {name} takes its value from it"
                        ),
                    ));
                };
                crate::secrets::register(&secret);
                let header = HeaderName::from_bytes(name.as_bytes())
                    .map_err(|_| bad("secret_headers", name))?;
                let mut value =
                    HeaderValue::from_str(&secret).map_err(|_| bad("secret_headers", name))?;
                value.set_sensitive(true);
                headers.insert(header, value);
            }
            Ok(McpServer::Http(HttpServer {
                url: url.clone(),
                headers,
            }))
        }
        _ => Err((
            vec!["url".to_string()],
            "expected exactly one of `command` (a program and its arguments) or `url`".to_string(),
        )),
    }
}
