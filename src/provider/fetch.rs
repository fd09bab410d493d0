//! The research pattern's real tools: `fetch` reads a page over HTTP once
//! the pattern's domain check has allowed its URL, and `search` checks what
//! a real search tool answered. Both answer as the simulated research
//! tools do, so the pattern takes either. The client is the model
//! provider's (rustls, redirects not followed blindly): a redirect is
//! followed only to a URL whose domain passes the same check again. A body
//! is read under the size cap. Nothing here retries or times a call out:
//! the gateway does, by dropping the future, which is safe here.

mod html;
mod search;

#[cfg(test)]
use search::SearchError;
pub(crate) use search::search_output;

use crate::provider::http::{self, BodyError, MAX_BODY_VARIABLE};
use crate::scenario::{ResearchLimits, url_domain};
use reqwest::Url;
use reqwest::header::{CONTENT_TYPE, LAST_MODIFIED, LOCATION};
use serde_json::{Value, json};
use std::time::Duration;

/// The most redirects followed for one page.
pub(crate) const MAX_REDIRECTS: usize = 5;

/// The most characters of a page's text handed on: far more than the
/// notes of one page need, far less than a model's context.
pub(crate) const MAX_TEXT_CHARS: usize = 100_000;

/// How long connecting to a site may take; the whole call is bounded by
/// the gateway.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Why a page could not be read. Every URL in it is one the run asked
/// for or was redirected to, cleaned for the terminal.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum FetchError {
    #[error("{url}: expected an http:// or https:// URL")]
    BadUrl { url: String },
    #[error("{url} redirects to {to}, whose domain {domain} the research policy does not allow")]
    RedirectDenied {
        url: String,
        to: String,
        domain: String,
    },
    #[error("{url}: more than {MAX_REDIRECTS} redirects")]
    TooManyRedirects { url: String },
    #[error("{url} answered HTTP {status}")]
    Status { url: String, status: u16 },
    #[error(
        "{url}: the page is larger than {limit} bytes (raise {MAX_BODY_VARIABLE} to read larger pages)"
    )]
    TooLarge { url: String, limit: usize },
    #[error(
        "{url}: the page nests its elements more than {} deep, past what Conclave parses",
        html::MAX_DEPTH
    )]
    TooDeep { url: String },
    #[error("{url} is {content_type}, not a page that can be read as text")]
    Unsupported { url: String, content_type: String },
    #[error("{url} could not be read: {message}")]
    Unreachable { url: String, message: String },
}

impl FetchError {
    /// The HTTP status the site answered with, for the call's event.
    pub(crate) fn status(&self) -> Option<u16> {
        match self {
            FetchError::Status { status, .. } => Some(*status),
            _ => None,
        }
    }
}

/// A page as read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FetchedPage {
    /// The URL asked for (the pattern's normalised URL: notes cite it).
    pub(crate) url: String,
    /// Where the page was read after redirects.
    pub(crate) final_url: String,
    pub(crate) title: String,
    /// `YYYY-MM-DD` from the page, else from `Last-Modified`, else empty.
    pub(crate) published_at: String,
    /// The visible text, a line per block, at most [`MAX_TEXT_CHARS`].
    pub(crate) body: String,
    /// Whether the text was cut at [`MAX_TEXT_CHARS`].
    pub(crate) truncated: bool,
    pub(crate) status: u16,
}

impl FetchedPage {
    /// The simulated `read_source` tool's output for this page.
    pub(crate) fn tool_output(&self) -> Value {
        let mut data = json!({
            "url": self.url, "title": self.title,
            "published_at": self.published_at, "body": self.body,
        });
        if self.final_url != self.url {
            data["final_url"] = self.final_url.clone().into();
        }
        if self.truncated {
            data["truncated"] = true.into();
        }
        json!({"status": "ok", "data": data})
    }
}

/// Whether `limits` let a run read `domain` (policy, then execution), for
/// re-checking a redirect's target. Flags that narrow the execution list
/// while the run goes are the caller's to add.
pub(crate) fn allowed_by(limits: &ResearchLimits) -> impl Fn(&str) -> bool + '_ {
    |domain| limits.policy.contains(domain) && limits.execution.contains(domain)
}

#[derive(Debug)]
pub(crate) struct Fetcher {
    client: reqwest::Client,
    max_bytes: usize,
}

impl Fetcher {
    /// A fetcher that reads at most `max_bytes` of a page (see
    /// [`http::max_body_bytes`]).
    pub(crate) fn new(max_bytes: usize) -> Result<Fetcher, FetchError> {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(CONNECT_TIMEOUT)
            .user_agent(concat!(
                "conclave/",
                env!("CARGO_PKG_VERSION"),
                " (research fetch)"
            ))
            .build()
            .map_err(|e| FetchError::Unreachable {
                url: "any page".into(),
                message: shown(&e.to_string()),
            })?;
        Ok(Fetcher { client, max_bytes })
    }

