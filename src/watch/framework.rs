//! Which framework sent a watched span: a small table of instrumentation
//! scopes (and service names), each with the SDK language it needs, if
//! any. docs/watch.md prints it beside the vocabulary.

use crate::span::Span;

/// How a row's scope is matched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Match {
    /// The scope (or service name) starts with the text.
    Prefix,
    /// The scope is the text: a short, common name (the AI SDK's `ai`)
    /// that would otherwise match unrelated scopes.
    Exact,
}

/// One row: the scope, how it is matched, the `telemetry.sdk.language`
/// the resource must say (a generic scope name only some framework's
/// language makes sure of), and the framework's name.
struct Row(&'static str, Match, Option<&'static str>, &'static str);

/// The table, in the order it is read: the first row that fits names the
/// framework.
const FRAMEWORKS: &[Row] = &[
    Row(
        "openinference.instrumentation.openai_agents",
        Match::Prefix,
        None,
        "openai-agents",
    ),
    Row(
        "opentelemetry.instrumentation.openai_agents",
        Match::Prefix,
        None,
        "openai-agents",
    ),
    Row("openai.agents", Match::Prefix, None, "openai-agents"),
    Row(
        "openinference.instrumentation.langchain",
        Match::Prefix,
        None,
        "langgraph",
    ),
    Row(
        "opentelemetry.instrumentation.langchain",
        Match::Prefix,
        None,
        "langgraph",
    ),
    Row("pydantic-ai", Match::Prefix, None, "pydantic-ai"),
    Row("pydantic_ai", Match::Prefix, None, "pydantic-ai"),
    Row("autogen", Match::Prefix, None, "autogen"),
    Row(
        "openinference.instrumentation.crewai",
        Match::Prefix,
        None,
        "crewai",
    ),
    Row("crewai", Match::Prefix, None, "crewai"),
    // The JavaScript instrumentations: OpenInference's npm packages, and
    // the Vercel AI SDK's tracers (`ai` for 3 to 6 and AI SDK 7's
    // LegacyOpenTelemetry, `gen_ai` for @ai-sdk/otel's OpenTelemetry,
    // a name only a Node SDK makes the AI SDK's).
    Row(
        "@arizeai/openinference-instrumentation-openai-agents",
        Match::Prefix,
        None,
        "openai-agents-js",
    ),
    Row(
        "@arizeai/openinference-instrumentation-langchain",
        Match::Prefix,
        None,
        "langgraph-js",
    ),
    Row("ai", Match::Exact, None, "vercel-ai-sdk"),
    Row("gen_ai", Match::Exact, Some("nodejs"), "vercel-ai-sdk"),
    Row("conclave", Match::Prefix, None, "conclave"),
];

/// The framework `name` (a scope or a service name) names, for a
/// resource of SDK language `language`, if the table knows it.
fn named(name: &str, language: Option<&str>) -> Option<&'static str> {
    FRAMEWORKS
        .iter()
        .find(|Row(text, how, needs, _)| {
            let fits = match how {
                Match::Prefix => name.starts_with(text),
                Match::Exact => name == *text,
            };
            fits && needs.is_none_or(|needs| language == Some(needs))
        })
        .map(|Row(.., framework)| *framework)
}

/// The framework that sent `span`: by its scope, else its service name.
pub(crate) fn framework_of(span: &Span) -> Option<&'static str> {
    let language = span.language.as_deref();
    named(&span.scope, language).or_else(|| named(span.service.as_deref()?, language))
}

#[cfg(test)]
mod tests {
    use super::named;

    #[test]
    fn a_short_scope_names_its_framework_only_when_it_is_the_whole_scope() {
        assert_eq!(named("ai", Some("nodejs")), Some("vercel-ai-sdk"));
        assert_eq!(named("ai", None), Some("vercel-ai-sdk"));
        assert_eq!(named("aiohttp", Some("python")), None);
        assert_eq!(named("ai.client", None), None);
    }

    #[test]
    fn a_generic_scope_names_its_framework_only_in_that_frameworks_language() {
        assert_eq!(named("gen_ai", Some("nodejs")), Some("vercel-ai-sdk"));
        assert_eq!(named("gen_ai", Some("python")), None);
        assert_eq!(named("gen_ai", None), None);
        assert_eq!(
            named(
                "@arizeai/openinference-instrumentation-langchain",
                Some("nodejs")
            ),
            Some("langgraph-js")
        );
        assert_eq!(
            named("openinference.instrumentation.langchain", Some("python")),
            Some("langgraph")
        );
    }
}
