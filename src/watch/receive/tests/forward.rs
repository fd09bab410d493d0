//! `--forward` to loopback collectors that answer, answer slowly, hang or
//! are not there: the receiver answers at once whatever they do (on the
//! paused clock, no virtual time passes while it answers), forwards the
//! bytes unchanged, and counts what it could not forward.

use super::*;
use hyper::body::Incoming;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::time::Instant;

/// What a collector received: content type, encoding, body.
type Received = Arc<Mutex<Vec<(String, Option<String>, Bytes)>>>;

/// A collector that answers 200 after `delay`.
async fn collector(delay: Duration) -> (SocketAddr, Received) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let received: Received = Arc::default();
    let kept = Arc::clone(&received);
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let kept = Arc::clone(&kept);
            let service = hyper::service::service_fn(move |request: Request<Incoming>| {
                let kept = Arc::clone(&kept);
                async move {
                    let header = |name| {
                        request
                            .headers()
                            .get(name)
                            .map(|v: &hyper::header::HeaderValue| v.to_str().unwrap().to_string())
                    };
                    let (kind, encoding) = (
                        header("content-type").unwrap_or_default(),
                        header("content-encoding"),
                    );
                    let body = http_body_util::BodyExt::collect(request.into_body())
                        .await
                        .unwrap()
                        .to_bytes();
                    tokio::time::sleep(delay).await;
                    kept.lock().unwrap().push((kind, encoding, body));
                    Ok::<_, std::convert::Infallible>(Response::new(http_body_util::Full::new(
                        Bytes::new(),
                    )))
                }
            });
            tokio::spawn(
                hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service),
            );
        }
    });
    (addr, received)
}

/// A collector that accepts connections and never answers.
async fn hanging() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((stream, _)) = listener.accept().await {
            held.push(stream);
        }
    });
    addr
}

/// An address nothing listens on.
async fn dead() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    listener.local_addr().unwrap()
}

fn forwarding(to: SocketAddr, queue_bytes: usize) -> ReceiveConfig {
    ReceiveConfig {
        forward: vec![format!("http://{to}")],
        forward_queue_bytes: queue_bytes,
        forward_timeout: Duration::from_secs(10),
        grpc: None,
        ..config()
    }
}

