//! What the endpoint tells a launched run of each call: every call sent
//! upstream reported once, a thousand at once among them, and the calls
//! that went wrong (a stream the upstream cut, a client that went away
//! mid-stream, an upstream that is not there, a call past a budget) each
//! reported with why, so that none is missing from the run's recording.

use super::model_call::{chunk, upstream};
use super::*;
use crate::gateway::endpoint::{Budgets, EndpointConfig, Endpoints, REPORTS_QUEUE, Report};
use crate::watch::receive::serve_with_gateway;
use std::sync::Arc;
use std::time::Duration;

/// The receiver with a reporting endpoint calling `upstream`.
async fn reporting(upstream: String, budgets: Budgets) -> (Receiving, mpsc::Receiver<Report>) {
    let config = EndpointConfig {
        upstream,
        key_env: "CARGO_PKG_NAME".to_string(),
        budgets,
        pricing: None,
    };
    let (sender, reports) = mpsc::channel(REPORTS_QUEUE);
    let endpoints = Arc::new(Endpoints::new(config).unwrap().reporting(sender));
    let (sink, _batches) = mpsc::channel(4);
    let mut receive = super::config();
    receive.grpc = None;
    let receiving = serve_with_gateway(receive, sink, None, endpoints)
        .await
        .unwrap();
    (receiving, reports)
}

fn url(receiving: &Receiving, path: &str) -> String {
    format!("http://{}/gateway/run-1/v1{path}", receiving.http)
}

/// The next report, which must come.
async fn next(reports: &mut mpsc::Receiver<Report>) -> Report {
    tokio::time::timeout(Duration::from_secs(30), reports.recv())
        .await
        .expect("a report in time")
        .expect("the endpoint still reports")
}

fn call(report: Report) -> crate::gateway::endpoint::EndpointCall {
    match report {
        Report::Call(call) => *call,
        other => panic!("expected a call's report, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_calls_at_once_are_each_reported_once_with_their_usage() {
    let (addr, seen) = upstream(Arc::default()).await;
    let (receiving, mut reports) = reporting(format!("http://{addr}/v1"), Budgets::default()).await;
    let client = client();
    let calls = (0..1000).map(|n| {
        let body =
            format!(r#"{{"model":"gpt-4o","messages":[{{"role":"user","content":"{n}"}}]}}"#);
        client
            .post(url(&receiving, "/chat/completions"))
            .body(body)
            .send()
    });
    let answers = futures_util::future::join_all(calls).await;
    assert!(answers.iter().all(|a| a.as_ref().unwrap().status() == 200));
    let mut input = 0;
    for _ in 0..1000 {
        let call = call(next(&mut reports).await);
        assert_eq!(call.status, Some(200));
        assert!(call.served(), "{call:?}");
        input += call.usage.unwrap().input;
    }
    assert_eq!(input, 1000 * 1000, "each call's usage, once");
    assert!(reports.try_recv().is_err(), "no call reported twice");
    assert_eq!(seen.lock().unwrap().len(), 1000);
    receiving.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cut_stream_a_client_gone_and_a_call_past_a_budget_are_reported_with_why() {
    let gate = Arc::new(tokio::sync::Notify::new());
    let (addr, _seen) = upstream(Arc::clone(&gate)).await;
    let budgets = Budgets {
        max_calls: Some(2),
        ..Budgets::default()
    };
    let (receiving, mut reports) = reporting(format!("http://{addr}/v1"), budgets).await;
    let post = |body: &'static str| {
        client()
            .post(url(&receiving, "/chat/completions"))
            .body(body)
            .send()
    };
    // The client sees the stream broken, not ended: its body cut, or the
    // whole answer when the break came before the head was written.
    if let Ok(mut cut) = post(r#"{"model":"cut","stream":true}"#).await {
        while cut.chunk().await.is_ok_and(|piece| piece.is_some()) {}
    }
    let cut = call(next(&mut reports).await);
    assert!(cut.stream);
    assert!(
        cut.error
            .as_deref()
            .unwrap()
            .contains("ended before it said it was done"),
        "{cut:?}"
    );
    let mut gone = post(r#"{"model":"long","stream":true}"#).await.unwrap();
    assert_eq!(
        gone.chunk().await.unwrap().unwrap(),
        chunk("Hel").as_bytes()
    );
    drop(gone);
    // The upstream sends its next pieces only now, more than the endpoint
    // can hand on without finding the client gone.
    gate.notify_one();
    let gone = call(next(&mut reports).await);
    assert!(
        gone.error.as_deref().unwrap().contains("client went away"),
        "{gone:?}"
    );
    assert!(!gone.served());
    let refused = post(r#"{"model":"gpt-4o"}"#).await.unwrap();
    assert_eq!(refused.status(), 429);
    match next(&mut reports).await {
        Report::Over {
            budget, refused, ..
        } => assert_eq!((budget, refused), ("max_calls", true)),
        other => panic!("expected the budget's refusal, got {other:?}"),
    }
    receiving.shutdown().await;
}

/// On the paused clock: the retries wait no wall time.
#[tokio::test(start_paused = true)]
async fn a_call_to_an_upstream_that_is_not_there_is_reported_unreached() {
    let dead = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .unwrap()
        .local_addr()
        .unwrap();
    let (receiving, mut reports) = reporting(format!("http://{dead}/v1"), Budgets::default()).await;
    let down = client()
        .post(url(&receiving, "/chat/completions"))
        .body(r#"{"model":"gpt-4o"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(down.status(), 502);
    let down = call(next(&mut reports).await);
    assert_eq!(down.status, None);
    assert!(
        down.error
            .as_deref()
            .unwrap()
            .contains("could not reach the upstream"),
        "{down:?}"
    );
    receiving.shutdown().await;
}
