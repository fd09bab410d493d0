//! `--forward URL`: every accepted request sent on, unchanged (the same
//! bytes, content type and encoding), to another OTLP/HTTP collector. Each
//! target has a queue bounded in bytes and one task sending from it, one
//! request at a time; receiving only ever offers to the queue, so a target
//! that is down, slow or hanging loses forwards (counted) and never slows
//! the receiver. Nothing is retried: a failed forward is counted too.

use super::counters::Counters;
use super::{ReceiveConfig, ReceiveError};
use bytes::Bytes;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// What a forward sends: the request's bytes as they came.
#[derive(Clone, Debug)]
pub(super) struct Payload {
    pub(super) body: Bytes,
    pub(super) content_type: &'static str,
    pub(super) gzip: bool,
}

const TRACES_PATH: &str = "/v1/traces";

/// Batches queued per target at most, whatever their size.
const QUEUED_BATCHES: usize = 1024;

#[derive(Debug)]
struct Target {
    queue: mpsc::Sender<Payload>,
    /// Bytes queued or being sent.
    held: Arc<AtomicUsize>,
}

/// The targets, offered every accepted request.
#[derive(Debug)]
pub(super) struct Forwarder {
    targets: Vec<Target>,
    budget: usize,
    counters: Arc<Counters>,
}

impl Forwarder {
    pub(super) fn is_active(&self) -> bool {
        !self.targets.is_empty()
    }

    /// Queue `payload` for every target with room for it; count a drop for
    /// each without.
    pub(super) fn offer(&self, payload: Payload) {
        let size = payload.body.len();
        for (at, target) in self.targets.iter().enumerate() {
            let held = target.held.fetch_add(size, Ordering::AcqRel);
            if held + size > self.budget || target.queue.try_send(payload.clone()).is_err() {
                target.held.fetch_sub(size, Ordering::AcqRel);
                self.counters.forward_dropped_to(at);
            }
        }
    }
}

/// The URL requests are posted to: `URL` with `/v1/traces` added unless
/// it ends in it already, as `--otlp` reads its URL.
fn target_url(url: &str) -> Result<reqwest::Url, ReceiveError> {
    let bad = |why: &str| ReceiveError::BadForward {
        url: crate::sanitize::clean(&crate::nats::shown_url(url)).into_owned(),
        why: why.to_string(),
    };
    let mut parsed = reqwest::Url::parse(url).map_err(|e| {
        bad(&format!(
            "not a URL ({e}); expected http://HOST:PORT[/PATH]"
        ))
    })?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(bad(
            "expected an http:// or https:// URL of an OTLP/HTTP collector",
        ));
    }
    let path = parsed.path().trim_end_matches('/').to_string();
    if !path.ends_with(TRACES_PATH) {
        parsed.set_path(&format!("{path}{TRACES_PATH}"));
    }
    Ok(parsed)
}

/// The forwarder for `config.forward`, and its tasks.
pub(super) fn start(
    config: &ReceiveConfig,
    counters: &Arc<Counters>,
    stop: &CancellationToken,
) -> Result<(Forwarder, Vec<JoinHandle<()>>), ReceiveError> {
    let urls = config
        .forward
        .iter()
        .map(|url| target_url(url))
        .collect::<Result<Vec<_>, _>>()?;
    let mut targets = Vec::new();
    let mut tasks = Vec::new();
    if !urls.is_empty() {
        crate::provider::http::install_crypto();
    }
    for (at, (url, given)) in urls.into_iter().zip(&config.forward).enumerate() {
        let client = reqwest::Client::builder()
            .timeout(config.forward_timeout)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| ReceiveError::BadForward {
                url: given.clone(),
                why: format!("no HTTP client for it: {e}"),
            })?;
        let (queue, waiting) = mpsc::channel(QUEUED_BATCHES);
        let held = Arc::new(AtomicUsize::new(0));
        let sender = Sender {
            at,
            timeout: config.forward_timeout,
            client,
            url,
            held: Arc::clone(&held),
            counters: Arc::clone(counters),
        };
        tasks.push(tokio::spawn(sender.run(waiting, stop.clone())));
        targets.push(Target { queue, held });
    }
    let forwarder = Forwarder {
        targets,
        budget: config.forward_queue_bytes,
        counters: Arc::clone(counters),
    };
    Ok((forwarder, tasks))
}

/// One target's task.
struct Sender {
    /// The target's place among `--forward`'s, for its counts.
    at: usize,
    timeout: std::time::Duration,
    client: reqwest::Client,
    url: reqwest::Url,
    held: Arc<AtomicUsize>,
    counters: Arc<Counters>,
}

impl Sender {
    async fn run(self, mut waiting: mpsc::Receiver<Payload>, stop: CancellationToken) {
        loop {
            let payload = tokio::select! {
                _ = stop.cancelled() => return,
                next = waiting.recv() => match next {
                    Some(payload) => payload,
                    None => return,
                },
            };
            let size = payload.body.len();
            let sent = tokio::select! {
                _ = stop.cancelled() => return,
                sent = self.send(payload) => sent,
            };
            self.held.fetch_sub(size, Ordering::AcqRel);
            match sent {
                Ok(()) => self.counters.forward_sent_to(self.at),
                Err(why) => self.counters.forward_failed_to(self.at, why),
            }
        }
    }

    /// Post `payload`; why it failed, in a few words, when it did.
    async fn send(&self, payload: Payload) -> Result<(), String> {
        let mut request = self
            .client
            .post(self.url.clone())
            .header(reqwest::header::CONTENT_TYPE, payload.content_type)
            .body(payload.body);
        if payload.gzip {
            request = request.header(reqwest::header::CONTENT_ENCODING, "gzip");
        }
        match request.send().await {
            Ok(response) if response.status().is_success() => Ok(()),
            Ok(response) => Err(format!("answered {}", response.status().as_u16())),
            Err(e) if e.is_timeout() => Err(format!("no answer in {} s", self.timeout.as_secs())),
            Err(e) => Err(innermost(&e)),
        }
    }
}

/// The innermost cause of `e` (`Connection refused (os error 111)`), the
/// words that say what went wrong without the URL around them.
fn innermost(e: &(dyn std::error::Error + 'static)) -> String {
    let mut cause = e;
    while let Some(next) = cause.source() {
        cause = next;
    }
    crate::sanitize::clean(&cause.to_string()).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bare_address_gets_the_traces_path_and_a_path_is_kept() {
        assert_eq!(
            target_url("http://127.0.0.1:6006").unwrap().as_str(),
            "http://127.0.0.1:6006/v1/traces"
        );
        assert_eq!(
            target_url("http://127.0.0.1:3000/api/public/otel/v1/traces")
                .unwrap()
                .path(),
            "/api/public/otel/v1/traces"
        );
        assert_eq!(
            target_url("https://c:4318/otel/").unwrap().as_str(),
            "https://c:4318/otel/v1/traces"
        );
        let error = target_url("ftp://x").unwrap_err().to_string();
        assert!(error.starts_with("--forward ftp://x:"), "{error}");
        assert!(target_url("127.0.0.1:4318").is_err());
    }
}
