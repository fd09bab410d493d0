//! What a scenario reaches outside the process: the programs it would
//! start (command workers and tools, stdio MCP servers) and the URLs it
//! would call (HTTP workers, MCP servers reached at a URL). Trust before
//! execution lists them; the engine refuses a launch that would start a
//! program nobody allowed. Pure: nothing here starts or calls anything.

use super::path::JsonPath;
use super::real::RealCall;
use super::research_tools::ResearchTool;
use super::sections::ToolSection;
use super::types::Scenario;
use std::net::IpAddr;
use std::path::PathBuf;

/// A program the scenario would start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Program {
    /// Where the scenario names it.
    pub(crate) path: JsonPath,
    /// The program and its arguments, as written.
    pub(crate) argv: Vec<String>,
    /// The folder it would run in.
    pub(crate) cwd: PathBuf,
    /// The `PATH` the scenario sets for it (`env.PATH`), which a bare
    /// program name is looked up on instead of Conclave's.
    pub(crate) search_path: Option<String>,
}

/// A URL the scenario would call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Endpoint {
    /// Where the scenario names it.
    pub(crate) path: JsonPath,
    pub(crate) url: String,
}

impl Scenario {
    /// Every real call of the scenario, where it is written: workers,
    /// tools and research tools.
    fn real_calls(&self) -> Vec<(JsonPath, RealCall<'_>)> {
        let root = JsonPath::root();
        let mut calls = Vec::new();
        for (section, specs) in [("workers", &self.workers), ("tools", &self.tools)] {
            for (name, spec) in specs {
                if let Some(call) = spec.real() {
                    calls.push((root.key(section).key(name), call));
                }
            }
        }
        for (at, _, spec) in self.team_tools() {
            if let Some(call) = spec.real() {
                calls.push((at, call));
            }
        }
        if let Some(sources) = &self.sources {
            for (tool, call) in sources.tools().real() {
                calls.push((root.key("sources").key("tools").key(tool.as_str()), call));
            }
        }
        calls
    }

    /// Whether any call leaves the process: such a run is on the real
    /// clock.
    pub fn has_real_calls(&self) -> bool {
        !self.real_calls().is_empty() || !self.mcp_servers.is_empty() || self.fetches_pages()
    }

    /// Whether the research pattern reads its pages over HTTP.
    pub(crate) fn fetches_pages(&self) -> bool {
        self.sources
            .as_ref()
            .and_then(|s| s.tools().get(ResearchTool::ReadSource))
            .is_some_and(|b| b.fetch)
    }

    /// Every program the scenario would start, in file order of sections.
    pub(crate) fn programs(&self) -> Vec<Program> {
        let folder = self.origin.folder();
        let cwd = |cwd: &Option<String>| match cwd {
            Some(cwd) => folder.join(cwd),
            None => folder.clone(),
        };
        let mut programs: Vec<Program> = self
            .real_calls()
            .into_iter()
            .filter_map(|(path, call)| match call {
                RealCall::Command(spec) => Some(Program {
                    path: path.key("command"),
                    argv: spec.argv.clone(),
                    cwd: cwd(&spec.cwd),
                    search_path: spec.env.get("PATH").cloned(),
                }),
                _ => None,
            })
            .collect();
        for (name, server) in &self.mcp_servers {
            if let Some(argv) = &server.command {
                programs.push(Program {
                    path: JsonPath::root().key("mcp_servers").key(name).key("command"),
                    argv: argv.clone(),
                    cwd: cwd(&server.cwd),
                    search_path: server.env.get("PATH").cloned(),
                });
            }
        }
        programs
    }

    /// Every URL the scenario would call.
    pub(crate) fn endpoints(&self) -> Vec<Endpoint> {
        let mut endpoints: Vec<Endpoint> = self
            .real_calls()
            .into_iter()
            .filter_map(|(path, call)| match call {
                RealCall::Http(spec) => Some(Endpoint {
                    path: path.key("http").key("url"),
                    url: spec.url.clone(),
                }),
                _ => None,
            })
            .collect();
        for (name, server) in &self.mcp_servers {
            if let Some(url) = &server.url {
                endpoints.push(Endpoint {
                    path: JsonPath::root().key("mcp_servers").key(name).key("url"),
                    url: url.clone(),
                });
            }
        }
        endpoints
    }
}

/// Whether `url` stays on this machine: `localhost` or a loopback
/// address.
pub(crate) fn is_loopback(url: &str) -> bool {
    let Ok(parsed) = reqwest::Url::parse(url) else {
        return false;
    };
    let Some(host) = parsed.host_str() else {
        return false;
    };
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    match bare.parse::<IpAddr>() {
        Ok(ip) => ip.is_loopback(),
        Err(_) => {
            let name = host.trim_end_matches('.').to_ascii_lowercase();
            name == "localhost" || name.ends_with(".localhost")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_is_localhost_and_the_loopback_addresses_only() {
        for url in [
            "http://127.0.0.1:8080/x",
            "http://127.9.9.9/",
            "http://localhost/",
            "http://LOCALHOST.:1/",
            "http://[::1]:80/",
            "https://api.localhost/",
        ] {
            assert!(is_loopback(url), "{url}");
        }
        for url in [
            "http://10.0.0.1/",
            "https://example.com/",
            "http://localhost.example.com/",
            "http://[::2]/",
            "not a url",
        ] {
            assert!(!is_loopback(url), "{url}");
        }
    }
}
