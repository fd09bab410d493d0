//! Export requests from their bodies: protobuf with prost, JSON with
//! opentelemetry-proto's OTLP/JSON mapping (hex ids, `intValue` and times
//! as strings or numbers, enums as numbers). Where that mapping refuses
//! what exporters do send (an empty body object `{}`, an attribute whose
//! value is `{}` as opentelemetry-js writes for an unsupported value), a
//! second, tolerant pass reads it. Both are depth-limited by their crates.

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::trace::v1::ResourceSpans;
use prost::Message;
use serde::Deserialize;
use serde_json::Value;

/// The two encodings of OTLP/HTTP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Encoding {
    Protobuf,
    Json,
}

impl Encoding {
    /// The encoding a `Content-Type` names, its parameters left out.
    pub(super) fn of_content_type(value: &[u8]) -> Option<Encoding> {
        let value = std::str::from_utf8(value).ok()?;
        let media = value.split(';').next().unwrap_or("").trim();
        if media.eq_ignore_ascii_case("application/x-protobuf")
            || media.eq_ignore_ascii_case("application/protobuf")
        {
            Some(Encoding::Protobuf)
        } else if media.eq_ignore_ascii_case("application/json") {
            Some(Encoding::Json)
        } else {
            None
        }
    }

    /// The `Content-Type` answers in this encoding carry.
    pub(super) fn content_type(self) -> &'static str {
        match self {
            Encoding::Protobuf => "application/x-protobuf",
            Encoding::Json => "application/json",
        }
    }
}

/// The request in `body`, or why it does not decode.
pub(super) fn request(
    encoding: Encoding,
    body: &[u8],
) -> Result<ExportTraceServiceRequest, String> {
    match encoding {
        Encoding::Protobuf => ExportTraceServiceRequest::decode(body).map_err(|e| {
            format!("the body is not an OTLP ExportTraceServiceRequest in protobuf: {e}")
        }),
        Encoding::Json => json(body),
    }
}

/// The top level of a JSON request, `resourceSpans` optional as in proto3.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonRequest {
    #[serde(default)]
    resource_spans: Vec<ResourceSpans>,
}

fn json(body: &[u8]) -> Result<ExportTraceServiceRequest, String> {
    let first = match serde_json::from_slice::<JsonRequest>(body) {
        Ok(request) => {
            return Ok(ExportTraceServiceRequest {
                resource_spans: request.resource_spans,
            });
        }
        Err(e) => e,
    };
    let refused = || format!("the body is not an OTLP ExportTraceServiceRequest in JSON: {first}");
    // The tolerant pass holds the body as a JSON tree, several times its
    // size; only bodies the strict pass refused take it.
    let mut tree: Value = serde_json::from_slice(body).map_err(|_| refused())?;
    tolerate(&mut tree);
    serde_json::from_value::<JsonRequest>(tree)
        .map(|request| ExportTraceServiceRequest {
            resource_spans: request.resource_spans,
        })
        .map_err(|_| refused())
}

/// The keys an OTLP/JSON `AnyValue` may hold.
const ANY_VALUE_KEYS: [&str; 7] = [
    "stringValue",
    "boolValue",
    "intValue",
    "doubleValue",
    "arrayValue",
    "kvlistValue",
    "bytesValue",
];

/// Drop what proto3 reads as absent and the mapping refuses: an
/// attribute value with no known key (`{}`), and unknown keys beside a
/// known one.
fn tolerate(value: &mut Value) {
    match value {
        Value::Object(object) => {
            if let Some(Value::Object(any)) = object.get_mut("value") {
                any.retain(|key, _| ANY_VALUE_KEYS.contains(&key.as_str()));
                if any.is_empty() {
                    object.remove("value");
                }
            }
            object.values_mut().for_each(tolerate);
        }
        Value::Array(items) => items.iter_mut().for_each(tolerate),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use opentelemetry_proto::tonic::common::v1::any_value;

    /// A request as OTLP/JSON exporters write it: upper-case hex ids (as
    /// the specification's example), `intValue` as a string and as a
    /// number, times as strings, `kind` and `status.code` as numbers, an
    /// attribute `{}`, and a field this version does not know.
    const EXPORTED: &str = r#"{"resourceSpans":[{"resource":{"attributes":[
        {"key":"service.name","value":{"stringValue":"shop"}}]},
      "scopeSpans":[{"scope":{"name":"agents"},"spans":[{
        "traceId":"5B8EFFF798038103D269B633813FC60C","spanId":"EEE19B7EC3C1B174",
        "parentSpanId":"","name":"invoke_agent triage","kind":1,
        "startTimeUnixNano":"1544712660000000000","endTimeUnixNano":1544712661000000000,
        "attributes":[{"key":"gen_ai.usage.input_tokens","value":{"intValue":"12"}},
          {"key":"n","value":{"intValue":7}},{"key":"empty","value":{}},
          {"key":"d","value":{"doubleValue":0.5}}],
        "status":{"code":2,"message":"boom"},"futureField":true}]}]}]}"#;

    #[test]
    fn what_json_exporters_send_decodes() {
        let request = request(Encoding::Json, EXPORTED.as_bytes()).unwrap();
        let span = &request.resource_spans[0].scope_spans[0].spans[0];
        assert_eq!(span.trace_id.len(), 16);
        assert_eq!(
            span.span_id,
            [0xee, 0xe1, 0x9b, 0x7e, 0xc3, 0xc1, 0xb1, 0x74]
        );
        assert!(span.parent_span_id.is_empty());
        assert_eq!(span.kind, 1);
        assert_eq!(span.end_time_unix_nano, 1_544_712_661_000_000_000);
        assert_eq!(span.status.as_ref().unwrap().code, 2);
        let values: Vec<_> = span
            .attributes
            .iter()
            .map(|kv| kv.value.as_ref().and_then(|v| v.value.clone()))
            .collect();
        assert_eq!(values[0], Some(any_value::Value::IntValue(12)));
        assert_eq!(values[1], Some(any_value::Value::IntValue(7)));
        assert_eq!(values[2], None);
        assert_eq!(values[3], Some(any_value::Value::DoubleValue(0.5)));
    }

    #[test]
    fn an_empty_object_is_an_empty_request() {
        assert_eq!(
            request(Encoding::Json, b"{}").unwrap(),
            ExportTraceServiceRequest::default()
        );
        assert_eq!(
            request(Encoding::Protobuf, b"").unwrap(),
            ExportTraceServiceRequest::default()
        );
    }

    #[test]
    fn what_does_not_decode_is_named() {
        let odd = r#"{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"abc"}]}]}]}"#;
        let error = request(Encoding::Json, odd.as_bytes()).unwrap_err();
        assert!(error.contains("JSON"), "{error}");
        let error = request(Encoding::Protobuf, &[0xff; 64]).unwrap_err();
        assert!(error.contains("protobuf"), "{error}");
        assert!(request(Encoding::Json, b"[1, 2").is_err());
    }

    #[test]
    fn content_types_are_read_without_their_parameters() {
        assert_eq!(
            Encoding::of_content_type(b"application/json; charset=utf-8"),
            Some(Encoding::Json)
        );
        assert_eq!(
            Encoding::of_content_type(b"Application/X-Protobuf"),
            Some(Encoding::Protobuf)
        );
        assert_eq!(Encoding::of_content_type(b"text/plain"), None);
        assert_eq!(Encoding::of_content_type(&[0xff, 0xfe]), None);
    }
}
