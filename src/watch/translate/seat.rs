//! What a watched run is seated with: a swarm of no declared agents (the
//! spans name them as they come), on no model of Conclave's, named and
//! titled by the service and framework its first span tells, and marked
//! watched by its source.

use crate::scenario::Scenario;
use crate::watch::framework::framework_of;

/// The scenario a watched run is seated with, from its first span (none:
/// a hooked run whose hook spoke first): two runs of one app are runs of
/// one scenario (they compare step by step), the trace is the run's
/// source.
pub(crate) fn seat_of(span: Option<&crate::span::Span>) -> Scenario {
    let service = span.and_then(|s| s.service.clone()).unwrap_or_default();
    let framework = span.and_then(framework_of).unwrap_or("");
    let goal = match (service.as_str(), framework) {
        ("", "") => "a watched run".to_string(),
        (service, "") | ("", service) => format!("{service}, watched"),
        (service, framework) => format!("{service} ({framework}), watched"),
    };
    watched_scenario(&service, framework, &goal)
}

/// The scenario name of a run seated before any span told its service.
pub(crate) const UNSEATED: &str = "watch_";

pub(crate) use crate::bus::event::WATCH_SOURCE;

/// The scenario a watched run of `service` (made with `framework`) is
/// seated with: a swarm of no declared agents (they are named as the
/// spans tell them), on no model of Conclave's, titled with what it is
/// (`watched · openai_agents · refunds`) for the dashboard's header.
fn watched_scenario(service: &str, framework: &str, goal: &str) -> Scenario {
    let name: String = service
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let mut title = "watched".to_string();
    for part in [framework, service] {
        if !part.is_empty() {
            title.push_str(" · ");
            title.push_str(&crate::sanitize::clean(part));
        }
    }
    let doc = serde_json::json!({
        "name": format!("{UNSEATED}{name}"),
        "title": title,
        "pattern": "swarm",
        "goal": goal,
        "context": {},
        "provider": {"kind": "sim"},
    });
    serde_json::from_value(doc).expect("the watched run's scenario reads")
}
