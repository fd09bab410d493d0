//! The tools a research run calls through the gateway (`sources.tools`):
//! how each call of `search_sources`, `read_source`, `extract_notes` and
//! `verify_notes` behaves, simulated or real, and the URL forms of 004
//! that key the pages they read. They sit on the scenario floor beside the
//! workers and the teams' tools because the floors below the patterns
//! call them as dependencies: the provider answers them, trust lists what
//! they start, the resilience checks name them. What they find (the
//! search results, the pages and their notes) is the research pattern's
//! own section, `patterns::research::scenario::Sources`.

use super::latency::WorkerLatency;
use super::real::{CommandSpec, HttpSpec, McpToolSpec, RealCall, RealKeys};
use crate::pycompat::{py_strip, urlparse};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::num::NonZeroU32;

/// The research tools, each with how its calls behave.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ResearchTools {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) search_sources: Option<ToolBehaviour>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) read_source: Option<ToolBehaviour>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) extract_notes: Option<ToolBehaviour>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) verify_notes: Option<ToolBehaviour>,
}

impl ResearchTools {
    /// How each research tool that is real is called, by name.
    pub(crate) fn real(&self) -> impl Iterator<Item = (ResearchTool, RealCall<'_>)> {
        ResearchTool::ALL.into_iter().filter_map(|tool| {
            let call = self.get(tool)?.real_keys().first()?;
            Some((tool, call))
        })
    }

    /// Each research tool's real keys, by name.
    pub(crate) fn real_keys(&self) -> Vec<(&'static str, RealKeys<'_>)> {
        ResearchTool::ALL
            .into_iter()
            .filter_map(|tool| Some((tool.as_str(), self.get(tool)?.real_keys())))
            .collect()
    }

    pub(crate) fn is_empty(&self) -> bool {
        ResearchTool::ALL.iter().all(|t| self.get(*t).is_none())
    }

    pub(crate) fn get(&self, tool: ResearchTool) -> Option<&ToolBehaviour> {
        match tool {
            ResearchTool::SearchSources => self.search_sources.as_ref(),
            ResearchTool::ReadSource => self.read_source.as_ref(),
            ResearchTool::ExtractNotes => self.extract_notes.as_ref(),
            ResearchTool::VerifyNotes => self.verify_notes.as_ref(),
        }
    }
}

/// How a research tool's calls behave.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ToolBehaviour {
    /// How long each call takes: whole milliseconds, `{"min", "max"}` drawn
    /// per call from the run's seeded source, or a list with one entry per
    /// call in call order (the last repeats). Default 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) latency_ms: Option<WorkerLatency>,
    /// Call numbers (1 is the run's first call to this tool) that fail
    /// once their latency has passed; the run stops with
    /// `tool_invalid_output:<tool>`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) fail: Vec<NonZeroU32>,
    /// search_sources, real: an HTTP endpoint that answers
    /// `{"results": [{"url", "title", "snippet"}]}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) http: Option<HttpSpec>,
    /// search_sources, real: a program that answers as `http` does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) command: Option<CommandSpec>,
    /// search_sources, real: an MCP server's tool that answers as `http`
    /// does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) mcp: Option<McpToolSpec>,
    /// read_source, real: read each page over HTTP (a GET of the URL the
    /// policy and execution checks allowed, a redirect followed only to a
    /// domain they allow too, the body size-capped, HTML turned into its
    /// text, title and date) instead of from `pages`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) fetch: bool,
}

impl ToolBehaviour {
    pub(crate) fn real_keys(&self) -> RealKeys<'_> {
        RealKeys {
            http: self.http.as_ref(),
            command: self.command.as_ref(),
            mcp: self.mcp.as_ref(),
        }
    }
}

/// The research tools by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum ResearchTool {
    SearchSources,
    ReadSource,
    ExtractNotes,
    VerifyNotes,
}

impl ResearchTool {
    pub(crate) const ALL: [ResearchTool; 4] = [
        ResearchTool::SearchSources,
        ResearchTool::ReadSource,
        ResearchTool::ExtractNotes,
        ResearchTool::VerifyNotes,
    ];

    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            ResearchTool::SearchSources => "search_sources",
            ResearchTool::ReadSource => "read_source",
            ResearchTool::ExtractNotes => "extract_notes",
            ResearchTool::VerifyNotes => "verify_notes",
        }
    }

    pub(crate) fn parse(name: &str) -> Option<ResearchTool> {
        ResearchTool::ALL.into_iter().find(|t| t.as_str() == name)
    }
}

/// 004's `normalize_url`: scheme (https when absent) and netloc
/// lower-cased, query, fragment and params dropped, one trailing slash
/// dropped from a longer path.
pub(crate) fn normalize_url(url: &str) -> String {
    let parsed = urlparse(py_strip(url));
    let scheme = if parsed.scheme.is_empty() {
        "https".to_string()
    } else {
        parsed.scheme.to_lowercase()
    };
    let mut path = if parsed.path.is_empty() {
        "/"
    } else {
        parsed.path.as_str()
    };
    if path != "/"
        && let Some(shorter) = path.strip_suffix('/')
    {
        path = shorter;
    }
    format!("{scheme}://{}{path}", parsed.netloc.to_lowercase())
}

/// 004's `get_domain`: the lower-cased netloc.
pub(crate) fn url_domain(url: &str) -> String {
    urlparse(py_strip(url)).netloc.to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalises_as_the_reference() {
        // (url, normalize_url, get_domain of the result) from CPython 3.11.
        let table = [
            (
                "https://official-status.example.com/incidents/payments-2026-03-07#latest",
                "https://official-status.example.com/incidents/payments-2026-03-07",
                "official-status.example.com",
            ),
            (
                "https://vendor.example.com/policies/enterprise-sla?ref=search",
                "https://vendor.example.com/policies/enterprise-sla",
                "vendor.example.com",
            ),
            (
                "official-status.example.com/incidents/x",
                "https://official-status.example.com/incidents/x",
                "official-status.example.com",
            ),
            (
                "  HTTPS://Vendor.Example.COM/Policies/SLA/ ",
                "https://vendor.example.com/Policies/SLA",
                "vendor.example.com",
            ),
            ("//host/a?b#c", "https://host/a", "host"),
            ("host:8080/a", "host://8080/a", "8080"),
            ("mailto:x@y", "mailto://x@y", "x@y"),
            ("", "https:///", ""),
            ("https://h//", "https://h/", "h"),
            ("https://h?x", "https://h/", "h"),
            ("1http://h/", "https://1http://h", "1http:"),
            (
                "https://user:PW@Host:80/x//",
                "https://user:pw@host:80/x/",
                "user:pw@host:80",
            ),
            ("HTTP://h/a", "http://h/a", "h"),
        ];
        for (url, normalised, domain) in table {
            let got = normalize_url(url);
            assert_eq!(got, normalised, "{url:?}");
            assert_eq!(url_domain(&got), domain, "{url:?}");
        }
        assert_eq!(
            normalize_url(&normalize_url("mailto:x@y")),
            "mailto://x@y/",
            "not idempotent, as in the reference"
        );
    }
}
