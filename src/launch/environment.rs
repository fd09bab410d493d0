//! The environment a launched program gets, so that everything it emits
//! joins its run by the launch rather than by whichever span is current:
//! the run's own OTLP receiver and a resource attribute with the run's
//! id, the steering hook's URL and run id, and the model base URL of the
//! run's gateway. The names are a contract (docs/launch.md); nothing
//! here holds a secret (a key stays in the variable the scenario names).

use super::scenario::ProgramScenario;
use crate::span::RUN_ID_ATTRIBUTE;
use std::net::SocketAddr;

/// What a launch knows when it sets the program's environment.
#[derive(Clone, Debug)]
pub(crate) struct Launch<'a> {
    pub(crate) scenario: &'a ProgramScenario,
    /// The run's id: 32 hex digits.
    pub(crate) run_id: &'a str,
    /// The run's receiver (OTLP, steering and gateway on one listener).
    pub(crate) listener: SocketAddr,
    pub(crate) seed: Option<u64>,
}

/// The variables to add to Conclave's own environment, in order: the
/// scenario's `env` first, then the launch's own (which win).
pub(crate) fn variables(launch: &Launch<'_>) -> Vec<(String, String)> {
    let s = launch.scenario;
    let base = format!("http://{}", launch.listener);
    let mut out: Vec<(String, String)> = s
        .env
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "OTEL_RESOURCE_ATTRIBUTES" | "OTEL_SERVICE_NAME"))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let mut set = |k: &str, v: String| out.push((k.to_string(), v));
    set("OTEL_EXPORTER_OTLP_ENDPOINT", base.clone());
    set(
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
        format!("{base}/v1/traces"),
    );
    set("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf".into());
    set("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/protobuf".into());
    set(
        "OTEL_RESOURCE_ATTRIBUTES",
        resource_attributes(s, launch.run_id),
    );
    let service = s.env.get("OTEL_SERVICE_NAME").unwrap_or(&s.name).clone();
    set("OTEL_SERVICE_NAME", service);
    set("CONCLAVE_STEER_URL", base.clone());
    set("CONCLAVE_RUN_ID", launch.run_id.to_string());
    if let Some(seed) = launch.seed.or(s.seed) {
        set("CONCLAVE_SEED", seed.to_string());
    }
    if s.model.is_some() {
        let gateway = format!("{base}/gateway/{}/v1", launch.run_id);
        set("OPENAI_BASE_URL", gateway.clone());
        set("OPENAI_API_BASE", gateway);
    }
    out
}

/// The scenario's resource attributes (from its `env`, or Conclave's own
/// environment) with the run's id appended; a value of theirs naming
/// another run is replaced, never kept beside it.
fn resource_attributes(s: &ProgramScenario, run_id: &str) -> String {
    let given = s
        .env
        .get("OTEL_RESOURCE_ATTRIBUTES")
        .cloned()
        .or_else(|| std::env::var("OTEL_RESOURCE_ATTRIBUTES").ok())
        .unwrap_or_default();
    let mut parts: Vec<&str> = given
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .filter(|p| p.split('=').next().map(str::trim) != Some(RUN_ID_ATTRIBUTE))
        .collect();
    let ours = format!("{RUN_ID_ATTRIBUTE}={run_id}");
    parts.push(&ours);
    parts.join(",")
}

/// A fresh run id: 32 hex digits from the system's randomness, so that
/// runs launched on other machines (NATS workers) never share one.
pub(crate) fn new_run_id() -> String {
    let id: u128 = rand::random::<u128>() | 1;
    format!("{id:032x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(extra: &str) -> ProgramScenario {
        let text =
            format!(r#"{{"name": "support", "pattern": "program", "command": ["python"]{extra}}}"#);
        super::super::scenario::parse(&text, "app.json", Default::default())
            .unwrap()
            .scenario
    }

    fn get<'a>(vars: &'a [(String, String)], name: &str) -> Option<&'a str> {
        vars.iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    #[test]
    fn a_launch_names_its_receiver_its_run_and_its_gateway() {
        let s = scenario(
            r#", "env": {"OTEL_RESOURCE_ATTRIBUTES": "team=a, conclave.run.id=old", "X": "1"},
                "model": {"upstream": "https://models.test/v1", "key_env": "KEY"}"#,
        );
        let run = "0123456789abcdef0123456789abcdef";
        let vars = variables(&Launch {
            scenario: &s,
            run_id: run,
            listener: "127.0.0.1:4999".parse().unwrap(),
            seed: Some(7),
        });
        assert_eq!(
            get(&vars, "OTEL_EXPORTER_OTLP_ENDPOINT"),
            Some("http://127.0.0.1:4999")
        );
        assert_eq!(
            get(&vars, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"),
            Some("http://127.0.0.1:4999/v1/traces")
        );
        assert_eq!(
            get(&vars, "OTEL_RESOURCE_ATTRIBUTES"),
            Some(format!("team=a,conclave.run.id={run}").as_str())
        );
        assert_eq!(get(&vars, "OTEL_SERVICE_NAME"), Some("support"));
        assert_eq!(
            get(&vars, "CONCLAVE_STEER_URL"),
            Some("http://127.0.0.1:4999")
        );
        assert_eq!(get(&vars, "CONCLAVE_RUN_ID"), Some(run));
        assert_eq!(get(&vars, "CONCLAVE_SEED"), Some("7"));
        assert_eq!(get(&vars, "X"), Some("1"));
        let gateway = format!("http://127.0.0.1:4999/gateway/{run}/v1");
        assert_eq!(get(&vars, "OPENAI_BASE_URL"), Some(gateway.as_str()));
        assert_eq!(get(&vars, "OPENAI_API_BASE"), Some(gateway.as_str()));
        assert_eq!(get(&vars, "KEY"), None, "the key stays where it is");
    }

    #[test]
    fn without_a_model_no_base_url_is_set_and_run_ids_are_ids() {
        let s = scenario("");
        let vars = variables(&Launch {
            scenario: &s,
            run_id: "1",
            listener: "127.0.0.1:1".parse().unwrap(),
            seed: None,
        });
        assert_eq!(get(&vars, "OPENAI_BASE_URL"), None);
        assert_eq!(get(&vars, "CONCLAVE_SEED"), None);
        let id = new_run_id();
        assert!(crate::span::run_id_of(&id).is_some(), "{id}");
        assert_ne!(id, new_run_id());
    }
}
