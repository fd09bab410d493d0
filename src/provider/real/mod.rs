//! Real workers and tools: where a call to an `http`, `command` or `mcp`
//! worker ends up once the gateway lets it through. Each is set up once at
//! launch (URLs parsed, secrets read from the environment, programs found)
//! and answers each call with its real answer, wrapped as the simulated
//! workers wrap theirs. Like every provider it never times out, retries or
//! publishes: the gateway does all three. Every program it starts dies
//! with its call, and whatever is left dies with the run.

mod answer;
mod command;
pub(crate) mod groups;
mod http;

use command::{CommandTool, resolve_program};
use groups::ProcessGroups;
use http::{HttpSetupError, HttpTool};

use crate::provider::WorkerError;
use crate::scenario::{
    CommandSpec, JsonPath, PatternKind, RealCall, ResearchTool, Scenario, ScenarioErrors,
};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Arc;

/// The real workers and tools of one run, by name.
#[derive(Debug, Default)]
pub(crate) struct RealTools {
    tools: HashMap<String, Real>,
    groups: Arc<ProcessGroups>,
}

#[derive(Debug)]
struct Real {
    call: RealTool,
    wrap: Wrap,
}

#[derive(Debug)]
enum RealTool {
    Http(HttpTool),
    Command(CommandTool),
}

/// How an answer is handed to the pattern: as its simulated workers'
/// answers are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Wrap {
    /// An orchestrator worker: `{"status": "done", "worker", "result"}`.
    Worker,
    /// A team's tool: `{"status": "done", "tool", "result"}`.
    Tool,
    /// A research tool: `{"status": "ok", "data"}` (004's tools).
    Research,
}

impl RealTools {
    /// Set up every real worker and tool of `scenario`, reading secrets
    /// from `env`. Everything wrong is reported at once, placed in the
    /// file: an unset variable, a program or folder that is not there, an
    /// MCP server (not available in this build).
    pub(crate) fn for_scenario(
        scenario: &Scenario,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Self, ScenarioErrors> {
        let mut found: Vec<(JsonPath, String)> = Vec::new();
        let max_body = crate::provider::http::max_body_bytes(env)
            .map_err(|e| scenario.errors_at(vec![(JsonPath::root(), e.to_string())]))?;
        let mut real = RealTools::default();
        let mut client = None;
        for (path, name, call, wrap) in real_calls(scenario) {
            let at = |key: &str| path.key(key);
            let tool = match call {
                RealCall::Http(spec) => {
                    let client = match &client {
                        Some(client) => Ok(Clone::clone(client)),
                        None => http::client().inspect(|c| client = Some(c.clone())),
                    };
                    match client.and_then(|c| HttpTool::new(spec, c, max_body, env)) {
                        Ok(tool) => RealTool::Http(tool),
                        Err(HttpSetupError::MissingVariable { header, variable }) => {
                            found.push((
                                at("http").key("secret_headers").key(&header),
                                format!(
                                    "the environment variable {variable} is not set; the header {header} takes its value from it"
                                ),
                            ));
                            continue;
                        }
                        Err(HttpSetupError::Client(why)) => {
                            found.push((
                                at("http"),
                                format!("cannot set up the HTTP client: {why}"),
                            ));
                            continue;
                        }
                    }
                }
                RealCall::Command(spec) => {
                    match command_tool(scenario, spec, max_body, &real.groups, env) {
                        Ok(tool) => RealTool::Command(tool),
                        Err((key, why)) => {
                            found.push((at("command").key(key), why));
                            continue;
                        }
                    }
                }
                RealCall::Mcp(_) => {
                    found.push((at("mcp"), mcp_unavailable()));
                    continue;
                }
            };
            real.tools.insert(name, Real { call: tool, wrap });
        }
        for name in scenario.mcp_servers.keys() {
            found.push((
                JsonPath::root().key("mcp_servers").key(name),
                mcp_unavailable(),
            ));
        }
        if found.is_empty() {
            Ok(real)
        } else {
            Err(scenario.errors_at(found))
        }
    }

    pub(crate) fn is_real(&self, name: &str) -> bool {
        self.tools.contains_key(name)
    }

    /// Call the real worker `name`; `None` when it is not a real one.
    pub(crate) async fn call(
        &self,
        name: &str,
        args: &Value,
    ) -> Option<Result<Value, WorkerError>> {
        let real = self.tools.get(name)?;
        let answer = match &real.call {
            RealTool::Http(tool) => tool.call(args).await,
            RealTool::Command(tool) => tool.call(args).await,
        };
        Some(answer.map(|result| match real.wrap {
            Wrap::Worker => json!({"status": "done", "worker": name, "result": result}),
            Wrap::Tool => json!({"status": "done", "tool": name, "result": result}),
            Wrap::Research => json!({"status": "ok", "data": result}),
        }))
    }

    /// The run is over: kill every program still running.
    pub(crate) fn shutdown(&self) {
        self.groups.kill_all();
    }
}

/// The hook where MCP workers are wired: each `mcp` worker becomes a call
/// to `crate::provider::mcp::McpTools::call(tool, args)` on the server its
/// spec names, the servers started here once per run and shut down with
/// it. Until that client is part of the build, a scenario that uses an MCP
/// server cannot launch.
fn mcp_unavailable() -> String {
    "MCP servers are not available in this build; use an \"http\" or \"command\" worker instead"
        .into()
}

/// Every real call of the scenario: where it is, the name calls use, how
/// it is called and how its answers are wrapped.
fn real_calls(scenario: &Scenario) -> Vec<(JsonPath, String, RealCall<'_>, Wrap)> {
    let root = JsonPath::root();
    let mut calls = Vec::new();
    let (section, specs, wrap) = match scenario.pattern {
        PatternKind::Swarm | PatternKind::Coordinator => ("tools", &scenario.tools, Wrap::Tool),
        _ => ("workers", &scenario.workers, Wrap::Worker),
    };
    for (name, spec) in specs {
        if let Some(call) = spec.real() {
            calls.push((root.key(section).key(name), name.clone(), call, wrap));
        }
    }
    if let Some(sources) = &scenario.sources {
        for (tool, call) in sources.tools.real() {
            if tool == ResearchTool::SearchSources {
                let path = root.key("sources").key("tools").key(tool.as_str());
                calls.push((path, tool.as_str().to_string(), call, Wrap::Research));
            }
        }
    }
    calls
}

/// A command worker, its program found and its folder there; `Err` names
/// the key at fault and why.
fn command_tool(
    scenario: &Scenario,
    spec: &CommandSpec,
    max_output: usize,
    groups: &Arc<ProcessGroups>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<CommandTool, (&'static str, String)> {
    let folder = scenario.origin.folder();
    let cwd = match &spec.cwd {
        Some(cwd) => folder.join(cwd),
        None => folder.clone(),
    };
    if !cwd.is_dir() {
        return Err((
            "cwd",
            format!("the folder {} does not exist", cwd.display()),
        ));
    }
    let (program, args) = spec
        .argv
        .split_first()
        .ok_or(("argv", "no program".to_string()))?;
    let path_var = spec.env.get("PATH").cloned().or_else(|| env("PATH"));
    let program =
        resolve_program(program, &folder, path_var.as_deref()).map_err(|why| ("argv", why))?;
    let env = spec
        .env
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    Ok(CommandTool::new(
        program,
        args.to_vec(),
        cwd,
        env,
        max_output,
        Arc::clone(groups),
    ))
}
