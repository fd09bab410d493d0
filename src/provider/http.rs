//! What every HTTP call Conclave makes shares, the model's and real
//! tools': response bodies read chunk by chunk under a cap (an
//! endless body stops at the cap and is never buffered past it), short
//! excerpts of error bodies, and `Retry-After` read through the one
//! checked duration conversion. Nothing here retries or classifies a
//! status: that is the caller's and the gateway's business.

use crate::duration;
use reqwest::header::HeaderMap;
use std::time::{Duration, SystemTime};

/// Choose rustls's crypto (ring) for the process, once; every client
/// Conclave builds uses it.
pub(crate) fn install_crypto() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// The largest response body read by default: 8 MiB, far above any chat
/// completion, small enough that a runaway endpoint cannot exhaust memory.
pub(crate) const DEFAULT_MAX_BODY_BYTES: usize = 8 * 1024 * 1024;

/// The environment variable that changes [`DEFAULT_MAX_BODY_BYTES`].
pub(crate) const MAX_BODY_VARIABLE: &str = "CONCLAVE_MAX_BODY_BYTES";

/// How much of an error body is kept to quote in a message.
pub(crate) const ERROR_EXCERPT_BYTES: usize = 16 * 1024;

/// A value of [`MAX_BODY_VARIABLE`] that is not a size.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{MAX_BODY_VARIABLE}: expected a whole number of bytes above 0 (the default is {DEFAULT_MAX_BODY_BYTES}), found {found:?}"
)]
pub(crate) struct MaxBodyError {
    pub(crate) found: String,
}

/// The body cap: [`MAX_BODY_VARIABLE`] when set (and not blank), else the
/// default.
pub(crate) fn max_body_bytes(env: impl Fn(&str) -> Option<String>) -> Result<usize, MaxBodyError> {
    match env(MAX_BODY_VARIABLE) {
        Some(text) if !text.trim().is_empty() => text
            .trim()
            .parse::<usize>()
            .ok()
            .filter(|n| *n > 0)
            .ok_or_else(|| MaxBodyError {
                found: crate::sanitize::clean(&text.chars().take(80).collect::<String>())
                    .into_owned(),
            }),
        _ => Ok(DEFAULT_MAX_BODY_BYTES),
    }
}

/// Why a body could not be read whole.
#[derive(Debug, thiserror::Error)]
pub(crate) enum BodyError {
    #[error("the body is larger than {limit} bytes (raise {MAX_BODY_VARIABLE} to accept more)")]
    TooLarge { limit: usize },
    #[error(transparent)]
    Transport(#[from] reqwest::Error),
}

/// The whole body of `response`, or [`BodyError::TooLarge`] as soon as it
/// passes `limit` bytes: a declared length over the cap is refused before
/// reading, and an undeclared one is read a chunk at a time.
pub(crate) async fn read_capped(
    mut response: reqwest::Response,
    limit: usize,
) -> Result<Vec<u8>, BodyError> {
    let declared = response.content_length().unwrap_or(0);
    if declared > u64::try_from(limit).unwrap_or(u64::MAX) {
        return Err(BodyError::TooLarge { limit });
    }
    let mut body = Vec::with_capacity(usize::try_from(declared).unwrap_or(0).min(limit));
    while let Some(chunk) = response.chunk().await? {
        if chunk.len() > limit - body.len() {
            return Err(BodyError::TooLarge { limit });
        }
        if body.capacity() - body.len() < chunk.len() {
            // Grow as a Vec does, doubling, but never to more than the cap.
            let wanted = (body.capacity() * 2).clamp(body.len() + chunk.len(), limit);
            body.reserve_exact(wanted - body.len());
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// At most the first `limit` bytes of the body of `response`, for quoting
/// an error: the rest is never read, and a body that breaks off keeps what
/// came.
pub(crate) async fn read_excerpt(mut response: reqwest::Response, limit: usize) -> Vec<u8> {
    let mut body = Vec::new();
    while body.len() < limit {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                let room = limit - body.len();
                body.extend_from_slice(&chunk[..chunk.len().min(room)]);
            }
            Ok(None) | Err(_) => break,
        }
    }
    body
}

/// How long the server asked to wait before the next try: `retry-after-ms`
/// (which some servers send), else `Retry-After` in seconds or as an HTTP
/// date (counted from `now`). Negative and not-a-number waits read as 0,
/// endless ones as [`duration::MAX`]; a value that is none of these is
/// ignored.
pub(crate) fn retry_after(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let read = |name: &str| headers.get(name)?.to_str().ok().map(str::trim);
    if let Some(ms) = read("retry-after-ms").and_then(|v| v.parse::<f64>().ok()) {
        return Some(duration::clamp_seconds(ms / 1000.0));
    }
    let value = read("retry-after")?;
    if let Ok(seconds) = value.parse::<f64>() {
        return Some(duration::clamp_seconds(seconds));
    }
    static DATES: jiff::fmt::rfc2822::DateTimeParser = jiff::fmt::rfc2822::DateTimeParser::new();
    let at = SystemTime::from(DATES.parse_timestamp(value).ok()?);
    Some(match at.duration_since(now) {
        Ok(wait) => wait.min(duration::MAX),
        Err(_) => Duration::ZERO,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_str(value).unwrap());
        }
        map
    }

    #[test]
    fn retry_after_reads_seconds_millis_and_dates_and_clamps_the_rest() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        let wait = |pairs: &[(&'static str, &str)]| retry_after(&headers(pairs), now);
        assert_eq!(wait(&[("retry-after", "2")]), Some(Duration::from_secs(2)));
        assert_eq!(
            wait(&[("retry-after", " 1.5 ")]),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(
            wait(&[("retry-after-ms", "250"), ("retry-after", "9")]),
            Some(Duration::from_millis(250))
        );
        assert_eq!(wait(&[("retry-after", "-5")]), Some(Duration::ZERO));
        assert_eq!(wait(&[("retry-after", "NaN")]), Some(Duration::ZERO));
        assert_eq!(wait(&[("retry-after", "1e308")]), Some(duration::MAX));
        assert_eq!(wait(&[("retry-after", "inf")]), Some(duration::MAX));
        assert_eq!(wait(&[("retry-after", "soon")]), None);
        assert_eq!(wait(&[]), None);
        // 2023-11-14T22:13:20Z is `now`; one minute later, and a date past.
        assert_eq!(
            wait(&[("retry-after", "Tue, 14 Nov 2023 22:14:20 GMT")]),
            Some(Duration::from_secs(60))
        );
        assert_eq!(
            wait(&[("retry-after", "Wed, 21 Oct 2015 07:28:00 GMT")]),
            Some(Duration::ZERO)
        );
        assert_eq!(
            wait(&[("retry-after", "Fri, 01 Jan 2100 00:00:00 GMT")]),
            Some(duration::MAX)
        );
    }

    #[test]
    fn the_body_cap_comes_from_the_environment_or_the_default() {
        assert_eq!(max_body_bytes(|_| None), Ok(DEFAULT_MAX_BODY_BYTES));
        assert_eq!(
            max_body_bytes(|_| Some(" ".into())),
            Ok(DEFAULT_MAX_BODY_BYTES)
        );
        assert_eq!(max_body_bytes(|_| Some("1024".into())), Ok(1024));
        for bad in ["0", "-1", "8MB", "1e6", "99999999999999999999999"] {
            let error = max_body_bytes(|_| Some(bad.into())).unwrap_err();
            assert!(
                error
                    .to_string()
                    .starts_with("CONCLAVE_MAX_BODY_BYTES: expected"),
                "{error}"
            );
        }
    }
}
