//! The research workflow's fourth step: each source passes the policy and
//! the execution allowlist, the allowed ones are read within the read
//! budget and their notes kept within the note budget, as 004's loop does.

use super::contract::validate_notes;
use super::result::{DeniedSource, HistoryDetail, TraceCounts};
use super::sources::{Verdict, allowed_domains, evaluate};
use super::stops::ResearchStop;
use super::workflow::text;
use super::{Desk, Stop, tool_failed};
use crate::bus::EventKind;
use crate::gateway::Check;
use crate::patterns::events::PatternEvent;
use crate::patterns::research::events::ResearchEvent;
use crate::patterns::research::events::{
    NoteExtracted, PageRead, ResearchPhase, SourceAllowed, SourceDenied,
};
use crate::provider::prompts::{Prompt, compiled_in};
use crate::scenario::{ResearchTool, url_domain};
use crate::stop::StopReason;
use serde_json::{Value, json};

/// The system prompt of a page's notes.
const NOTES_PROMPT: Prompt = compiled_in!("research_notes.md", json);

impl Desk<'_> {
    /// Step 4: check each source's domain, read the allowed ones within
    /// `max_read_pages` and keep their notes within `max_notes`, as 004's
    /// loop does (the read budget stops at the next allowed source, the
    /// note budget at once). The notes, the pages read and the denials.
    pub(super) async fn read_extract(
        &mut self,
        step_id: &str,
        urls: &[String],
    ) -> Result<(Vec<Value>, usize, Vec<DeniedSource>), Stop> {
        self.enter(ResearchPhase::ReadExtract).await?;
        let max_notes = self.limits.max_notes;
        let mut notes: Vec<Value> = Vec::new();
        let mut pages_read = 0;
        let mut denied = Vec::new();
        for url in urls {
            if self.time_is_up() {
                return Err(StopReason::MaxSeconds.into());
            }
            let Some(domain) = self.screen(url, &mut denied) else {
                continue;
            };
            if pages_read >= self.limits.max_read_pages {
                break;
            }
            let page = self.read_page(step_id, url, domain).await?;
            let items = self.page_notes(step_id, url, &page, notes.len()).await?;
            self.keep_notes(&items, &mut notes);
            pages_read += 1;
            if notes.len() >= max_notes {
                break;
            }
        }
        if notes.is_empty() {
            return Err(Stop {
                reason: Some(ResearchStop::NoReliableSources.into()),
                denied_sources: Some(denied),
                ..Stop::default()
            });
        }
        validate_notes(&notes, max_notes).map_err(|e| Stop::from(ResearchStop::InvalidNotes(e)))?;
        self.done(
            TraceCounts::ReadExtract {
                pages_read,
                notes: notes.len(),
                denied_sources: denied.len(),
            },
            HistoryDetail::ReadExtract {
                pages_read,
                denied_sources: denied.clone(),
            },
            notes.len(),
        );
        Ok((notes, pages_read, denied))
    }

    /// `read_source` fetches pages for real instead of reading `pages`.
    fn fetches_pages(&self) -> bool {
        self.scenario.sources.as_ref().is_some_and(|s| s.fetches())
    }

    /// The source's domain when the checks let it through; a denied source
    /// is recorded in `denied` and announced instead.
    fn screen(&self, url: &str, denied: &mut Vec<DeniedSource>) -> Option<String> {
        let domain = url_domain(url);
        if let Verdict::Deny { reason, gated_by } =
            evaluate(&domain, &self.limits, |d| self.gate.gated_by(d))
        {
            denied.push(DeniedSource {
                url: url.to_string(),
                reason,
            });
            self.bus.publish(EventKind::Pattern(PatternEvent::Research(
                ResearchEvent::SourceDenied(SourceDenied {
                    url: url.to_string(),
                    domain,
                    reason,
                    gated_by,
                }),
            )));
            return None;
        }
        Some(domain)
    }

    /// Read an allowed source: the page, announced.
    async fn read_page(&self, step_id: &str, url: &str, domain: String) -> Result<Value, Stop> {
        self.bus.publish(EventKind::Pattern(PatternEvent::Research(
            ResearchEvent::SourceAllowed(SourceAllowed {
                url: url.to_string(),
                domain,
            }),
        )));
        // A real read follows a redirect only to a domain these checks
        // allow now.
        let args = if self.fetches_pages() {
            let allowed = allowed_domains(&self.limits, |d| self.gate.gated_by(d));
            json!({"url": url, "allowed_domains": allowed})
        } else {
            json!({"url": url})
        };
        let page = self.tool(step_id, ResearchTool::ReadSource, args).await?;
        let page = Value::Object(page);
        self.bus.publish(EventKind::Pattern(PatternEvent::Research(
            ResearchEvent::PageRead(PageRead {
                url: url.to_string(),
                title: text(&page, "title"),
                published_at: text(&page, "published_at"),
            }),
        )));
        Ok(page)
    }

    /// The notes a page gives, `kept` notes being kept so far: the model's
    /// from a page fetched for real, the extract tool's otherwise.
    async fn page_notes(
        &self,
        step_id: &str,
        url: &str,
        page: &Value,
        kept: usize,
    ) -> Result<Vec<Value>, Stop> {
        if self.fetches_pages() {
            // A page read for real has no scripted notes: the model
            // takes them, and only quotes the page holds are kept.
            let wanted = self.limits.max_notes - kept;
            let payload = json!({"goal": self.goal, "request": self.scenario.context,
                                 "url": url, "page": page, "max_notes": wanted});
            let read = self
                .model(
                    "notes",
                    super::sim::notes(),
                    &NOTES_PROMPT,
                    payload,
                    std::sync::Arc::clone(&super::schema::NOTES_CONTRACT),
                    &Check {
                        read: &|output| super::answer_checks::notes(output, page, url),
                        problem: &|(problem, _): &(String, Vec<Value>)| problem.clone(),
                        before_repair: &|| Ok(()),
                    },
                )
                .await?;
            // Notes an answer still wrong when the repairs ran out are
            // kept as far as they hold, as they always were.
            Ok(read.unwrap_or_else(|(_, kept)| kept))
        } else {
            let args = json!({"url": url, "page": page});
            let extracted = self.tool(step_id, ResearchTool::ExtractNotes, args).await?;
            match extracted.get("notes").and_then(Value::as_array) {
                Some(items) if items.iter().all(Value::is_object) => Ok(items.clone()),
                _ => Err(tool_failed(ResearchTool::ExtractNotes)),
            }
        }
    }

    /// Number a page's notes after the ones kept and announce each, up to
    /// `max_notes`.
    fn keep_notes(&self, items: &[Value], notes: &mut Vec<Value>) {
        for item in items {
            let mut note = item.clone();
            note["id"] = format!("n{}", notes.len() + 1).into();
            self.bus.publish(EventKind::Pattern(PatternEvent::Research(
                ResearchEvent::NoteExtracted(NoteExtracted {
                    id: text(&note, "id"),
                    url: text(&note, "url"),
                    title: text(&note, "title"),
                    published_at: text(&note, "published_at"),
                    claim: text(&note, "claim"),
                    quote: text(&note, "quote"),
                }),
            )));
            notes.push(note);
            if notes.len() >= self.limits.max_notes {
                break;
            }
        }
    }
}
