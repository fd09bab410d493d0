//! A worker or tool answered by an HTTP endpoint: the args as a JSON body
//! (POST) or as query parameters (GET); a 2xx JSON object is the answer.
//! The body is read under the process's size cap; an error status fails
//! the call with the status and the start of the body, cleaned. Timeouts,
//! retries and breakers are the gateway's: the client has none of its own.

use super::answer::{self, Shown};
use crate::provider::WorkerError;
use crate::provider::http::{self as shared, BodyError};
use crate::scenario::{HttpMethod, HttpSpec, env_name};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;

/// What cannot be set up for an HTTP worker, found at launch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum HttpSetupError {
    /// A `secret_headers` value names a variable that is not set; the
    /// header it is for.
    MissingVariable { header: String, variable: String },
    /// The client could not be built.
    Client(String),
}

#[derive(Debug)]
pub(crate) struct HttpTool {
    client: reqwest::Client,
    url: reqwest::Url,
    method: HttpMethod,
    headers: HeaderMap,
    max_body: usize,
}

/// The client every HTTP worker of a run shares: rustls, redirects
/// reported rather than followed, as the model's client does.
pub(crate) fn client() -> Result<reqwest::Client, HttpSetupError> {
    shared::install_crypto();
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| HttpSetupError::Client(crate::secrets::scrub(&e.to_string()).into_owned()))
}

impl HttpTool {
    /// The worker `spec` describes; secret headers are read from `env`
    /// now and registered with the scrubber.
    pub(crate) fn new(
        spec: &HttpSpec,
        client: reqwest::Client,
        max_body: usize,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Self, HttpSetupError> {
        // The scenario's checks have refused a URL or header that does not
        // parse; a failure here is one of the client's.
        let bad = |what: &str| HttpSetupError::Client(format!("{what} does not parse"));
        let url = reqwest::Url::parse(&spec.url).map_err(|_| bad("the URL"))?;
        let mut headers = HeaderMap::new();
        for (name, value) in &spec.headers {
            let name = HeaderName::from_bytes(name.as_bytes()).map_err(|_| bad("a header"))?;
            let value = HeaderValue::from_str(value).map_err(|_| bad("a header"))?;
            headers.insert(name, value);
        }
        for (header, reference) in &spec.secret_headers {
            let variable = env_name(reference).unwrap_or(reference).to_string();
            let Some(secret) = env(&variable).filter(|v| !v.is_empty()) else {
                return Err(HttpSetupError::MissingVariable {
                    header: header.clone(),
                    variable,
                });
            };
            crate::secrets::register(&secret);
            let name = HeaderName::from_bytes(header.as_bytes()).map_err(|_| bad("a header"))?;
            let mut value = HeaderValue::from_str(&secret).map_err(|_| {
                HttpSetupError::Client(format!(
                    "the value of {variable} is not a valid header value"
                ))
            })?;
            value.set_sensitive(true);
            headers.insert(name, value);
        }
        Ok(HttpTool {
            client,
            url,
            method: spec.method,
            headers,
            max_body,
        })
    }

    pub(crate) async fn call(&self, args: &Value) -> Result<Value, WorkerError> {
        let request = match self.method {
            HttpMethod::Post => self.client.post(self.url.clone()).json(args),
            HttpMethod::Get => {
                let pairs = query_pairs(args).ok_or(WorkerError::BadArgs)?;
                let mut url = self.url.clone();
                if !pairs.is_empty() {
                    url.query_pairs_mut().extend_pairs(pairs);
                }
                self.client.get(url)
            }
        };
        let response = request
            .headers(self.headers.clone())
            .send()
            .await
            .map_err(|e| WorkerError::failed(transport(&e)))?;
        let status = response.status();
        if !status.is_success() {
            let body = shared::read_excerpt(response, shared::ERROR_EXCERPT_BYTES).await;
            return Err(WorkerError::Failed {
                detail: Some(format!(
                    "HTTP {}{}",
                    status.as_u16(),
                    answer::quoted(&body, Shown::AfterColon)
                )),
                http_status: Some(status.as_u16()),
            });
        }
        let body = shared::read_capped(response, self.max_body)
            .await
            .map_err(|e| match e {
                BodyError::TooLarge { .. } => WorkerError::BadResult {
                    detail: format!("the answer: {e}"),
                },
                BodyError::Transport(e) => WorkerError::failed(format!(
                    "the connection broke while reading the answer: {}",
                    transport(&e)
                )),
            })?;
        answer::object(&body)
    }
}

/// GET's query: each arg's value as it is when text, as JSON otherwise.
fn query_pairs(args: &Value) -> Option<Vec<(String, String)>> {
    let args = args.as_object()?;
    Some(
        args.iter()
            .map(|(k, v)| {
                let v = match v {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                (k.clone(), v)
            })
            .collect(),
    )
}

/// A transport error in words: what failed, without the URL's query.
fn transport(error: &reqwest::Error) -> String {
    let what = if error.is_connect() {
        "cannot connect"
    } else if error.is_timeout() {
        "timed out"
    } else if error.is_body() || error.is_decode() {
        "the answer broke off"
    } else if error.is_request() {
        "the request failed"
    } else {
        "the call failed"
    };
    let mut source: Option<&dyn std::error::Error> = Some(error);
    let mut last = String::new();
    while let Some(e) = source {
        last = e.to_string();
        source = e.source();
    }
    let words = crate::sanitize::clean(&crate::secrets::scrub(&last)).into_owned();
    format!("{what}: {}", answer::shorten(&words))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn get_sends_text_as_it_is_and_the_rest_as_json() {
        let pairs = query_pairs(&json!({"region": "US", "limit": 3, "tags": ["a"]})).unwrap();
        assert_eq!(
            pairs,
            vec![
                ("region".to_string(), "US".to_string()),
                ("limit".to_string(), "3".to_string()),
                ("tags".to_string(), "[\"a\"]".to_string()),
            ]
        );
        assert!(query_pairs(&json!([1, 2])).is_none());
    }

    #[test]
    fn a_secret_header_comes_from_the_environment_or_the_launch_fails() {
        let spec: HttpSpec = serde_json::from_value(json!({
            "url": "http://127.0.0.1:9/x",
            "secret_headers": {"Authorization": "env:CONCLAVE_TEST_TOKEN"}
        }))
        .unwrap();
        let client = client().unwrap();
        let missing = HttpTool::new(&spec, client.clone(), 1024, &|_| None).unwrap_err();
        assert_eq!(
            missing,
            HttpSetupError::MissingVariable {
                header: "Authorization".into(),
                variable: "CONCLAVE_TEST_TOKEN".into()
            }
        );
        let tool = HttpTool::new(&spec, client, 1024, &|name| {
            (name == "CONCLAVE_TEST_TOKEN").then(|| "Bearer tok-8c1f0e3b9d".to_string())
        })
        .unwrap();
        assert!(tool.headers["authorization"].is_sensitive());
        assert_eq!(
            crate::secrets::scrub("sent Bearer tok-8c1f0e3b9d"),
            "sent [redacted]",
            "registered with the scrubber"
        );
    }
}
