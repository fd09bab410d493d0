//! What is wrong with an OTLP setting, as the exporter's settings and
//! its time bounds report it.

/// A setting that cannot be used; the words never quote a header value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{setting}: {problem}")]
pub struct OtlpConfigError {
    pub setting: String,
    pub problem: String,
}
