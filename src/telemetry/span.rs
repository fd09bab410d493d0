//! A finished span as the trace builder hands it over: names, times in
//! milliseconds since the Unix epoch, attributes and events, with parents
//! by the builder's own numbers. Plain data: no OpenTelemetry type here,
//! so the mapping from events to spans is tested without an exporter.

/// A span's number within its run's trace; the root is 1.
pub(crate) type SpanNo = u32;

/// An attribute's value.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum AttrValue {
    Str(String),
    Int(i64),
    Float(f64),
    Bool(bool),
    List(Vec<String>),
}

impl From<&str> for AttrValue {
    fn from(text: &str) -> Self {
        AttrValue::Str(text.to_string())
    }
}

impl From<String> for AttrValue {
    fn from(text: String) -> Self {
        AttrValue::Str(text)
    }
}

impl From<u64> for AttrValue {
    fn from(n: u64) -> Self {
        AttrValue::Int(i64::try_from(n).unwrap_or(i64::MAX))
    }
}

impl From<u32> for AttrValue {
    fn from(n: u32) -> Self {
        AttrValue::Int(i64::from(n))
    }
}

impl From<f64> for AttrValue {
    fn from(x: f64) -> Self {
        AttrValue::Float(x)
    }
}

impl From<bool> for AttrValue {
    fn from(b: bool) -> Self {
        AttrValue::Bool(b)
    }
}

/// Attributes in the order they were set; a key set twice keeps its last
/// value in its first place.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Attrs(pub(crate) Vec<(&'static str, AttrValue)>);

impl Attrs {
    pub(crate) fn set(&mut self, key: &'static str, value: impl Into<AttrValue>) {
        let value = value.into();
        match self.0.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = value,
            None => self.0.push((key, value)),
        }
    }

    #[cfg(test)]
    pub(crate) fn get(&self, key: &str) -> Option<&AttrValue> {
        self.0.iter().find(|(k, _)| *k == key).map(|(_, v)| v)
    }

    pub(crate) fn with(mut self, key: &'static str, value: impl Into<AttrValue>) -> Self {
        self.set(key, value);
        self
    }
}

/// Something that happened at a moment within a span.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SpanEvent {
    pub(crate) name: &'static str,
    /// Nanoseconds since the Unix epoch (see [`FinishedSpan::start_ns`]).
    pub(crate) at_ns: u64,
    pub(crate) attrs: Attrs,
}

/// How a span ended.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) enum SpanStatus {
    /// Nothing went wrong (the conventions leave such spans unset).
    #[default]
    Unset,
    /// The span failed; the words say why.
    Error(String),
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FinishedSpan {
    pub(crate) no: SpanNo,
    pub(crate) parent: Option<SpanNo>,
    pub(crate) name: String,
    /// Nanoseconds since the Unix epoch: the run's millisecond placed on
    /// its wall-clock start, plus the rank within that millisecond of the
    /// event that opened the span (see `TraceBuilder`'s `tick`).
    pub(crate) start_ns: u64,
    pub(crate) end_ns: u64,
    pub(crate) attrs: Attrs,
    pub(crate) events: Vec<SpanEvent>,
    pub(crate) status: SpanStatus,
}
