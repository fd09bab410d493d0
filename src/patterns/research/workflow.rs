//! The research workflow's steps, in 004's order: plan, search, dedupe,
//! read and extract notes, verify, synthesize. Each step passes its gate,
//! calls through the gateway, applies its contract and enters the trace;
//! the first rule that fails stops the run there.

use super::answer_checks;
use super::plan::{self, EXPECTED_ACTIONS};
use super::result::{Aggregate, CitationDetail, HistoryDetail, TraceCounts};
use super::schema;
use super::sources::dedupe;
use super::stops::ResearchStop;
use super::{Answer, Desk, Stop};
use crate::bus::EventKind;
use crate::gateway::Check;
use crate::patterns::events::PatternEvent;
use crate::patterns::research::events::ResearchEvent;
use crate::patterns::research::events::{
    Cited, NotesVerified, ResearchPhase, SourceFound, SourcesDeduped,
};
use crate::provider::prompts::{Prompt, compiled_in};
use crate::pycompat::{py_int, py_str, py_strip, py_truthy};
use crate::scenario::ResearchTool;
use crate::stop::StopReason;
use serde_json::{Value, json};
use std::sync::Arc;

/// The system prompts of the plan and of the synthesis.
const PLAN_PROMPT: Prompt = compiled_in!("research_plan.md", json);
const SYNTHESIS_PROMPT: Prompt = compiled_in!("research_synthesis.md", json);

