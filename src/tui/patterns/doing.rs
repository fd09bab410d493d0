//! What a run is doing, in words, for the header while it runs: the
//! gateway calls in flight, what each asks and of whom.

use crate::tui::state::calls::CallInFlight;
use crate::tui::text::fit;
use crate::words::plural;

/// The calls in flight in words, oldest first: what the model is asked
/// for, or which worker or tool is called for what, each with its attempt.
pub(crate) fn calls_in_words(calls: &[CallInFlight]) -> Option<String> {
    const SHOWN: usize = 2;
    let words: Vec<String> = calls.iter().take(SHOWN).map(call_in_words).collect();
    let mut text = words.join("; ");
    if text.is_empty() {
        return None;
    }
    if calls.len() > SHOWN {
        text.push_str(&format!(
            "; and {}",
            plural((calls.len() - SHOWN) as u64, "other call")
        ));
    }
    Some(text)
}

fn call_in_words(call: &CallInFlight) -> String {
    let attempt = call.attempt.max(1);
    if call.tool == "model" {
        return format!(
            "asking the model for {} (attempt {attempt})",
            fit(&call.label, 60)
        );
    }
    // Tool labels end with the tool's name: `us-enrich · enrichment_worker`.
    let what = call
        .label
        .strip_suffix(call.tool.as_str())
        .map_or(call.label.as_str(), |rest| {
            rest.trim_end_matches([' ', '·'])
        });
    let tool = fit(&call.tool, 40);
    if what.is_empty() {
        format!("calling {tool} (attempt {attempt})")
    } else {
        format!("calling {tool} for {} (attempt {attempt})", fit(what, 40))
    }
}
