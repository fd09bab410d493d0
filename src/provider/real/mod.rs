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
mod mcp;
mod unallowed;

use crate::provider::program::resolve_program;
use crate::provider::program_env::{path_of, program_env};
use command::CommandTool;
use groups::ProcessGroups;
use http::{HttpSetupError, HttpTool};
use mcp::Mcp;

use crate::provider::WorkerError;
use crate::provider::fetch::{Fetcher, allowed_by, search_output};
use crate::scenario::{
    CommandSpec, JsonPath, RealCall, ResearchLimits, ResearchTool, Scenario, ScenarioErrors,
    ToolSection,
};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Arc;

/// The real workers and tools of one run, by name.
#[derive(Debug, Default)]
pub(crate) struct RealTools {
    tools: HashMap<String, Real>,
    groups: Arc<ProcessGroups>,
    mcp: Option<Mcp>,
    /// Real workers of a run served wholly from a cassette: known to be
    /// real (their timeouts are a real call's), never set up or called.
    offline: std::collections::HashSet<String>,
    /// Tools whose call would start a program nobody allowed, with the
    /// refusal (a run from a recording asks when it first needs one).
    unallowed: HashMap<String, String>,
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
    /// A tool of one of the run's MCP servers.
    Mcp {
        server: String,
        tool: String,
    },
    /// The research pattern's pages, read over HTTP; a redirect is
    /// followed only to a domain `limits` allow (policy and execution).
    Fetch {
        fetcher: Fetcher,
        limits: ResearchLimits,
    },
}

/// How an answer is handed to the pattern: as its simulated workers'
/// answers are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Wrap {
    /// An orchestrator worker: `{"status": "done", "worker", "result"}`.
    Worker,
    /// A team's tool or a graph's tool node: `{"status": "done", "tool",
    /// "result"}`.
    Tool,
    /// A research tool: `{"status": "ok", "data"}` (004's tools).
    Research,
}

