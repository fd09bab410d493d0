//! The secrets Conclave knows of in its own environment, registered with
//! the scrubber when a command starts, whatever provider, exporter or
//! workers it then uses: the model API key, and the values of the OTLP
//! headers. A program a scenario starts never gets them unless the
//! scenario hands them over (`provider::program_env`), and what it prints
//! of them is masked like everything else Conclave writes.

use std::sync::Once;

/// The variables that hold one secret each.
const SECRET_VARIABLES: &[&str] = &[crate::provider::openai::KEY_VARIABLE];

/// The variables that hold OTLP headers (`key=value,...`), every value a
/// secret.
const HEADER_VARIABLES: &[&str] = &[crate::telemetry::HEADERS, crate::telemetry::TRACES_HEADERS];

static ONCE: Once = Once::new();

/// Register every secret of Conclave's environment (once a process).
pub fn register_environment() {
    ONCE.call_once(|| register_from(&|name| std::env::var(name).ok()));
}

/// Register every secret `env` holds.
pub(crate) fn register_from(env: &dyn Fn(&str) -> Option<String>) {
    for name in SECRET_VARIABLES {
        if let Some(secret) = env(name).filter(|s| !s.trim().is_empty()) {
            crate::secrets::register(&secret);
        }
    }
    for name in HEADER_VARIABLES {
        if let Some(headers) = env(name) {
            // Each value is registered as it is read; a malformed entry is
            // the exporter's to report when it is used.
            let _ = crate::telemetry::parse_headers(name, &headers);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_and_the_otlp_header_values_are_masked_without_being_used() {
        let env = |name: &str| match name {
            "OPENAI_API_KEY" => Some("sk-known-env-Vb6Qm1Xr8Ks3".to_string()),
            "OTEL_EXPORTER_OTLP_HEADERS" => {
                Some("x-api-key=otlp-known-Zc5Nw2Ht,x-tenant=hq%2Dknown-Pf4Ly7Gd".to_string())
            }
            _ => None,
        };
        register_from(&env);
        assert_eq!(
            crate::secrets::scrub(
                "key sk-known-env-Vb6Qm1Xr8Ks3, header otlp-known-Zc5Nw2Ht, tenant hq-known-Pf4Ly7Gd"
            ),
            "key [redacted], header [redacted], tenant [redacted]"
        );
    }
}
