//! The simulated research tools: where a research tool call ends up once
//! the gateway lets it through. They answer from the scenario's `sources`
//! after each call's scripted latency, with the outputs 004's tools return
//! (`{"status": "ok", "data": ...}`, or `not_found` for a page they lack).
//! A tool never times out, retries or publishes events: the gateway does.
//! The simulated workers hand these tools' calls on here
//! (`provider::sim::workers::PatternTools`).

use super::scenario::Sources;
use crate::clock::RunClock;
use crate::provider::WorkerError;
use crate::provider::sim::workers::PatternTools;
use crate::pycompat::{py_int, py_str, py_strip};
use crate::rng::RunRng;
use crate::scenario::{ResearchTool, Scenario, WorkerLatency, normalize_url};
use serde_json::{Map, Value, json};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

/// A quote shorter than this, once stripped, is too short (004's verifier).
const MIN_QUOTE_CHARS: usize = 20;

/// The simulated research tools of `scenario`, answering from its
/// `sources` with `rng`'s draws; none when it has no `sources`.
pub(crate) fn sim_tools(scenario: &Scenario, rng: &RunRng) -> Option<Box<dyn PatternTools>> {
    let sources = scenario.sources.clone()?;
    Some(Box::new(SimSources::new(sources, rng.clone())))
}

#[derive(Debug)]
pub(crate) struct SimSources {
    spec: Sources,
    rng: RunRng,
    /// Calls started per tool, in `ResearchTool::ALL` order.
    calls: Mutex<[u32; 4]>,
}

impl SimSources {
    pub(crate) fn new(spec: Sources, rng: RunRng) -> Self {
        SimSources {
            spec,
            rng,
            calls: Mutex::new([0; 4]),
        }
    }

    /// Call `tool` with `args`, as the research pattern passes them.
    pub(crate) async fn call(
        &self,
        tool: ResearchTool,
        args: &Value,
        clock: &RunClock,
    ) -> Result<Value, WorkerError> {
        let call = {
            let mut calls = self.calls.lock().unwrap_or_else(PoisonError::into_inner);
            let slot = ResearchTool::ALL
                .iter()
                .position(|t| *t == tool)
                .unwrap_or(0);
            calls[slot] += 1;
            calls[slot]
        };
        let behaviour = self.spec.tools.get(tool);
        let latency = self.latency_of(behaviour.and_then(|b| b.latency_ms.as_ref()), call);
        if !latency.is_zero() {
            clock.sleep(latency).await;
        }
        if behaviour.is_some_and(|b| b.fail.iter().any(|n| n.get() == call)) {
            return Err(WorkerError::FAILED);
        }
        let text = |key: &str| args.get(key).map(py_str).unwrap_or_default();
        Ok(match tool {
            ResearchTool::SearchSources => self.search(args.get("k")),
            ResearchTool::ReadSource => self.read(&text("url")),
            ResearchTool::ExtractNotes => self.extract(&text("url"), args.get("page")),
            ResearchTool::VerifyNotes => self.verify(args.get("notes")),
        })
    }

    fn latency_of(&self, latency: Option<&WorkerLatency>, call: u32) -> Duration {
        let ms = match latency {
            None => 0,
            Some(WorkerLatency::Fixed(ms)) => *ms,
            Some(WorkerLatency::Range(range)) => self.rng.between(range.min, range.max),
            Some(WorkerLatency::PerCall(calls)) => {
                let index = usize::try_from(call - 1).unwrap_or(usize::MAX);
                calls.get(index).or(calls.last()).copied().unwrap_or(0)
            }
        };
        crate::duration::clamp_millis(ms)
    }

    /// The first `max(1, k)` results, whatever the query.
    fn search(&self, k: Option<&Value>) -> Value {
        let k = k.and_then(py_int).unwrap_or(1).max(1);
        let results: Vec<Value> = self
            .spec
            .search_results()
            .iter()
            .take(usize::try_from(k).unwrap_or(usize::MAX))
            .map(|r| serde_json::to_value(r).unwrap_or(Value::Null))
            .collect();
        json!({"status": "ok", "data": {"results": results}})
    }

    fn read(&self, url: &str) -> Value {
        let url = normalize_url(url);
        match self.spec.pages.get(&url) {
            Some(page) => json!({"status": "ok", "data": {
                "url": url, "title": page.title, "published_at": page.published_at,
                "body": page.body,
            }}),
            None => json!({"status": "error", "error": "not_found"}),
        }
    }

    /// The page's notes with their provenance: the normalised URL, and the
    /// title and date of the page as read.
    fn extract(&self, url: &str, page: Option<&Value>) -> Value {
        let url = normalize_url(url);
        let field = |key: &str| page.and_then(|p| p.get(key)).cloned().unwrap_or_default();
        let notes: Vec<Value> = self
            .spec
            .pages
            .get(&url)
            .map(|p| p.notes.as_slice())
            .unwrap_or_default()
            .iter()
            .map(|note| {
                json!({"claim": note.claim, "quote": note.quote, "url": url,
                       "title": field("title"), "published_at": field("published_at")})
            })
            .collect();
        json!({"status": "ok", "data": {"notes": notes}})
    }

