//! What a failed send says about the connection under it: whether the
//! request met a connection the server had already closed (a pooled one it
//! closed without saying so), and the failure's cause in words, which
//! reqwest's own message ("error sending request for url (…)") leaves out.

use std::error::Error;
use std::io::ErrorKind;

/// Whether `error` is a request that went out on a connection the server
/// had closed, before any byte of an answer came: the connection was
/// closed or reset under the request. A refused connection, a failed name
/// lookup or a timeout is not one: the endpoint was not reached at all.
pub(super) fn met_a_closed_connection(error: &reqwest::Error) -> bool {
    if error.is_connect() || error.is_timeout() || error.is_status() || error.is_body() {
        return false;
    }
    causes(error).any(|cause| {
        if let Some(hyper) = cause.downcast_ref::<hyper::Error>() {
            return hyper.is_incomplete_message() || hyper.is_canceled();
        }
        cause.downcast_ref::<std::io::Error>().is_some_and(|io| {
            matches!(
                io.kind(),
                ErrorKind::ConnectionReset
                    | ErrorKind::ConnectionAborted
                    | ErrorKind::BrokenPipe
                    | ErrorKind::UnexpectedEof
            )
        })
    })
}

/// The failure in words: what failed and its deepest cause
/// ("cannot connect: Connection refused (os error 111)"), without the URL,
/// which the caller names.
pub(crate) fn cause(error: &reqwest::Error) -> String {
    let what = if error.is_connect() {
        "cannot connect"
    } else if met_a_closed_connection(error) {
        "the server closed the connection before answering"
    } else if error.is_body() || error.is_decode() {
        "the answer broke off"
    } else {
        "the request failed"
    };
    match causes(error).skip(1).last() {
        Some(deepest) => format!("{what}: {deepest}"),
        None => what.to_string(),
    }
}

/// `error` and each error under it, outermost first.
fn causes<'a>(error: &'a (dyn Error + 'static)) -> impl Iterator<Item = &'a (dyn Error + 'static)> {
    std::iter::successors(Some(error), |&e| e.source())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufRead, BufReader, Write};
    use std::net::TcpListener;

    /// A server that reads one request and closes the connection without
    /// a word; its address.
    fn closing_server() -> String {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let mut reader = BufReader::new(stream);
                let mut line = String::new();
                while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                    line.clear();
                }
                let _ = reader.get_mut().flush();
                drop(reader);
            }
        });
        format!("http://{address}/v1/chat/completions")
    }

    fn client() -> reqwest::Client {
        crate::provider::http::install_crypto();
        reqwest::Client::new()
    }

    #[tokio::test]
    async fn a_connection_closed_under_the_request_is_told_from_one_never_made() {
        let closed = client().post(closing_server()).body("{}").send().await;
        let closed = closed.unwrap_err();
        assert!(met_a_closed_connection(&closed), "{closed:?}");
        assert!(
            cause(&closed).starts_with("the server closed the connection before answering: "),
            "{}",
            cause(&closed)
        );

        // A port nobody listens on: bound, then let go.
        let free = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap();
        let refused = client()
            .post(format!("http://{free}/v1/chat/completions"))
            .send()
            .await
            .unwrap_err();
        assert!(!met_a_closed_connection(&refused), "{refused:?}");
        let words = cause(&refused);
        assert!(words.starts_with("cannot connect: "), "{words}");
        assert!(
            !words.contains("error sending request"),
            "the cause, not reqwest's wrapper: {words}"
        );
    }
}