    /// GET `url` (already allowed by the pattern), following a redirect
    /// only when `allowed` accepts its target's domain.
    pub(crate) async fn fetch(
        &self,
        url: &str,
        allowed: &(dyn Fn(&str) -> bool + Sync),
    ) -> Result<FetchedPage, FetchError> {
        let asked = shown(url);
        let mut current = web_url(url).ok_or_else(|| FetchError::BadUrl { url: asked.clone() })?;
        for _ in 0..=MAX_REDIRECTS {
            let response = self
                .client
                .get(current.clone())
                .send()
                .await
                .map_err(|e| unreachable(&current, &e))?;
            let status = response.status();
            if status.is_redirection()
                && let Some(location) = response.headers().get(LOCATION)
            {
                let location = String::from_utf8_lossy(location.as_bytes()).into_owned();
                let target = current
                    .join(&location)
                    .ok()
                    .filter(|t| matches!(t.scheme(), "http" | "https"))
                    .ok_or_else(|| FetchError::BadUrl {
                        url: shown(&location),
                    })?;
                let domain = url_domain(target.as_str());
                if !allowed(&domain) {
                    return Err(FetchError::RedirectDenied {
                        url: shown(current.as_str()),
                        to: shown(target.as_str()),
                        domain: shown(&domain),
                    });
                }
                current = target;
                continue;
            }
            if !status.is_success() {
                return Err(FetchError::Status {
                    url: shown(current.as_str()),
                    status: status.as_u16(),
                });
            }
            return self.read(url, current, response).await;
        }
        Err(FetchError::TooManyRedirects { url: asked })
    }

    async fn read(
        &self,
        asked: &str,
        at: Url,
        response: reqwest::Response,
    ) -> Result<FetchedPage, FetchError> {
        let header = |name| {
            response
                .headers()
                .get(name)
                .and_then(|v: &reqwest::header::HeaderValue| v.to_str().ok())
                .map(str::to_string)
        };
        let content_type = header(CONTENT_TYPE).unwrap_or_default().to_lowercase();
        let last_modified = header(LAST_MODIFIED);
        let status = response.status().as_u16();
        let bytes = http::read_capped(response, self.max_bytes)
            .await
            .map_err(|e| match e {
                BodyError::TooLarge { limit } => FetchError::TooLarge {
                    url: shown(at.as_str()),
                    limit,
                },
                BodyError::Transport(e) => unreachable(&at, &e),
            })?;
        let text = String::from_utf8_lossy(&bytes);
        let page = match Kind::of(&content_type, &text) {
            Kind::Html => html::extract(&text).map_err(|html::TooDeep| FetchError::TooDeep {
                url: shown(at.as_str()),
            })?,
            Kind::Text => html::Extracted {
                text: text
                    .lines()
                    .map(|l| crate::sanitize::clean(l))
                    .collect::<Vec<_>>()
                    .join("\n"),
                ..html::Extracted::default()
            },
            Kind::Other => {
                return Err(FetchError::Unsupported {
                    url: shown(at.as_str()),
                    content_type: shown(content_type.split(';').next().unwrap_or_default()),
                });
            }
        };
        let published_at = if page.published_at.is_empty() {
            last_modified
                .as_deref()
                .and_then(http_date)
                .unwrap_or_default()
        } else {
            page.published_at
        };
        let truncated = page.text.chars().nth(MAX_TEXT_CHARS).is_some();
        let body = if truncated {
            page.text.chars().take(MAX_TEXT_CHARS).collect()
        } else {
            page.text
        };
        Ok(FetchedPage {
            url: asked.to_string(),
            final_url: at.to_string(),
            title: page.title,
            published_at,
            body,
            truncated,
            status,
        })
    }
}

/// How a body is read.
enum Kind {
    Html,
    Text,
    Other,
}

impl Kind {
    /// By its declared type; a body without one is HTML when it opens
    /// like HTML, else text.
    fn of(content_type: &str, body: &str) -> Kind {
        let mime = content_type.split(';').next().unwrap_or_default().trim();
        if mime.is_empty() {
            let start: String = body.trim_start().chars().take(15).collect();
            let start = start.to_lowercase();
            return if start.starts_with("<!doctype html") || start.starts_with("<html") {
                Kind::Html
            } else {
                Kind::Text
            };
        }
        if mime.contains("html") {
            Kind::Html
        } else if mime.starts_with("text/")
            || matches!(mime, "application/json" | "application/xml")
            || mime.ends_with("+json")
            || mime.ends_with("+xml")
        {
            Kind::Text
        } else {
            Kind::Other
        }
    }
}

/// `url` as an http(s) URL, `https://` assumed when it names no scheme
/// (as the pattern's normalisation does).
fn web_url(url: &str) -> Option<Url> {
    let trimmed = url.trim();
    let parsed = Url::parse(trimmed)
        .or_else(|_| Url::parse(&format!("https://{trimmed}")))
        .ok()?;
    (matches!(parsed.scheme(), "http" | "https") && parsed.host_str().is_some()).then_some(parsed)
}

/// `Last-Modified` as `YYYY-MM-DD`.
fn http_date(value: &str) -> Option<String> {
    static DATES: jiff::fmt::rfc2822::DateTimeParser = jiff::fmt::rfc2822::DateTimeParser::new();
    let at = DATES.parse_timestamp(value.trim()).ok()?;
    Some(at.strftime("%Y-%m-%d").to_string())
}

fn unreachable(url: &Url, error: &reqwest::Error) -> FetchError {
    let mut message = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        message = format!("{message}: {cause}");
        source = cause.source();
    }
    FetchError::Unreachable {
        url: shown(url.as_str()),
        message: shown(&message),
    }
}

/// Text from a site or a scenario as an error may show it: scrubbed,
/// on one line, at most 300 characters.
fn shown(text: &str) -> String {
    let text = crate::secrets::scrub(text);
    let text: String = text.chars().take(300).collect();
    crate::sanitize::clean(&text).into_owned()
}

#[cfg(test)]
mod tests;
