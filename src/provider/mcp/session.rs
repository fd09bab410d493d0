//! One MCP server for the length of a run: connected through rmcp
//! (`initialize`, then `tools/list`, kept), called any number of times at
//! once, and closed at the end. A call future may be dropped at any point
//! (the gateway's timeout does so): rmcp then tells the server with
//! `notifications/cancelled`, and the session goes on serving other calls.

use super::error::{McpError, quote, stderr_suffix};
use super::process::{self, ServerProcess};
use super::result::{self, NotAResult};
use super::spec::{HttpServer, McpServerSpec};
use indexmap::IndexMap;
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation};
use rmcp::service::{RoleClient, RunningService, ServiceError};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::common::client_side_sse::SseRetryPolicy;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::Value;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// How long a server has to answer `initialize` and `tools/list`. Calls
/// have no bound here: the gateway times them out.
pub(crate) const START_TIMEOUT: Duration = Duration::from_secs(10);

/// How a broken event stream is resumed: twice, a moment apart. rmcp's
/// default tries forever, which leaves a call to a server that went away
/// waiting until the gateway's timeout instead of failing.
#[derive(Debug)]
struct FewResumes;

impl SseRetryPolicy for FewResumes {
    fn retry(&self, attempts: usize) -> Option<Duration> {
        (attempts < RESUMES).then_some(RESUME_AFTER)
    }
}

const RESUMES: usize = 2;
const RESUME_AFTER: Duration = Duration::from_millis(200);

/// How long closing the connection may take at shutdown.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(2);

/// How long to wait for a process whose output closed to report its exit.
const EXIT_REPORT_WAIT: Duration = Duration::from_millis(500);

pub(crate) struct Session {
    name: String,
    client: RunningService<RoleClient, ClientConfig>,
    /// The server's tools in its order, with their descriptions.
    tools: IndexMap<String, Option<String>>,
    /// The process of a stdio server.
    process: Option<ServerProcess>,
}

impl Session {
    pub(crate) async fn start(
        name: &str,
        spec: &McpServerSpec,
        scenario_dir: &Path,
    ) -> Result<Session, McpError> {
        let handshake = |reason: String, stderr: String| McpError::Handshake {
            server: name.to_string(),
            reason,
            stderr,
        };
        let (client, process) = match spec {
            McpServerSpec::Stdio(stdio) => {
                let (process, pipes) = process::spawn(name, stdio, scenario_dir)?;
                let connect = client_config().serve((pipes.stdout, pipes.stdin));
                let connected = tokio::select! {
                    biased;
                    connected = tokio::time::timeout(START_TIMEOUT, connect) => connected,
                    status = process.exited() => {
                        let stderr = stderr_suffix(&process.stderr_tail());
                        return Err(handshake(format!("it exited ({status}) before answering `initialize`"), stderr));
                    }
                };
                match connected {
                    Ok(Ok(client)) => (client, Some(process)),
                    Ok(Err(e)) => {
                        let status = wait_briefly(&process).await;
                        let reason = match status {
                            Some(status) => format!("it exited ({status}) during `initialize`"),
                            None => plain(&e.to_string()),
                        };
                        return Err(handshake(reason, stderr_suffix(&process.stderr_tail())));
                    }
                    Err(_) => {
                        let stderr = stderr_suffix(&process.stderr_tail());
                        return Err(handshake(not_in_time("initialize"), stderr));
                    }
                }
            }
            McpServerSpec::Http(http) => {
                let transport = http_transport(name, http)?;
                match tokio::time::timeout(START_TIMEOUT, client_config().serve(transport)).await {
                    Ok(Ok(client)) => (client, None),
                    Ok(Err(e)) => return Err(handshake(plain(&e.to_string()), String::new())),
                    Err(_) => return Err(handshake(not_in_time("initialize"), String::new())),
                }
            }
        };
        let listed = tokio::time::timeout(START_TIMEOUT, client.list_all_tools()).await;
        let tools = match listed {
            Ok(Ok(tools)) => tools
                .into_iter()
                .map(|t| (t.name.into_owned(), t.description.map(|d| d.into_owned())))
                .collect(),
            failed => {
                let reason = match failed {
                    Ok(Err(e)) => format!("`tools/list` failed: {}", plain(&e.to_string())),
                    _ => not_in_time("tools/list"),
                };
                let stderr = process
                    .as_ref()
                    .map(|p| stderr_suffix(&p.stderr_tail()))
                    .unwrap_or_default();
                return Err(handshake(reason, stderr));
            }
        };
        Ok(Session {
            name: name.to_string(),
            client,
            tools,
            process,
        })
    }

    pub(crate) fn tools(&self) -> impl Iterator<Item = &str> {
        self.tools.keys().map(String::as_str)
    }

    pub(crate) fn description(&self, tool: &str) -> Option<&str> {
        self.tools.get(tool)?.as_deref()
    }

    pub(crate) fn check_tool(&self, tool: &str) -> Result<(), McpError> {
        if self.tools.contains_key(tool) {
            return Ok(());
        }
        Err(McpError::UnknownTool {
            server: self.name.clone(),
            tool: tool.to_string(),
            available: self.tools.keys().cloned().collect(),
        })
    }