/// Let the runtime's other tasks run until `done` holds (virtual time).
async fn until(what: &str, done: impl Fn() -> bool) {
    for _ in 0..10_000 {
        if done() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("never: {what}");
}

#[tokio::test(start_paused = true)]
async fn a_slow_collector_gets_every_batch_unchanged_and_never_slows_receiving() {
    let (to, received) = collector(Duration::from_secs(5)).await;
    let (receiving, mut batches) = start(forwarding(to, 1 << 20), 16).await;
    let mut sent = Vec::new();
    let began = Instant::now();
    for n in 1..=10u8 {
        let body = gzip(&protobuf(&request(vec![span(n, n, None, "s")])));
        assert_eq!(
            post(
                receiving.http_addr(),
                PROTOBUF,
                Some("gzip"),
                None,
                body.clone()
            )
            .await
            .status(),
            200
        );
        sent.push(body);
    }
    assert!(
        began.elapsed() < Duration::from_secs(5),
        "{:?}",
        began.elapsed()
    );
    let json = serde_json::to_vec(&request(vec![span(11, 11, None, "j")])).unwrap();
    assert_eq!(
        post(receiving.http_addr(), JSON, None, None, json.clone())
            .await
            .status(),
        200
    );
    until("all forwarded", || receiving.counts().forward_sent == 11).await;
    let received = received.lock().unwrap().clone();
    for (n, body) in sent.iter().enumerate() {
        assert_eq!(
            received[n],
            (
                PROTOBUF.to_string(),
                Some("gzip".to_string()),
                Bytes::from(body.clone())
            )
        );
    }
    assert_eq!(received[10], (JSON.to_string(), None, Bytes::from(json)));
    assert_eq!(batches.recv().await.map(|b| b.bytes > 0), Some(true));
    let counts = receiving.counts();
    assert_eq!((counts.forward_dropped, counts.forward_failed), (0, 0));
}

#[tokio::test(start_paused = true)]
async fn a_hanging_collector_loses_what_its_queue_cannot_hold_counted() {
    let to = hanging().await;
    let body = protobuf(&request(vec![span(1, 1, None, "h")]));
    // Room for four batches: one being sent, three waiting.
    let (receiving, _batches) = start(forwarding(to, 4 * body.len()), 64).await;
    let began = Instant::now();
    for _ in 0..20 {
        assert_eq!(
            post(receiving.http_addr(), PROTOBUF, None, None, body.clone())
                .await
                .status(),
            200
        );
    }
    assert!(
        began.elapsed() < Duration::from_secs(10),
        "{:?}",
        began.elapsed()
    );
    let counts = receiving.counts();
    assert_eq!(
        (
            counts.requests_accepted,
            counts.forward_dropped,
            counts.forward_failed
        ),
        (20, 16, 0)
    );
    // Each held forward times out in turn; then the queue has room again.
    until("the held forwards time out", || {
        receiving.counts().forward_failed == 4
    })
    .await;
    assert_eq!(
        post(receiving.http_addr(), PROTOBUF, None, None, body)
            .await
            .status(),
        200
    );
    assert_eq!(receiving.counts().forward_dropped, 16);
    receiving.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn a_dead_collector_fails_every_forward_and_receiving_goes_on() {
    let to = dead().await;
    let (receiving, mut batches) = start(forwarding(to, 1 << 20), 64).await;
    for n in 1..=5u8 {
        let body = protobuf(&request(vec![span(n, 1, None, "d")]));
        assert_eq!(
            post(receiving.http_addr(), PROTOBUF, None, None, body)
                .await
                .status(),
            200
        );
    }
    until("every forward failed", || {
        receiving.counts().forward_failed == 5
    })
    .await;
    for _ in 0..5 {
        assert!(batches.recv().await.is_some());
    }
    assert_eq!(receiving.counts().forward_sent, 0);
}

#[tokio::test]
async fn a_forward_url_that_cannot_be_used_is_named() {
    let (sink, _batches) = mpsc::channel(1);
    let config = ReceiveConfig {
        forward: vec!["collector:4318".into()],
        ..config()
    };
    let error = serve_with_env(config, sink, &|_| None).await.unwrap_err();
    assert!(
        error.to_string().starts_with("--forward collector:4318: "),
        "{error}"
    );
}

/// A dead target's failures are counted against it, with why, and said
/// with its name (what `--headless` prints on stderr).
#[tokio::test(start_paused = true)]
async fn a_dead_targets_failures_are_named_with_the_target_and_why() {
    let to = dead().await;
    let (receiving, _batches) = start(forwarding(to, 1 << 20), 64).await;
    let body = protobuf(&request(vec![span(1, 1, None, "d")]));
    for _ in 0..3 {
        post(receiving.http_addr(), PROTOBUF, None, None, body.clone()).await;
    }
    until("every forward failed", || {
        receiving.status().forwards[0].failed == 3
    })
    .await;
    let status = receiving.status();
    assert_eq!(status.counts.forward_failed, 3);
    let target = &status.forwards[0];
    assert_eq!(target.target, format!("http://{to}"));
    assert_eq!((target.sent, target.dropped), (0, 0));
    let why = target.last_failure.as_deref().unwrap_or_default();
    assert!(!why.is_empty() && !why.contains("http://"), "{why}");
    let words = crate::watch::start::receiver_words(&status);
    assert!(
        words.contains(&format!(
            "forward to http://{to}: 0 sent, 0 dropped (queue full), 3 failed (last: {why})"
        )),
        "{words}"
    );
    assert!(words.contains("answers 200 ×3"), "{words}");
    receiving.shutdown().await;
}

/// A target given with a user and password is counted and said without
/// them: the counts reach the screen and stderr, and so does an error.
#[tokio::test(start_paused = true)]
async fn a_targets_password_is_never_said() {
    let to = dead().await;
    let given = ReceiveConfig {
        forward: vec![format!("http://ops:s3cret-pass@{to}")],
        ..forwarding(to, 1 << 20)
    };
    let (receiving, _batches) = start(given, 64).await;
    let body = protobuf(&request(vec![span(1, 1, None, "d")]));
    post(receiving.http_addr(), PROTOBUF, None, None, body).await;
    until("the forward failed", || {
        receiving.status().forwards[0].failed == 1
    })
    .await;
    let status = receiving.status();
    assert_eq!(status.forwards[0].target, format!("http://***@{to}"));
    let words = crate::watch::start::receiver_words(&status);
    assert!(
        !words.contains("s3cret") && !words.contains("ops:"),
        "{words}"
    );
    receiving.shutdown().await;

    let (sink, _batches) = mpsc::channel(1);
    let bad = ReceiveConfig {
        forward: vec!["ftp://ops:s3cret-pass@collector:4318".into()],
        ..config()
    };
    let error = serve_with_env(bad, sink, &|_| None).await.unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("--forward ftp://***@collector:4318: "),
        "{error}"
    );
}
