//! Where and how traces go: `--otlp [URL]` and `--otlp-content` over the
//! standard `OTEL_*` variables, resolved once, checked, and with every
//! header value registered as a secret before anything can print it.
//! Never prints or logs a header value, not even in an error.

use super::bounds::Bounds;
use super::config_error::OtlpConfigError;
use crate::telemetry::names;
use std::fmt;
use std::time::Duration;

pub(crate) const ENDPOINT: &str = "OTEL_EXPORTER_OTLP_ENDPOINT";
pub(crate) const TRACES_ENDPOINT: &str = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT";
pub(crate) const PROTOCOL: &str = "OTEL_EXPORTER_OTLP_PROTOCOL";
pub(crate) const TRACES_PROTOCOL: &str = "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL";
pub(crate) const HEADERS: &str = "OTEL_EXPORTER_OTLP_HEADERS";
pub(crate) const TRACES_HEADERS: &str = "OTEL_EXPORTER_OTLP_TRACES_HEADERS";
pub(crate) const SERVICE_NAME: &str = "OTEL_SERVICE_NAME";
pub(crate) const SCHEDULE_DELAY: &str = "OTEL_BSP_SCHEDULE_DELAY";

/// Where OTLP/HTTP collectors listen by default.
pub(crate) const DEFAULT_ENDPOINT: &str = "http://localhost:4318";
const TRACES_PATH: &str = "/v1/traces";
/// The standard batch delay (`OTEL_BSP_SCHEDULE_DELAY`'s default).
const DEFAULT_SCHEDULE_DELAY: Duration = Duration::from_millis(5000);

/// What the command line asked for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OtlpChoice {
    /// `--otlp` was given: `Some(None)` without a URL, `Some(Some(url))`
    /// with one.
    pub flag: Option<Option<String>>,
    /// `--otlp-content`: model prompts and outputs go into the trace.
    pub content: bool,
}

/// How spans are encoded on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// `http/protobuf`, the default.
    HttpProtobuf,
    /// `http/json`.
    HttpJson,
}

/// Everything the exporter needs; header values stay inside.
#[derive(Clone)]
pub struct OtlpConfig {
    /// The full URL spans are posted to (ending in `/v1/traces` unless a
    /// traces endpoint said otherwise).
    pub endpoint: String,
    pub protocol: Protocol,
    headers: Vec<(String, String)>,
    pub service_name: String,
    /// Prompts and outputs go into the trace, scrubbed.
    pub content: bool,
    /// How long finished spans wait before a batch is sent (a run's end
    /// sends what is left at once).
    pub schedule_delay: Duration,
    /// How long a request, and the flush at a command's end, may take.
    pub bounds: Bounds,
}

impl fmt::Debug for OtlpConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Header values are credentials: only their names are shown.
        let headers: Vec<&str> = self.headers.iter().map(|(k, _)| k.as_str()).collect();
        f.debug_struct("OtlpConfig")
            .field("endpoint", &self.endpoint)
            .field("protocol", &self.protocol)
            .field("headers", &headers)
            .field("service_name", &self.service_name)
            .field("content", &self.content)
            .field("schedule_delay", &self.schedule_delay)
            .field("bounds", &self.bounds)
            .finish()
    }
}

impl OtlpConfig {
    /// A configuration sending to `endpoint` (a collector's base URL, or
    /// the full traces URL) with the defaults, ignoring the environment.
    pub fn to(endpoint: &str) -> Result<Self, OtlpConfigError> {
        Ok(OtlpConfig {
            endpoint: traces_url("--otlp", endpoint, true)?,
            protocol: Protocol::HttpProtobuf,
            headers: Vec::new(),
            service_name: names::DEFAULT_SERVICE_NAME.to_string(),
            content: false,
            schedule_delay: DEFAULT_SCHEDULE_DELAY,
            bounds: Bounds::default(),
        })
    }

    pub fn with_protocol(mut self, protocol: Protocol) -> Self {
        self.protocol = protocol;
        self
    }

    pub fn with_content(mut self, content: bool) -> Self {
        self.content = content;
        self
    }

    pub fn with_schedule_delay(mut self, delay: Duration) -> Self {
        self.schedule_delay = delay;
        self
    }

    pub fn with_bounds(mut self, bounds: Bounds) -> Self {
        self.bounds = bounds;
        self
    }

    /// Send `value` as header `name` with every export; the value is a
    /// secret from now on.
    pub fn with_header(mut self, name: &str, value: &str) -> Self {
        crate::secrets::register(value);
        self.headers.push((name.to_string(), value.to_string()));
        self
    }

    pub(crate) fn headers(&self) -> &[(String, String)] {
        &self.headers
    }

