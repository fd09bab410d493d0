//! The `--nats URL` value: checked before anything connects, and shown
//! without its password. It never connects.

use super::NatsError;
use async_nats::ServerAddr;

/// The servers `url` names (`nats://HOST:PORT`, `tls://…`, or `HOST:PORT`;
/// several separated by commas), or why it names none. A password or token
/// in it is registered with the scrubber so that no message shows it.
pub fn check_url(url: &str) -> Result<Vec<ServerAddr>, NatsError> {
    let bad = |problem: String| NatsError::BadUrl {
        url: shown_url(url),
        problem,
    };
    if url.trim().is_empty() {
        return Err(bad("it is empty".into()));
    }
    url.split(',')
        .map(str::trim)
        .map(|one| {
            let addr: ServerAddr = one
                .parse()
                .map_err(|e: std::io::Error| bad(e.to_string()))?;
            if let Some(password) = addr.password() {
                crate::secrets::register(password);
            }
            if addr.host().is_empty() {
                return Err(bad(format!("{} names no host", shown_url(one))));
            }
            Ok(addr)
        })
        .collect()
}

/// `url` with any `user:password@` or token before the host replaced by
/// `***@`, for messages and the dashboard.
pub fn shown_url(url: &str) -> String {
    url.split(',')
        .map(|one| {
            let (scheme, rest) = match one.split_once("://") {
                Some((scheme, rest)) => (Some(scheme), rest),
                None => (None, one),
            };
            let authority_end = rest.find('/').unwrap_or(rest.len());
            let rest = match rest[..authority_end].rfind('@') {
                Some(at) => format!("***{}", &rest[at..]),
                None => rest.to_string(),
            };
            match scheme {
                Some(scheme) => format!("{scheme}://{rest}"),
                None => rest,
            }
        })
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_of_servers_are_accepted() {
        for url in [
            "nats://127.0.0.1:4222",
            "127.0.0.1:4222",
            "localhost",
            "tls://nats.example.com:4443",
            "nats://a:4222, nats://b:4222",
        ] {
            assert!(check_url(url).is_ok(), "{url}");
        }
        assert_eq!(check_url("nats://a:1,nats://b:2").unwrap().len(), 2);
    }

    #[test]
    fn other_urls_are_refused_with_the_form_expected() {
        for url in [
            "",
            "http://127.0.0.1:4222",
            "nats://host:notaport",
            "nats://",
        ] {
            let e = check_url(url).expect_err(url).to_string();
            assert!(e.contains("expected nats://HOST:PORT"), "{url}: {e}");
        }
    }

    #[test]
    fn a_password_is_never_shown() {
        assert_eq!(
            shown_url("nats://ops:s3cret-pass@10.0.0.1:4222"),
            "nats://***@10.0.0.1:4222"
        );
        assert_eq!(
            shown_url("tok@host:4222,nats://h"),
            "***@host:4222,nats://h"
        );
        assert_eq!(shown_url("nats://127.0.0.1:4222"), "nats://127.0.0.1:4222");
        let e = check_url("http://ops:s3cret-pass@host")
            .unwrap_err()
            .to_string();
        assert!(!e.contains("s3cret"), "{e}");
    }
}
