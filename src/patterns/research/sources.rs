//! Which sources a research run reads, after 004: candidate URLs are
//! normalised and deduplicated up to `max_urls`, and each one is checked
//! against the policy allowlist, then the execution allowlist (narrowed by
//! any flag that is off). Pure functions; reading is the runner's job.

use crate::patterns::research::events::SourceDenial;
use crate::scenario::{ResearchLimits, normalize_url};
use std::collections::HashSet;

/// The first `max_urls` distinct normalised URLs, in candidate order.
pub(crate) fn dedupe(candidates: &[String], max_urls: usize) -> Vec<String> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for candidate in candidates {
        let url = normalize_url(candidate);
        if seen.insert(url.clone()) {
            out.push(url);
            if out.len() >= max_urls {
                break;
            }
        }
    }
    out
}

/// What the domain checks say about a source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    Allow,
    Deny {
        reason: SourceDenial,
        /// The flag that is off and gates the domain, when that is why.
        gated_by: Option<String>,
    },
}

/// 004's `evaluate_source`: policy first, then execution. `gated_by` says
/// which flag, if any, keeps `domain` out of the execution allowlist.
pub(crate) fn evaluate(
    domain: &str,
    limits: &ResearchLimits,
    gated_by: impl FnOnce(&str) -> Option<String>,
) -> Verdict {
    if !limits.policy.contains(domain) {
        return Verdict::Deny {
            reason: SourceDenial::Policy,
            gated_by: None,
        };
    }
    if !limits.execution.contains(domain) {
        return Verdict::Deny {
            reason: SourceDenial::Execution,
            gated_by: None,
        };
    }
    match gated_by(domain) {
        Some(flag) => Verdict::Deny {
            reason: SourceDenial::Execution,
            gated_by: Some(flag),
        },
        None => Verdict::Allow,
    }
}

/// Every domain a source may be read from now: the policy's that pass
/// [`evaluate`] with the flags as they stand. A real read re-checks a
/// redirect's target against it.
pub(crate) fn allowed_domains(
    limits: &ResearchLimits,
    gated_by: impl Fn(&str) -> Option<String>,
) -> Vec<String> {
    limits
        .policy
        .iter()
        .filter(|domain| evaluate(domain, limits, |d| gated_by(d)) == Verdict::Allow)
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn dedupe_keeps_first_forms_up_to_the_limit() {
        let candidates: Vec<String> = [
            "https://a.example/x",
            "https://A.example/x/#top",
            "a.example/x?ref=1",
            "http://a.example/x",
            "https://b.example/",
            "https://c.example",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            dedupe(&candidates, 6),
            vec![
                "https://a.example/x",
                "http://a.example/x",
                "https://b.example/",
                "https://c.example/"
            ]
        );
        assert_eq!(dedupe(&candidates, 2).len(), 2);
        assert!(dedupe(&[], 6).is_empty());
    }

    #[test]
    fn policy_before_execution_then_flags() {
        let set = |items: &[&str]| items.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
        let limits = ResearchLimits {
            policy: set(&["a.example", "b.example"]),
            execution: set(&["a.example", "c.example"]),
            max_urls: 6,
            max_read_pages: 3,
            max_notes: 6,
            max_answer_chars: 850,
            max_seconds: 25.0,
            max_steps: 8,
        };
        let no_flag = |_: &str| None;
        assert_eq!(evaluate("a.example", &limits, no_flag), Verdict::Allow);
        let denied = |reason, gated_by| Verdict::Deny { reason, gated_by };
        assert_eq!(
            evaluate("c.example", &limits, no_flag),
            denied(SourceDenial::Policy, None),
            "execution alone is not enough"
        );
        assert_eq!(
            evaluate("b.example", &limits, no_flag),
            denied(SourceDenial::Execution, None)
        );
        assert_eq!(
            evaluate("a.example", &limits, |_| Some("a_reads".into())),
            denied(SourceDenial::Execution, Some("a_reads".into()))
        );
        assert_eq!(allowed_domains(&limits, no_flag), ["a.example"]);
        let gated = |d: &str| (d == "a.example").then(|| "a_reads".to_string());
        assert!(
            allowed_domains(&limits, gated).is_empty(),
            "a flag narrows it"
        );
    }
}
