//! Who may send: anyone on this machine by default; beyond loopback only a
//! sender presenting the bearer token named by `--token-env`. The token is
//! kept as its SHA-256 and compared in constant time, so neither its
//! length nor its first wrong byte shows in how long a refusal takes.

use super::{ReceiveConfig, ReceiveError};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// The token senders must present.
#[derive(Debug)]
pub(super) struct Token {
    digest: [u8; 32],
}

impl Token {
    fn new(secret: &str) -> Token {
        Token {
            digest: Sha256::digest(secret.as_bytes()).into(),
        }
    }

    /// Whether an `Authorization` value (HTTP header or gRPC metadata)
    /// carries the token: `Bearer <token>`, the scheme in any case.
    pub(super) fn admits(&self, authorization: Option<&[u8]>) -> bool {
        let Some(value) = authorization else {
            return false;
        };
        let given = match value.get(..7) {
            Some(scheme) if scheme.eq_ignore_ascii_case(b"bearer ") => &value[7..],
            _ => return false,
        };
        let digest: [u8; 32] = Sha256::digest(given.trim_ascii()).into();
        digest.ct_eq(&self.digest).into()
    }
}

/// The token the configuration asks for, read through `env`; an error
/// when an address is beyond loopback without one, or its variable is
/// unset.
pub(super) fn token_for(
    config: &ReceiveConfig,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<Token>, ReceiveError> {
    let Some(var) = &config.token_env else {
        let beyond = std::iter::once(("--listen", config.listen))
            .chain(config.grpc.map(|addr| ("--grpc", addr)))
            .find(|(_, addr)| !addr.ip().is_loopback());
        return match beyond {
            Some((flag, addr)) => Err(ReceiveError::TokenRequired { flag, addr }),
            None => Ok(None),
        };
    };
    match env(var) {
        Some(secret) if !secret.trim().is_empty() => {
            crate::secrets::register(secret.trim());
            Ok(Some(Token::new(secret.trim())))
        }
        _ => Err(ReceiveError::TokenMissing { var: var.clone() }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_bearer_token_itself_is_admitted() {
        let token = Token::new("s3cret");
        assert!(token.admits(Some(b"Bearer s3cret")));
        assert!(token.admits(Some(b"bearer s3cret")));
        assert!(!token.admits(Some(b"Bearer s3cre")));
        assert!(!token.admits(Some(b"Bearer s3cret2")));
        assert!(!token.admits(Some(b"Basic s3cret")));
        assert!(!token.admits(Some(b"s3cret")));
        assert!(!token.admits(Some(b"")));
        assert!(!token.admits(None));
    }

    #[test]
    fn beyond_loopback_a_token_is_required_and_named() {
        let none = |_: &str| None;
        let open = ReceiveConfig {
            grpc: Some("0.0.0.0:4317".parse().unwrap()),
            ..ReceiveConfig::default()
        };
        let error = token_for(&open, &none).unwrap_err();
        assert!(matches!(
            error,
            ReceiveError::TokenRequired { flag: "--grpc", .. }
        ));
        assert!(error.to_string().contains("--token-env"), "{error}");
        let unset = ReceiveConfig {
            token_env: Some("WATCH_TOKEN".into()),
            ..open.clone()
        };
        let error = token_for(&unset, &none).unwrap_err();
        assert!(error.to_string().contains("WATCH_TOKEN"), "{error}");
        let set = |name: &str| (name == "WATCH_TOKEN").then(|| "t0ken".to_string());
        assert!(token_for(&unset, &set).unwrap().is_some());
        assert!(
            token_for(&ReceiveConfig::default(), &none)
                .unwrap()
                .is_none()
        );
    }
}
