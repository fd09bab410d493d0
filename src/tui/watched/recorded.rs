//! `conclave replay` and `conclave compare` without `--headless` on the
//! watch's own recordings: the recorded runs on the watch's screen, each
//! a tab, every span in the order and at the time it arrived (the event
//! log's `+ms`), the run finished with the summary its spans make again
//! (`watch::replay::rebuild`, what `--headless` prints). Comparing says
//! in the footer where the two runs first differ, by agents, handoffs
//! and tool calls as `compare --headless` does, and how their model
//! calls and tokens differ.

use super::state::Watched;
use super::{terminal, view};
use crate::exit::Exit;
use crate::watch::consume::WatchFeed;
use crate::watch::replay::{first_divergence, rebuild};
use crate::watch::runs::{Arrival, Limits};
use crate::watch::summary::WatchSummary;
use std::collections::HashSet;
use std::path::Path;

/// `conclave replay RECORDING` of a watch recording.
pub fn replay(path: &Path) -> Exit {
    let mut watched = Watched::new(Limits::default(), None);
    if let Err(exit) = load(&mut watched, path) {
        return exit;
    }
    watched.source = format!("replay of {}", path.display());
    show(watched)
}

/// `conclave compare A B` of two watch recordings: A in tab 1, B in tab 2.
pub fn compare(a: &Path, b: &Path) -> Exit {
    let mut watched = Watched::new(Limits::default(), None);
    let (sa, sb) = match (load(&mut watched, a), load(&mut watched, b)) {
        (Ok(sa), Ok(sb)) => (sa, sb),
        (Err(exit), _) | (_, Err(exit)) => return exit,
    };
    watched.compared = Some(compared_words(&sa, &sb));
    watched.source = format!("{} and {}", a.display(), b.display());
    show(watched)
}

/// Where `a` and `b` first differ, and their model calls and tokens.
pub(crate) fn compared_words(a: &WatchSummary, b: &WatchSummary) -> String {
    let first = match first_divergence(a, b) {
        None => "1 and 2 agree on agents, handoffs and tool calls".to_string(),
        Some(at) => format!(
            "1 and 2 first differ in {} at {}: {} · {}",
            at["in"].as_str().unwrap_or_default(),
            at["index"],
            at["a"],
            at["b"]
        ),
    };
    let figures = |s: &WatchSummary| {
        format!(
            "{} model calls, {}/{} tok",
            s.model_calls, s.input_tokens, s.output_tokens
        )
    };
    let (fa, fb) = (figures(a), figures(b));
    if fa == fb {
        format!("compare: {first}; both made {fa}")
    } else {
        format!("compare: {first}; 1 made {fa}, 2 made {fb}")
    }
}

/// The run recorded at `path` into `watched` as a tab of its own; its
/// summary. A file that is not one says so, exit 2.
fn load(watched: &mut Watched, path: &Path) -> Result<WatchSummary, Exit> {
    let mut rec = crate::watch::record::read(path).map_err(|e| {
        crate::output::message(&format!("conclave: {e}"));
        Exit::BadInput
    })?;
    let summary = rebuild(path)?;
    let id = u128::from_str_radix(&rec.trace_id, 16).unwrap_or(0);
    let mut arrived = HashSet::new();
    let spans = rec
        .spans
        .into_iter()
        .map(|(at_ms, span)| {
            let under_placeholder = span.parent.is_some_and(|p| !arrived.contains(&p));
            arrived.insert(span.span_id);
            Arrival {
                at_ms,
                kind: crate::watch::read::read(&span).kind(),
                under_placeholder,
                span,
            }
        })
        .collect();
    let mut finished = summary.clone();
    finished.trace_id = crate::watch::span::trace_hex(id);
    let steered = std::mem::take(&mut rec.steered);
    watched.take(WatchFeed::Opened(id));
    watched.take(WatchFeed::Arrived { run: id, spans });
    // The run's steering decisions, after its spans as recorded.
    if let Some(at) = watched.index_of(id) {
        for (at_ms, decision) in &steered {
            let said = super::steer::decision_words(decision);
            watched.runs[at].steered(*at_ms, said);
        }
    }
    watched.take(WatchFeed::Finished(Box::new(finished)));
    Ok(summary)
}

/// The screen on `watched` until `q` or a signal.
fn show(watched: Watched) -> Exit {
    let runtime = match crate::runtime::start(&mut tokio::runtime::Builder::new_current_thread()) {
        Ok(runtime) => runtime,
        Err(exit) => return exit,
    };
    runtime.block_on(async move {
        let mut screen = match terminal::init() {
            Ok(screen) => screen,
            Err(e) => {
                crate::output::message(&format!("conclave: cannot open the terminal: {e}"));
                return Exit::BadInput;
            }
        };
        let exit = view(&mut screen, None, watched, None).await;
        terminal::restore();
        exit
    })
}