    pub(crate) async fn call(&self, tool: &str, args: &Value) -> Result<Value, McpError> {
        if let Some(error) = self.gone() {
            return Err(error);
        }
        self.check_tool(tool)?;
        let refused = |message: String| McpError::Refused {
            server: self.name.clone(),
            tool: tool.to_string(),
            message,
        };
        let mut params = CallToolRequestParams::new(tool.to_string());
        match args {
            Value::Object(map) => params = params.with_arguments(map.clone()),
            Value::Null => {}
            _ => {
                return Err(refused(
                    "the arguments of a tool call must be a JSON object".into(),
                ));
            }
        }
        let answer = match &self.process {
            Some(process) => tokio::select! {
                biased;
                answer = self.client.call_tool(params) => answer,
                status = process.exited() => return Err(self.exited(process, status)),
            },
            None => self.client.call_tool(params).await,
        };
        match answer {
            Ok(answer) => result::read(answer).map_err(|not| match not {
                NotAResult::ToolError(message) => McpError::Tool {
                    server: self.name.clone(),
                    tool: tool.to_string(),
                    message,
                },
                NotAResult::Bad(what) => McpError::BadResult {
                    server: self.name.clone(),
                    tool: tool.to_string(),
                    what,
                },
            }),
            Err(ServiceError::McpError(error)) => Err(refused(quote(&error.message))),
            Err(ServiceError::TransportClosed) => Err(self.closed().await),
            Err(other) => Err(McpError::Disconnected {
                server: self.name.clone(),
                message: plain(&other.to_string()),
            }),
        }
    }

    /// Close the connection, then end the process and its group.
    pub(crate) async fn shutdown(mut self) {
        let _ = tokio::time::timeout(CLOSE_TIMEOUT, self.client.close()).await;
        if let Some(process) = &self.process {
            process.stop().await;
        }
    }

    /// The error every call gets once the server is known to be gone.
    fn gone(&self) -> Option<McpError> {
        if let Some(process) = &self.process
            && let Some(status) = process.exit_status()
        {
            return Some(self.exited(process, status));
        }
        self.client
            .is_transport_closed()
            .then(|| McpError::Disconnected {
                server: self.name.clone(),
                message: "the connection closed earlier in the run".into(),
            })
    }

    /// The connection closed under a call: how the process ended, when it
    /// did.
    async fn closed(&self) -> McpError {
        if let Some(process) = &self.process
            && let Some(status) = wait_briefly(process).await
        {
            return self.exited(process, status);
        }
        McpError::Disconnected {
            server: self.name.clone(),
            message: "the connection closed".into(),
        }
    }

    fn exited(&self, process: &ServerProcess, status: String) -> McpError {
        McpError::Exited {
            server: self.name.clone(),
            status,
            stderr: stderr_suffix(&process.stderr_tail()),
        }
    }
}

fn client_config() -> ClientConfig {
    ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("conclave", env!("CARGO_PKG_VERSION")),
    )
}

/// A streamable HTTP connection with the HTTP provider's client settings:
/// rustls, and redirects reported rather than followed.
fn http_transport(
    name: &str,
    http: &HttpServer,
) -> Result<StreamableHttpClientTransport<reqwest::Client>, McpError> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .default_headers(http.headers.clone())
        .connect_timeout(START_TIMEOUT)
        .build()
        .map_err(|e| McpError::Start {
            server: name.to_string(),
            program: format!("a connection to {}", quote(&http.url)),
            reason: quote(&e.to_string()),
        })?;
    let mut config = StreamableHttpClientTransportConfig::with_uri(http.url.as_str());
    config.retry_config = Arc::new(FewResumes);
    Ok(StreamableHttpClientTransport::with_client(client, config))
}

/// How the process ended, if it does within [`EXIT_REPORT_WAIT`].
async fn wait_briefly(process: &ServerProcess) -> Option<String> {
    tokio::time::timeout(EXIT_REPORT_WAIT, process.exited())
        .await
        .ok()
}

/// An rmcp error's words without the Rust type names it puts in them
/// (`Transport [rmcp::transport::worker::WorkerTransport<…>] error: `),
/// quoted.
fn plain(message: &str) -> String {
    let mut text = message.to_string();
    while let Some(start) = text.find("Transport [") {
        let Some(end) = text[start..].find("] error: ") else {
            break;
        };
        text.replace_range(start..start + end + "] error: ".len(), "");
    }
    for noise in ["Send message error ", "Transport send error: "] {
        if let Some(rest) = text.strip_prefix(noise) {
            text = rest.to_string();
        }
    }
    quote(&text)
}

fn not_in_time(what: &str) -> String {
    format!(
        "it did not answer `{what}` within {} s",
        START_TIMEOUT.as_secs()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rmcp_errors_lose_their_type_names() {
        assert_eq!(
            plain(
                "Send message error Transport [rmcp::transport::worker::WorkerTransport<rmcp::A<reqwest::Client>>] error: Client error: error sending request for url (http://127.0.0.1:9/mcp), when send initialize request"
            ),
            "Client error: error sending request for url (http://127.0.0.1:9/mcp), when send initialize request"
        );
        assert_eq!(plain("Transport closed"), "Transport closed");
    }
}