impl RealTools {
    /// Set up every real worker and tool of `scenario`, reading secrets
    /// from `env`. Everything wrong is reported at once, placed in the
    /// file: an unset variable, a program or folder that is not there.
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
                RealCall::Mcp(spec) => RealTool::Mcp {
                    server: spec.server.clone(),
                    tool: spec.tool.clone(),
                },
            };
            real.tools.insert(name, Real { call: tool, wrap });
        }
        if !scenario.mcp_servers.is_empty() {
            match Mcp::for_scenario(scenario, env) {
                Ok(mcp) => real.mcp = Some(mcp),
                Err(problems) => found.extend(problems),
            }
        }
        if scenario.fetches_pages() {
            match Fetcher::new(max_body) {
                Ok(fetcher) => {
                    let limits = ResearchLimits::of(scenario);
                    real.tools.insert(
                        ResearchTool::ReadSource.as_str().to_string(),
                        Real {
                            call: RealTool::Fetch { fetcher, limits },
                            wrap: Wrap::Research,
                        },
                    );
                }
                Err(why) => found.push((
                    JsonPath::root()
                        .key("sources")
                        .key("tools")
                        .key("read_source")
                        .key("fetch"),
                    format!("cannot set up the HTTP client: {why}"),
                )),
            }
        }
        if found.is_empty() {
            Ok(real)
        } else {
            Err(scenario.errors_at(found))
        }
    }

    /// The real workers and tools of `scenario` for a run served wholly
    /// from a cassette: named, never set up (no secret read, no program
    /// found, no server started), and failing any call made to them.
    pub(crate) fn offline(scenario: &Scenario) -> Self {
        let mut offline: std::collections::HashSet<String> = real_calls(scenario)
            .into_iter()
            .map(|(_, name, _, _)| name)
            .collect();
        if scenario.fetches_pages() {
            offline.insert(ResearchTool::ReadSource.as_str().to_string());
        }
        RealTools {
            offline,
            ..RealTools::default()
        }
    }

    /// No program may start: a call that would start one is refused,
    /// in words naming `file` and the place (see [`Self::refusal`]).
    pub(crate) fn refusing_programs(mut self, scenario: &Scenario, file: &str) -> Self {
        self.unallowed = unallowed::refusals(scenario, file);
        self
    }

    /// Why a call to `name` may not be made, when it would start a
    /// program nobody allowed.
    pub(crate) fn refusal(&self, name: &str) -> Option<&str> {
        self.unallowed.get(name).map(String::as_str)
    }

    pub(crate) fn is_real(&self, name: &str) -> bool {
        self.tools.contains_key(name) || self.offline.contains(name)
    }

    /// Call the real worker `name`; `None` when it is not a real one.
    pub(crate) async fn call(
        &self,
        name: &str,
        args: &Value,
    ) -> Option<Result<Value, WorkerError>> {
        if self.offline.contains(name) {
            return Some(Err(WorkerError::failed(
                "this run is served from a cassette and makes no real call",
            )));
        }
        let real = self.tools.get(name)?;
        let answer = match &real.call {
            RealTool::Http(tool) => tool.call(args).await,
            RealTool::Command(tool) => tool.call(args).await,
            RealTool::Mcp { server, tool } => self.call_mcp(server, tool, args).await,
            RealTool::Fetch { fetcher, limits } => {
                let url = args.get("url").and_then(Value::as_str).unwrap_or_default();
                // The pattern says which domains its checks allow now (its
                // flags included); a redirect may go only to one of them.
                let named: Option<Vec<&str>> = args
                    .get("allowed_domains")
                    .and_then(Value::as_array)
                    .map(|list| list.iter().filter_map(Value::as_str).collect());
                let by_limits = allowed_by(limits);
                let allowed = |domain: &str| match &named {
                    Some(named) => named.contains(&domain),
                    None => by_limits(domain),
                };
                return Some(match fetcher.fetch(url, &allowed).await {
                    Ok(page) => Ok(page.tool_output()),
                    Err(e) => Err(WorkerError::Failed {
                        detail: Some(e.to_string()),
                        http_status: e.status(),
                    }),
                });
            }
        };
        Some(answer.and_then(|result| match real.wrap {
            Wrap::Worker => Ok(json!({"status": "done", "worker": name, "result": result})),
            Wrap::Tool => Ok(json!({"status": "done", "tool": name, "result": result})),
            // A real search must answer {"results": [{"url", "title",
            // "snippet"}]}; it then reads as the simulated search does.
            Wrap::Research if name == ResearchTool::SearchSources.as_str() => {
                let k = args
                    .get("k")
                    .and_then(Value::as_u64)
                    .and_then(|k| usize::try_from(k.max(1)).ok());
                search_output(name, &result, k).map_err(|e| WorkerError::BadResult {
                    detail: e.to_string(),
                })
            }
            Wrap::Research => Ok(json!({"status": "ok", "data": result})),
        }))
    }

    /// The run is over: kill every program still running. MCP servers
    /// end with their process group when the run's tools are dropped.
    pub(crate) fn shutdown(&self) {
        self.groups.kill_all();
    }

    /// Start the run's MCP servers (once; a server that cannot start
    /// fails the calls to its tools with the reason) and give, for every
    /// worker or tool answered by an MCP tool, the description its server
    /// lists for it.
    pub(crate) async fn start_mcp(&self) -> Vec<(String, String)> {
        let Some(mcp) = &self.mcp else {
            return Vec::new();
        };
        let Ok(started) = mcp.start().await else {
            return Vec::new();
        };
        self.tools
            .iter()
            .filter_map(|(name, real)| match &real.call {
                RealTool::Mcp { server, tool } => started
                    .description(server, tool)
                    .map(|d| (name.clone(), d.to_string())),
                _ => None,
            })
            .collect()
    }

    async fn call_mcp(&self, server: &str, tool: &str, args: &Value) -> Result<Value, WorkerError> {
        match &self.mcp {
            Some(mcp) => mcp.call(server, tool, args).await,
            None => Err(WorkerError::Failed {
                detail: Some(format!("no MCP server `{server}` is declared")),
                http_status: None,
            }),
        }
    }
}

/// Every real call of the scenario: where it is, the name calls use, how
/// it is called and how its answers are wrapped.
fn real_calls(scenario: &Scenario) -> Vec<(JsonPath, String, RealCall<'_>, Wrap)> {
    let root = JsonPath::root();
    let mut calls = Vec::new();
    // A graph's tool nodes call the scenario's `tools`, as a team's agents do.
    let (section, specs, wrap) = if scenario.pattern.runs_agents() {
        ("tools", &scenario.tools, Wrap::Tool)
    } else {
        ("workers", &scenario.workers, Wrap::Worker)
    };
    for (name, spec) in specs {
        if let Some(call) = spec.real() {
            calls.push((root.key(section).key(name), name.clone(), call, wrap));
        }
    }
    for (at, name, spec) in scenario.team_tools() {
        if let Some(call) = spec.real() {
            calls.push((at, name, call, Wrap::Tool));
        }
    }
    if let Some(sources) = &scenario.sources {
        for (tool, call) in sources.tools().real() {
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
    let env = program_env(&spec.env, env).map_err(|unset| ("env", unset.to_string()))?;
    let program = resolve_program(program, &folder, path_of(&env))
        .map_err(|why| ("argv", why.to_string()))?;
    Ok(CommandTool::new(
        program,
        args.to_vec(),
        cwd,
        env,
        max_output,
        Arc::clone(groups),
    ))
}
