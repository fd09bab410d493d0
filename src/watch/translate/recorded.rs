//! A watch recording as a run's events, for `conclave replay` and
//! `conclave compare` in the dashboard: the spans told as they arrived,
//! those that came at the same millisecond (one request) together, and
//! the run finished with the summary its spans make again, as
//! `--headless` prints it. The run's steering decisions are told among
//! its spans by their time: a decision's is counted from the hook's first
//! call, a span's from the first span's arrival; a decision made before
//! any span came is told after the first request's spans (the run starts
//! with its first span).

use super::Translator;
use crate::bus::Event;
use crate::watch::forest::{Forest, Inserted};
use crate::watch::read::Readings;
use crate::watch::record::read_as_written;
use crate::watch::runs::{Arrival, DEFAULT_MAX_SPANS};
use crate::watch::steer::Decision;
use crate::watch::steer::words::decision_words;
use crate::watch::summary::summarise_read;
use std::path::Path;
use std::sync::Arc;

/// The events of the run recorded at `path`; the error names the file
/// and the line that cannot be read.
pub(crate) fn events_of(path: &Path) -> Result<Vec<Arc<Event>>, String> {
    let mut rec = read_as_written(path).map_err(|e| e.to_string())?;
    let trace = u128::from_str_radix(&rec.trace_id, 16).unwrap_or(0);
    let steering = crate::watch::steer::replayed::steering_of(&rec);
    let mut forest = Forest::new(DEFAULT_MAX_SPANS.max(rec.spans.len()));
    let mut translator = Translator::new(1, trace);
    let mut readings = Readings::default();
    let mut events = Vec::new();
    let mut batch: Vec<Arrival> = Vec::new();
    let mut last_ms = 0;
    let spans = std::mem::take(&mut rec.spans);
    let mut decisions = std::mem::take(&mut rec.steered);
    decisions.sort_by_key(|(at_ms, _)| *at_ms);
    let mut decisions = decisions.into_iter().peekable();
    for ((at_ms, span), (kind, under_placeholder)) in spans.into_iter().zip(rec.read_as.clone()) {
        if batch.last().is_some_and(|a| a.at_ms != at_ms) {
            events.extend(translator.take(&batch, &forest, &mut readings, None));
            batch.clear();
            let told = Told {
                from: last_ms,
                until: Some(at_ms),
            };
            events.extend(told.steered(&mut translator, &mut decisions));
        }
        last_ms = at_ms;
        if matches!(
            forest.insert(span.clone()),
            Inserted::Kept | Inserted::CutCircle
        ) {
            batch.push(Arrival {
                at_ms,
                span,
                kind,
                under_placeholder,
            });
        }
    }
    events.extend(translator.take(&batch, &forest, &mut readings, None));
    if events.is_empty() {
        return Err(format!("{}: the recording holds no span", path.display()));
    }
    let told = Told {
        from: last_ms,
        until: None,
    };
    let steered = told.steered(&mut translator, &mut decisions);
    let last_ms = steered.last().map_or(last_ms, |e| e.t_ms);
    events.extend(steered);
    let mut summary = summarise_read(trace, &forest, &readings, None);
    summary.recording = Some(path.display().to_string());
    crate::watch::steer::marks::with_steering(&mut summary, steering);
    summary.incomplete = rec.incomplete();
    events.extend(translator.finish((&forest, &readings), &summary, None, last_ms));
    Ok(events.into_iter().map(Arc::new).collect())
}

/// Which decisions to tell: those made before `until` (all, without
/// one), none told before `from` (the run's clock only goes forward).
struct Told {
    from: u64,
    until: Option<u64>,
}

impl Told {
    fn steered(
        &self,
        translator: &mut Translator,
        decisions: &mut std::iter::Peekable<std::vec::IntoIter<(u64, Decision)>>,
    ) -> Vec<Event> {
        let mut events = Vec::new();
        while let Some((at_ms, decision)) =
            decisions.next_if(|(at_ms, _)| self.until.is_none_or(|until| *at_ms < until))
        {
            let said = decision_words(&decision);
            let decision = serde_json::to_value(&decision).unwrap_or_default();
            events.extend(translator.steered(at_ms.max(self.from), said, decision));
        }
        events
    }
}
