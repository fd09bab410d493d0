//! The research pattern's sections of a scenario file: what the simulated
//! research tools find (`sources`), the `budget` keys it reads and what a
//! sim script's `synthesis` holds. How the tools' calls behave
//! (`sources.tools`) is the scenario floor's (`scenario::research_tools`):
//! the floors below the patterns call them. Types only: the scenario floor
//! reads them through `scenario::Sections`, so this file imports nothing
//! of the research runner.

use crate::scenario::ResearchTools;
use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What the research tools find. `search_sources` returns the first `k`
/// search results whatever the query (`k` is twice `max_urls`);
/// `read_source` reads a page by its normalised URL and fails on a URL it
/// has no page for; `extract_notes` returns the page's notes with their
/// provenance; `verify_notes` checks the notes' structure.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Sources {
    /// The search results in rank order. Required unless
    /// `tools.search_sources` is a real tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) search_results: Option<Vec<SearchResult>>,
    /// The pages `read_source` can read, keyed by normalised URL
    /// (`https://host/path`: scheme and host lower-cased, no query, no
    /// fragment, no trailing slash).
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub(crate) pages: IndexMap<String, Page>,
    /// How each research tool's calls behave (latency, failures).
    #[serde(default, skip_serializing_if = "ResearchTools::is_empty")]
    pub(crate) tools: ResearchTools,
}

/// One search hit.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SearchResult {
    /// The URL as the search engine gives it; it is normalised and
    /// deduplicated before anything reads it.
    pub(crate) url: String,
    #[serde(default)]
    pub(crate) title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) snippet: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) score: Option<f64>,
}

/// A page `read_source` can read.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Page {
    pub(crate) title: String,
    /// When the page was published, as the notes cite it (e.g.
    /// `2026-03-07`).
    pub(crate) published_at: String,
    #[serde(default)]
    pub(crate) body: String,
    /// The notes `extract_notes` takes from the page, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) notes: Vec<NoteSpec>,
}

/// A note a page yields. The note contract wants a claim and a quote of at
/// least 20 characters.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct NoteSpec {
    pub(crate) claim: String,
    pub(crate) quote: String,
    /// What the verifier finds wrong with this note (e.g. `stale_source`);
    /// any finding fails verification with `verification_failed:<first>`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) issues: Vec<String>,
}

impl Sources {
    /// The simulated search's results in rank order.
    pub(crate) fn search_results(&self) -> &[SearchResult] {
        self.search_results.as_deref().unwrap_or_default()
    }

    /// Whether `read_source` reads the pages for real (`fetch`), the
    /// model then taking their notes.
    pub(crate) fn fetches(&self) -> bool {
        self.tools.read_source.as_ref().is_some_and(|t| t.fetch)
    }
}

/// The sections of a scenario file a research run owns.
pub(crate) const SECTIONS: &[&str] = &["sources"];

/// The `budget` keys a research run reads beside the shared ones.
pub(crate) const BUDGET_KEYS: &[&str] = &["max_steps"];

/// The schema's words for the sim's `provider.synthesis`.
pub(crate) const SYNTHESIS_SCRIPT: &str = "sim, research: the synthesis, `{\"answer\": text, \"citations\": [note\nids]}` (one call per run). Without it the sim answers from the first\nthree notes' claims and cites them.";

impl crate::scenario::ToolSection for Sources {
    fn tools(&self) -> &ResearchTools {
        &self.tools
    }
}