    /// The export `choice` and the environment ask for, or `None` when
    /// neither asks for one (no `--otlp`, no endpoint variable).
    pub fn resolve(
        choice: &OtlpChoice,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Option<Self>, OtlpConfigError> {
        let set = |name: &str| env(name).filter(|v| !v.trim().is_empty());
        let endpoint = match &choice.flag {
            Some(Some(url)) => traces_url("--otlp", url, true)?,
            Some(None) | None => match (set(TRACES_ENDPOINT), set(ENDPOINT)) {
                (Some(url), _) => traces_url(TRACES_ENDPOINT, &url, false)?,
                (None, Some(url)) => traces_url(ENDPOINT, &url, true)?,
                (None, None) if choice.flag.is_some() => {
                    traces_url("--otlp", DEFAULT_ENDPOINT, true)?
                }
                (None, None) => return Ok(None),
            },
        };
        let (protocol_var, protocol) = match (set(TRACES_PROTOCOL), set(PROTOCOL)) {
            (Some(p), _) => (TRACES_PROTOCOL, Some(p)),
            (None, Some(p)) => (PROTOCOL, Some(p)),
            (None, None) => (PROTOCOL, None),
        };
        let protocol = match protocol.as_deref().map(str::trim) {
            None | Some("http/protobuf") => Protocol::HttpProtobuf,
            Some("http/json") => Protocol::HttpJson,
            Some("grpc") => {
                return Err(OtlpConfigError {
                    setting: protocol_var.into(),
                    problem: "Conclave exports over OTLP/HTTP only: use http/protobuf (the default) or http/json, and the collector's HTTP port (4318)".into(),
                });
            }
            Some(other) => {
                return Err(OtlpConfigError {
                    setting: protocol_var.into(),
                    problem: format!("expected http/protobuf or http/json, found {other:?}"),
                });
            }
        };
        let (headers_var, headers) = match (env(TRACES_HEADERS), env(HEADERS)) {
            (Some(h), _) => (TRACES_HEADERS, h),
            (None, Some(h)) => (HEADERS, h),
            (None, None) => (HEADERS, String::new()),
        };
        let headers = parse_headers(headers_var, &headers)?;
        let schedule_delay = match set(SCHEDULE_DELAY) {
            None => DEFAULT_SCHEDULE_DELAY,
            Some(ms) => ms
                .trim()
                .parse::<u64>()
                .map(Duration::from_millis)
                .map_err(|_| OtlpConfigError {
                    setting: SCHEDULE_DELAY.into(),
                    problem: format!("expected a whole number of milliseconds, found {ms:?}"),
                })?,
        };
        Ok(Some(OtlpConfig {
            endpoint,
            protocol,
            headers,
            service_name: set(SERVICE_NAME)
                .unwrap_or_else(|| names::DEFAULT_SERVICE_NAME.to_string()),
            content: choice.content,
            schedule_delay,
            bounds: Bounds::from_env(&env)?,
        }))
    }
}

/// The traces URL for `url` from `setting`: an http(s) URL, with
/// `/v1/traces` added to a base URL (`append`) that does not end in it.
fn traces_url(setting: &str, url: &str, append: bool) -> Result<String, OtlpConfigError> {
    let url = url.trim();
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"));
    let host = rest.map(|r| r.split(['/', '?', '#']).next().unwrap_or(""));
    if host.is_none_or(str::is_empty) {
        return Err(OtlpConfigError {
            setting: setting.into(),
            problem: format!(
                "expected the collector's http:// or https:// URL (e.g. http://localhost:4318), found {:?}",
                crate::sanitize::clean(url)
            ),
        });
    }
    let base = url.trim_end_matches('/');
    if !append || base.ends_with(TRACES_PATH) {
        return Ok(if append {
            base.to_string()
        } else {
            url.to_string()
        });
    }
    Ok(format!("{base}{TRACES_PATH}"))
}

/// `key=value,key2=value2` (values percent-encoded, as the OpenTelemetry
/// specification writes them), every value registered as a secret.
pub(crate) fn parse_headers(
    setting: &str,
    text: &str,
) -> Result<Vec<(String, String)>, OtlpConfigError> {
    let mut headers = Vec::new();
    for (i, entry) in text.split(',').enumerate() {
        if entry.trim().is_empty() {
            continue;
        }
        let Some((key, value)) = entry.split_once('=') else {
            return Err(OtlpConfigError {
                setting: setting.into(),
                problem: format!(
                    "entry {} is not key=value (entries are separated by commas)",
                    i + 1
                ),
            });
        };
        let key = key.trim();
        let value = percent_decode(value.trim());
        crate::secrets::register(&value);
        if key.is_empty() || !key.bytes().all(|b| b.is_ascii_graphic() && b != b':') {
            return Err(OtlpConfigError {
                setting: setting.into(),
                problem: format!("entry {} has no valid header name before =", i + 1),
            });
        }
        headers.push((key.to_string(), value));
    }
    Ok(headers)
}

/// `%XX` escapes decoded; anything else kept as written.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push((h * 16 + l) as u8);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let vars: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
            .collect();
        move |name| vars.get(name).cloned()
    }

    fn on() -> OtlpChoice {
        OtlpChoice {
            flag: Some(None),
            content: false,
        }
    }

    #[test]
    fn nothing_asked_means_no_export() {
        assert!(
            OtlpConfig::resolve(&OtlpChoice::default(), env(&[]))
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn the_flag_alone_sends_to_the_local_collector() {
        let config = OtlpConfig::resolve(&on(), env(&[])).unwrap().unwrap();
        assert_eq!(config.endpoint, "http://localhost:4318/v1/traces");
        assert_eq!(config.protocol, Protocol::HttpProtobuf);
        assert_eq!(config.service_name, "conclave");
    }

    #[test]
    fn the_flags_url_wins_and_a_base_url_gets_the_traces_path() {
        let choice = OtlpChoice {
            flag: Some(Some("http://127.0.0.1:9/".into())),
            content: true,
        };
        let config = OtlpConfig::resolve(&choice, env(&[(ENDPOINT, "http://elsewhere:4318")]))
            .unwrap()
            .unwrap();
        assert_eq!(config.endpoint, "http://127.0.0.1:9/v1/traces");
        assert!(config.content);
        let full = OtlpConfig::to("http://localhost:6006/v1/traces").unwrap();
        assert_eq!(full.endpoint, "http://localhost:6006/v1/traces");
    }

    #[test]
    fn the_endpoint_variable_turns_export_on_and_the_traces_one_is_used_as_is() {
        let config = OtlpConfig::resolve(
            &OtlpChoice::default(),
            env(&[(ENDPOINT, "https://collector:4318"), (SERVICE_NAME, "ops")]),
        )
        .unwrap()
        .unwrap();
        assert_eq!(config.endpoint, "https://collector:4318/v1/traces");
        assert_eq!(config.service_name, "ops");
        let config = OtlpConfig::resolve(
            &OtlpChoice::default(),
            env(&[
                (ENDPOINT, "http://a:4318"),
                (TRACES_ENDPOINT, "http://b:1/custom"),
            ]),
        )
        .unwrap()
        .unwrap();
        assert_eq!(config.endpoint, "http://b:1/custom");
    }

    #[test]
    fn protocols_are_read_and_grpc_is_refused_clearly() {
        let json = OtlpConfig::resolve(&on(), env(&[(PROTOCOL, "http/json")]))
            .unwrap()
            .unwrap();
        assert_eq!(json.protocol, Protocol::HttpJson);
        let traces = OtlpConfig::resolve(
            &on(),
            env(&[(PROTOCOL, "http/json"), (TRACES_PROTOCOL, "http/protobuf")]),
        )
        .unwrap()
        .unwrap();
        assert_eq!(traces.protocol, Protocol::HttpProtobuf);
        let err = OtlpConfig::resolve(&on(), env(&[(PROTOCOL, "grpc")])).unwrap_err();
        assert_eq!(err.setting, PROTOCOL);
        assert!(err.problem.contains("http/protobuf"), "{err}");
    }

    #[test]
    fn a_bad_url_is_named_with_its_setting() {
        let choice = OtlpChoice {
            flag: Some(Some("scenarios/x.json".into())),
            content: false,
        };
        let err = OtlpConfig::resolve(&choice, env(&[])).unwrap_err();
        assert!(err.to_string().starts_with("--otlp: expected"), "{err}");
        let err = OtlpConfig::resolve(&OtlpChoice::default(), env(&[(ENDPOINT, "localhost:4318")]))
            .unwrap_err();
        assert_eq!(err.setting, ENDPOINT);
    }

    // Header values become secrets for the whole test process: every
    // value here is long and unique, so that no other test's text is
    // masked by them.
    #[test]
    fn header_values_are_decoded_registered_as_secrets_and_never_shown() {
        let secret = "tok-3f9a8c7d6e5b4a39";
        let config = OtlpConfig::resolve(
            &on(),
            env(&[(
                HEADERS,
                &format!("Authorization=Bearer%20{secret}, x-team=operations-east-4417"),
            )]),
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            config.headers(),
            &[
                ("Authorization".to_string(), format!("Bearer {secret}")),
                ("x-team".to_string(), "operations-east-4417".to_string()),
            ]
        );
        assert!(!format!("{config:?}").contains(secret));
        assert!(!crate::secrets::scrub(&format!("key {secret}")).contains(secret));
        let err = OtlpConfig::resolve(
            &on(),
            env(&[(HEADERS, "a=first-value-5521,just-a-secret-value")]),
        )
        .unwrap_err();
        assert!(!err.to_string().contains("just-a-secret-value"), "{err}");
        assert!(err.to_string().contains("entry 2"), "{err}");
    }
}
