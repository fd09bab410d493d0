//! Which model endpoint a worker calls: only the one its operator set up
//! (`OPENAI_BASE_URL` in the worker's environment, else OpenAI's), since
//! the worker sends its own `OPENAI_API_KEY` there. A job that names
//! another (the sweep's `--base-url`, or the scenario's
//! `provider.base_url`) is refused before anything is sent. It only
//! decides; the worker refuses.

use super::queue::ModelSetup;
use crate::provider::openai::{self, DEFAULT_BASE_URL};
use crate::scenario::{ProviderKind, Scenario};

/// The variable that sets a worker's endpoint.
const VARIABLE: &str = "OPENAI_BASE_URL";

/// The endpoint a worker's operator set up, as `openai::base_url` writes
/// it (no trailing slash), and where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct OwnEndpoint {
    url: String,
    origin: &'static str,
}

impl OwnEndpoint {
    /// From the worker's environment: `OPENAI_BASE_URL` when set and not
    /// blank, else OpenAI's. A value that is no URL is the operator's to
    /// fix before the worker starts.
    pub(crate) fn from_env(env: impl Fn(&str) -> Option<String>) -> Result<Self, String> {
        match env(VARIABLE).filter(|value| !value.trim().is_empty()) {
            Some(value) => openai::base_url(&value)
                .map(|url| OwnEndpoint {
                    url,
                    origin: "its OPENAI_BASE_URL",
                })
                .map_err(|problem| {
                    format!(
                        "the environment variable {VARIABLE}: {}; found {value:?} ({problem})",
                        openai::BASE_URL_EXPECTED
                    )
                }),
            None => Ok(OwnEndpoint {
                url: DEFAULT_BASE_URL.to_string(),
                origin: "OpenAI's, as it has no OPENAI_BASE_URL",
            }),
        }
    }

    /// The endpoint, for the job's run to use whatever its scenario says.
    pub(crate) fn url(&self) -> &str {
        &self.url
    }

    /// Why a job with `model` over `scenario` may not run here, if it
    /// may not: it calls a model endpoint other than this one.
    pub(crate) fn refusal(&self, model: &ModelSetup, scenario: &Scenario) -> Option<String> {
        if model.kind.unwrap_or(scenario.provider.kind) != ProviderKind::Openai {
            return None;
        }
        let (named, by) = match (&model.base_url, &scenario.provider.base_url) {
            (Some(url), _) => (url, "the sweep's --base-url"),
            (None, Some(url)) => (url, "the scenario's provider.base_url"),
            (None, None) => return None,
        };
        // A URL that cannot be read is not this worker's either.
        if openai::base_url(named).is_ok_and(|url| url == self.url) {
            return None;
        }
        Some(format!(
            "{by} names the model endpoint {}; this worker calls only the endpoint its operator set up ({}, {}) and sends its key nowhere else; sweep without --base-url, or start the worker with OPENAI_BASE_URL={}",
            serde_json::Value::from(crate::sanitize::clean(named)),
            self.url,
            self.origin,
            serde_json::Value::from(crate::sanitize::clean(named)),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(provider: &str) -> Scenario {
        let text = format!(
            r#"{{"name": "t", "pattern": "orchestrator", "goal": "g", "context": {{}},
            "provider": {provider}, "workers": {{"w": {{"data": {{}}}}}}}}"#
        );
        crate::scenario::parse(&text, "s.json").unwrap()
    }

    fn env(base_url: Option<&str>) -> impl Fn(&str) -> Option<String> {
        let base_url = base_url.map(str::to_string);
        move |name| (name == VARIABLE).then(|| base_url.clone()).flatten()
    }

    fn sent(kind: Option<ProviderKind>, base_url: Option<&str>) -> ModelSetup {
        ModelSetup {
            kind,
            base_url: base_url.map(str::to_string),
            ..ModelSetup::default()
        }
    }

    #[test]
    fn a_job_may_name_only_the_workers_own_endpoint() {
        let own = OwnEndpoint::from_env(env(Some("http://10.0.0.5:11434/v1/"))).unwrap();
        assert_eq!(own.url(), "http://10.0.0.5:11434/v1");
        let openai = scenario(r#"{"kind": "openai"}"#);
        let sim = scenario(r#"{"kind": "sim"}"#);
        // Nothing named, the same endpoint, or no model called at all.
        assert_eq!(own.refusal(&sent(None, None), &openai), None);
        let same = sent(None, Some("http://10.0.0.5:11434/v1"));
        assert_eq!(own.refusal(&same, &openai), None);
        assert_eq!(own.refusal(&sent(None, Some("http://evil")), &sim), None);
        // Another endpoint, from the sweep or from the scenario.
        let flag = own
            .refusal(
                &sent(Some(ProviderKind::Openai), Some("http://evil:1/v1")),
                &sim,
            )
            .expect("refused");
        assert!(
            flag.contains("--base-url")
                && flag.contains("http://evil:1/v1")
                && flag.contains("OPENAI_BASE_URL"),
            "{flag}"
        );
        let in_scenario = scenario(r#"{"kind": "openai", "base_url": "http://evil:2/v1"}"#);
        let said = own
            .refusal(&sent(None, None), &in_scenario)
            .expect("refused");
        assert!(said.contains("provider.base_url"), "{said}");
    }

    #[test]
    fn without_openai_base_url_the_worker_calls_openai_only() {
        let own = OwnEndpoint::from_env(env(Some("  "))).unwrap();
        assert_eq!(own.url(), DEFAULT_BASE_URL);
        let openai = scenario(r#"{"kind": "openai"}"#);
        assert!(
            own.refusal(&sent(None, Some("http://127.0.0.1:9/v1")), &openai)
                .is_some()
        );
        let bad = OwnEndpoint::from_env(env(Some("ftp://x"))).unwrap_err();
        assert!(
            bad.contains("OPENAI_BASE_URL") && bad.contains("ftp://x"),
            "{bad}"
        );
    }
}