    /// 004's structural check (a quote of 20 characters, a claim), note by
    /// note, then the issues the scenario scripts for each note.
    fn verify(&self, notes: Option<&Value>) -> Value {
        let notes = notes
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice);
        let text = |note: &Value, key: &str| note.get(key).map(py_str).unwrap_or_default();
        let mut issues: Vec<String> = Vec::new();
        for note in notes {
            if py_strip(&text(note, "quote")).chars().count() < MIN_QUOTE_CHARS {
                issues.push("quote_too_short".into());
            }
            if py_strip(&text(note, "claim")).is_empty() {
                issues.push("claim_missing".into());
            }
        }
        for note in notes {
            issues.extend(self.scripted_issues(note));
        }
        let mut data = Map::new();
        data.insert("ok".into(), issues.is_empty().into());
        data.insert("checked_notes".into(), notes.len().into());
        data.insert("issues".into(), issues.into());
        json!({"status": "ok", "data": data})
    }

    /// What the scenario says the verifier finds in `note`: the issues of
    /// the page's note with the same claim and quote.
    fn scripted_issues(&self, note: &Value) -> Vec<String> {
        let text = |key: &str| note.get(key).and_then(Value::as_str).unwrap_or_default();
        self.spec
            .pages
            .get(text("url"))
            .and_then(|page| {
                page.notes
                    .iter()
                    .find(|n| n.claim == text("claim") && n.quote == text("quote"))
            })
            .map(|n| n.issues.clone())
            .unwrap_or_default()
    }
}

impl PatternTools for SimSources {
    fn serves(&self, name: &str) -> bool {
        ResearchTool::parse(name).is_some()
    }

    fn call<'a>(
        &'a self,
        name: &'a str,
        args: &'a Value,
        clock: &'a RunClock,
    ) -> Pin<Box<dyn Future<Output = Result<Value, WorkerError>> + Send + 'a>> {
        Box::pin(async move {
            match ResearchTool::parse(name) {
                Some(tool) => SimSources::call(self, tool, args, clock).await,
                None => Err(WorkerError::Missing),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sources() -> SimSources {
        let spec: Sources = serde_json::from_value(json!({
            "search_results": [{"url": "https://a.example/x#top", "title": "A"},
                               {"url": "b.example/y/", "title": "B", "score": 0.5}],
            "pages": {"https://a.example/x": {"title": "A", "published_at": "2026-03-07", "body": "text",
                "notes": [{"claim": "A says so.", "quote": "A quote that is long enough.", "issues": ["stale_source"]}]}},
            "tools": {"read_source": {"latency_ms": [300, 100]}, "verify_notes": {"fail": [2]}}
        }))
        .unwrap();
        SimSources::new(spec, RunRng::seeded(0))
    }

    #[tokio::test(start_paused = true)]
    async fn search_read_and_extract_answer_from_the_scenario() {
        let s = sources();
        let found = s
            .call(
                ResearchTool::SearchSources,
                &json!({"query": "q", "k": 1}),
                &RunClock::start(),
            )
            .await
            .unwrap();
        assert_eq!(
            found,
            json!({"status": "ok", "data": {"results": [{"url": "https://a.example/x#top", "title": "A"}]}})
        );
        let start = tokio::time::Instant::now();
        let page = s
            .call(
                ResearchTool::ReadSource,
                &json!({"url": "HTTPS://A.example/x?ref=1"}),
                &RunClock::start(),
            )
            .await
            .unwrap();
        assert_eq!(start.elapsed(), Duration::from_millis(300));
        assert_eq!(page["data"]["url"], "https://a.example/x");
        let missing = s
            .call(
                ResearchTool::ReadSource,
                &json!({"url": "b.example/y"}),
                &RunClock::start(),
            )
            .await
            .unwrap();
        assert_eq!(missing, json!({"status": "error", "error": "not_found"}));
        assert_eq!(
            start.elapsed(),
            Duration::from_millis(400),
            "the last latency repeats"
        );
        let notes = s
            .call(
                ResearchTool::ExtractNotes,
                &json!({"url": "https://a.example/x", "page": page["data"]}),
                &RunClock::start(),
            )
            .await
            .unwrap();
        assert_eq!(
            notes["data"]["notes"],
            json!([{"claim": "A says so.", "quote": "A quote that is long enough.",
                    "url": "https://a.example/x", "title": "A", "published_at": "2026-03-07"}])
        );
    }

    #[tokio::test(start_paused = true)]
    async fn the_verifier_checks_structure_then_reports_scripted_issues() {
        let s = sources();
        let good = json!({"id": "n1", "claim": "A says so.", "quote": "A quote that is long enough.",
                          "url": "https://a.example/x"});
        let short = json!({"id": "n2", "claim": " ", "quote": " too short "});
        let verdict = s
            .call(
                ResearchTool::VerifyNotes,
                &json!({"notes": [good, short]}),
                &RunClock::start(),
            )
            .await
            .unwrap();
        assert_eq!(
            verdict,
            json!({"status": "ok", "data": {"ok": false, "checked_notes": 2,
                   "issues": ["quote_too_short", "claim_missing", "stale_source"]}})
        );
        assert_eq!(
            s.call(
                ResearchTool::VerifyNotes,
                &json!({"notes": []}),
                &RunClock::start()
            )
            .await,
            Err(WorkerError::FAILED),
            "the second call is scripted to fail"
        );
    }
}
