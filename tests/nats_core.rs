//! The connection every NATS feature shares, against a real nats-server
//! on loopback: JetStream round trips, and the errors a user can cause.

use crate::common;

use async_nats::jetstream::{self, consumer::pull, stream};
use common::nats::{NatsServer, Release};
use conclave::exit::Exit;
use conclave::nats::{self, NatsError};
use futures_util::StreamExt;
use std::time::Duration;

#[tokio::test]
async fn a_jetstream_message_round_trips_once_despite_a_repeated_message_id() {
    let server = NatsServer::start();
    let nats = nats::connect(&server.url()).await.expect("connects");
    assert_eq!(nats.url, server.url());
    let stream = nats
        .js
        .get_or_create_stream(stream::Config {
            name: "ROUNDTRIP".into(),
            subjects: vec!["roundtrip.>".into()],
            ..Default::default()
        })
        .await
        .unwrap();
    let subject = format!("roundtrip.{}", nats.engine);
    for _ in 0..2 {
        let mut headers = async_nats::HeaderMap::new();
        headers.insert("Nats-Msg-Id", "job-1");
        let ack = nats
            .js
            .publish_with_headers(subject.clone(), headers, "hello".into())
            .await
            .unwrap()
            .await
            .expect("the server stores it");
        assert_eq!(ack.stream, "ROUNDTRIP");
        assert_eq!(ack.sequence, 1, "the second publish is the same message");
    }
    let consumer = stream
        .create_consumer(pull::Config {
            durable_name: Some("reader".into()),
            ack_policy: jetstream::consumer::AckPolicy::Explicit,
            ..Default::default()
        })
        .await
        .unwrap();
    let mut batch = consumer
        .fetch()
        .max_messages(10)
        .expires(Duration::from_secs(2))
        .messages()
        .await
        .unwrap();
    let message = batch.next().await.expect("one message").unwrap();
    assert_eq!(message.subject.as_str(), subject);
    assert_eq!(&message.payload[..], b"hello");
    message.double_ack().await.expect("the ack is confirmed");
    assert!(batch.next().await.is_none(), "nothing else was stored");
}

#[tokio::test]
async fn an_engine_id_is_a_subject_token() {
    let server = NatsServer::start();
    let nats = nats::connect(&server.url()).await.unwrap();
    let id = nats.engine.to_string();
    assert!(!id.is_empty());
    assert!(
        id.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'),
        "{id}"
    );
}

#[tokio::test]
async fn a_closed_port_is_unreachable_and_the_users_to_fix() {
    // A port that was free a moment ago: nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("nats://127.0.0.1:{port}");
    let Err(e) = nats::connect(&url).await else {
        panic!("connected to a closed port");
    };
    assert!(matches!(e, NatsError::Unreachable { .. }), "{e:?}");
    assert_eq!(e.exit(), Exit::BadInput);
    let message = e.to_string();
    assert!(
        message.contains(&url) && message.contains("nats-server -js"),
        "{message}"
    );
}

#[tokio::test]
async fn the_oldest_supported_release_is_accepted_with_its_jetstream() {
    // Debian bookworm's nats-server 2.9.10 answers the account query
    // without the fields later releases added.
    let server = NatsServer::start_release(Release::Oldest);
    let nats = nats::connect(&server.url())
        .await
        .unwrap_or_else(|e| panic!("nats-server {} refused: {e}", Release::Oldest.version()));
    assert_eq!(nats.client.server_info().version, Release::Oldest.version());
}

#[tokio::test]
async fn a_server_without_jetstream_is_named_as_such() {
    let server = NatsServer::start_without_jetstream();
    let Err(e) = nats::connect(&server.url()).await else {
        panic!("a server without JetStream was accepted");
    };
    assert!(matches!(e, NatsError::NoJetStream { .. }), "{e:?}");
    assert_eq!(e.exit(), Exit::BadInput);
}

#[tokio::test]
async fn a_bad_url_is_refused_before_connecting() {
    let Err(e) = nats::connect("http://127.0.0.1:4222").await else {
        panic!("an http URL was accepted");
    };
    assert!(matches!(e, NatsError::BadUrl { .. }), "{e:?}");
    assert_eq!(e.exit(), Exit::BadInput);
}