impl Desk<'_> {
    /// The whole workflow: the grounded answer, or why the run stopped.
    pub(super) async fn research(&mut self) -> Result<Answer, Stop> {
        let steps = self.plan().await?;
        let query = self.enter_search(&steps).await?;
        let candidates = self.search(&steps[0].id, &query).await?;
        let deduped = self.dedupe(&candidates).await?;
        let (notes, pages_read, denied) = self.read_extract(&steps[2].id, &deduped).await?;
        let checked = self.verify(&steps[3].id, &notes).await?;
        let (answer, citations, citation_details) = self.synthesize(&notes).await?;
        let aggregate = Aggregate {
            query,
            urls_found: candidates.len(),
            urls_after_dedupe: deduped.len(),
            pages_read,
            notes_count: notes.len(),
            citations_count: citations.len(),
            denied_sources: denied,
            verified_notes: checked,
        };
        Ok(Answer {
            answer,
            citations,
            citation_details,
            aggregate,
        })
    }

    /// Step 1: ask for a plan and check it.
    async fn plan(&mut self) -> Result<Vec<plan::PlanStep>, Stop> {
        self.enter(ResearchPhase::Plan).await?;
        if self.time_is_up() {
            return Err(StopReason::MaxSeconds.into());
        }
        let payload = json!({
            "goal": self.goal, "request": self.scenario.context,
            "actions": EXPECTED_ACTIONS, "max_steps": self.limits.max_steps,
        });
        let read = self
            .model(
                "plan",
                super::sim::plan(),
                &PLAN_PROMPT,
                payload,
                Arc::clone(&schema::RESEARCH_PLAN),
                &Check {
                    read: &|output| answer_checks::plan(output, self.limits.max_steps),
                    problem: &|refused| answer_checks::plan_problem(refused),
                    before_repair: &|| Ok(()),
                },
            )
            .await?;
        let steps = read.map_err(|refused| {
            let (r, _) = *refused;
            Stop {
                reason: Some(r.reason.into()),
                details: r.details,
                ..Stop::default()
            }
        })?;
        self.done(
            TraceCounts::Plan { steps: steps.len() },
            HistoryDetail::Plan {
                step_ids: steps.iter().map(|s| s.id.clone()).collect(),
            },
            steps.len(),
        );
        Ok(steps)
    }

    /// Step 2 begins: the search step's query, which must not be blank.
    async fn enter_search(&mut self, steps: &[plan::PlanStep]) -> Result<String, Stop> {
        self.enter(ResearchPhase::Search).await?;
        let query = steps[0]
            .args
            .get("query")
            .map(|q| py_strip(&py_str(q)).to_string())
            .unwrap_or_default();
        if query.is_empty() {
            return Err(ResearchStop::InvalidSearchQuery.into());
        }
        Ok(query)
    }

    /// Step 2: search for `2 × max_urls` candidates; their URLs.
    async fn search(&mut self, step_id: &str, query: &str) -> Result<Vec<String>, Stop> {
        let k = self.limits.max_urls * 2;
        let data = self
            .tool(
                step_id,
                ResearchTool::SearchSources,
                json!({"query": query, "k": k}),
            )
            .await?;
        let results = match data.get("results") {
            Some(Value::Array(items)) => items.as_slice(),
            _ => &[],
        };
        let mut candidates = Vec::new();
        for item in results.iter().filter(|item| item.is_object()) {
            let url = py_strip(&text(item, "url")).to_string();
            self.bus.publish(EventKind::Pattern(PatternEvent::Research(
                ResearchEvent::SourceFound(SourceFound {
                    rank: u32::try_from(candidates.len() + 1).unwrap_or(u32::MAX),
                    url: url.clone(),
                    title: text(item, "title"),
                }),
            )));
            candidates.push(url);
        }
        self.done(
            TraceCounts::Search {
                query: query.to_string(),
                candidates: candidates.len(),
            },
            HistoryDetail::Search {
                query: query.to_string(),
                candidates: candidates.len(),
            },
            candidates.len(),
        );
        Ok(candidates)
    }

    /// Step 3: normalise and deduplicate, up to `max_urls`.
    async fn dedupe(&mut self, candidates: &[String]) -> Result<Vec<String>, Stop> {
        self.enter(ResearchPhase::Dedupe).await?;
        let deduped = dedupe(candidates, self.limits.max_urls);
        if deduped.is_empty() {
            return Err(ResearchStop::NoSourcesAfterDedupe.into());
        }
        self.bus.publish(EventKind::Pattern(PatternEvent::Research(
            ResearchEvent::SourcesDeduped(SourcesDeduped {
                urls: deduped.clone(),
            }),
        )));
        self.done(
            TraceCounts::Dedupe {
                urls_after_dedupe: deduped.len(),
            },
            HistoryDetail::Dedupe {
                urls_after_dedupe: deduped.len(),
            },
            deduped.len(),
        );
        Ok(deduped)
    }

    /// Step 5: the verifier's findings; the number of notes it checked.
    async fn verify(&mut self, step_id: &str, notes: &[Value]) -> Result<i64, Stop> {
        self.enter(ResearchPhase::Verify).await?;
        let verification = self
            .tool(step_id, ResearchTool::VerifyNotes, json!({"notes": notes}))
            .await?;
        let ok = verification.get("ok").is_some_and(py_truthy);
        let checked = verification
            .get("checked_notes")
            .and_then(py_int)
            .unwrap_or(0);
        let issues = verification.get("issues").unwrap_or(&Value::Null);
        self.bus.publish(EventKind::Pattern(PatternEvent::Research(
            ResearchEvent::NotesVerified(NotesVerified {
                checked: u64::try_from(checked).unwrap_or(0),
                ok,
                issues: match issues {
                    Value::Array(items) => items.iter().map(py_str).collect(),
                    _ => Vec::new(),
                },
            }),
        )));
        if !ok {
            return Err(Stop {
                reason: Some(
                    ResearchStop::VerificationFailed {
                        issue: first_issue(issues),
                    }
                    .into(),
                ),
                verification: Some(Value::Object(verification)),
                ..Stop::default()
            });
        }
        let issue_count = match issues {
            Value::Array(items) => items.len(),
            Value::String(s) => s.chars().count(),
            Value::Object(map) => map.len(),
            _ => 0,
        };
        self.done(
            TraceCounts::Verify {
                checked_notes: checked,
                issues: issue_count,
            },
            HistoryDetail::Verify {
                checked_notes: checked,
            },
            usize::try_from(checked).unwrap_or(0),
        );
        Ok(checked)
    }

    /// Step 6: ask for the answer from the notes and check it: the answer,
    /// its citations and the cited notes' provenance.
    async fn synthesize(
        &mut self,
        notes: &[Value],
    ) -> Result<(String, Vec<String>, Vec<CitationDetail>), Stop> {
        self.enter(ResearchPhase::Synthesize).await?;
        let payload = json!({"goal": self.goal, "request": self.scenario.context, "notes": notes});
        let ids: Vec<String> = notes.iter().map(|n| text(n, "id")).collect();
        let max_chars = self.limits.max_answer_chars;
        let contract = Arc::new(schema::synthesis_contract(&ids));
        let read = self
            .model(
                "synthesis",
                super::sim::synthesis(),
                &SYNTHESIS_PROMPT,
                payload,
                contract,
                &Check {
                    read: &|output| answer_checks::synthesis(output, &ids, max_chars),
                    problem: &answer_checks::synthesis_problem,
                    before_repair: &|| Ok(()),
                },
            )
            .await?;
        let (answer, citations) =
            read.map_err(|(e, _)| Stop::from(ResearchStop::InvalidAnswer(e)))?;
        let details: Vec<CitationDetail> = notes
            .iter()
            .filter(|n| citations.contains(&text(n, "id")))
            .map(|n| CitationDetail {
                id: text(n, "id"),
                url: text(n, "url"),
                title: text(n, "title"),
                published_at: text(n, "published_at"),
            })
            .collect();
        for detail in &details {
            self.bus.publish(EventKind::Pattern(PatternEvent::Research(
                ResearchEvent::Cited(Cited {
                    id: detail.id.clone(),
                    url: detail.url.clone(),
                    title: detail.title.clone(),
                    published_at: detail.published_at.clone(),
                }),
            )));
        }
        self.done(
            TraceCounts::Synthesize {
                answer_chars: answer.chars().count(),
                citations: citations.len(),
            },
            HistoryDetail::Synthesize {
                citations: citations.clone(),
            },
            citations.len(),
        );
        Ok((answer, citations, details))
    }
}

/// `str(value)` of a field, or empty text when it is absent.
pub(super) fn text(value: &Value, key: &str) -> String {
    value.get(key).map(py_str).unwrap_or_default()
}

/// `str(issues[0])` of the verifier's issues, `unknown` when it names none.
fn first_issue(issues: &Value) -> String {
    match issues {
        Value::Array(items) => items.first().map_or_else(|| "unknown".into(), py_str),
        Value::String(s) => s
            .chars()
            .next()
            .map_or_else(|| "unknown".into(), String::from),
        _ => "unknown".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_issue_is_named_as_python_would() {
        assert_eq!(first_issue(&json!(["stale", "x"])), "stale");
        assert_eq!(first_issue(&json!([])), "unknown");
        assert_eq!(first_issue(&json!(null)), "unknown");
        assert_eq!(first_issue(&json!("abc")), "a");
        assert_eq!(first_issue(&json!([3])), "3");
    }
}
