//! What a real `search` tool must answer for the research pattern to use
//! it: `{"results": [{"url", "title", "snippet"}]}` (or the same inside
//! `{"status": "ok", "data": ...}`), each `url` a non-blank text, `title`
//! and `snippet` texts when given. It becomes the simulated search's
//! output, so the pattern reads either the same way.

use serde_json::{Map, Value, json};

/// Where a search tool's answer breaks the shape, and what was expected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "the search tool `{tool}` answered without {expected} at `{path}` (a search tool returns {{\"results\": [{{\"url\", \"title\", \"snippet\"}}]}})"
)]
pub(crate) struct SearchError {
    pub(crate) tool: String,
    pub(crate) path: String,
    pub(crate) expected: &'static str,
}

/// The research pattern's search output (`{"status": "ok", "data":
/// {"results": [...]}}`) from a real tool's answer, keeping at most `k`
/// results: each with its `url`, its `title` (empty when absent), and its
/// `snippet` and numeric `score` when given.
pub(crate) fn search_output(
    tool: &str,
    answer: &Value,
    k: Option<usize>,
) -> Result<Value, SearchError> {
    let fail = |path: String, expected| SearchError {
        tool: tool.to_string(),
        path,
        expected,
    };
    let (prefix, body) = match (answer.get("status"), answer.get("data")) {
        (Some(Value::String(status)), Some(data)) if status == "ok" => ("data.", data),
        _ => ("", answer),
    };
    let Some(items) = body.get("results") else {
        return Err(fail(format!("{prefix}results"), "a list of results"));
    };
    let Value::Array(items) = items else {
        return Err(fail(format!("{prefix}results"), "a list of results"));
    };
    let mut results = Vec::new();
    for (index, item) in items.iter().take(k.unwrap_or(usize::MAX)).enumerate() {
        let at = |key: &str| format!("{prefix}results[{index}]{key}");
        let Value::Object(item) = item else {
            return Err(fail(at(""), "an object"));
        };
        let url = match item.get("url") {
            Some(Value::String(url)) if !url.trim().is_empty() => url.clone(),
            _ => return Err(fail(at(".url"), "a text URL")),
        };
        let mut result = Map::new();
        result.insert("url".into(), url.into());
        for key in ["title", "snippet"] {
            match item.get(key) {
                Some(Value::String(text)) => {
                    result.insert(key.into(), text.clone().into());
                }
                None | Some(Value::Null) if key == "title" => {
                    result.insert(key.into(), "".into());
                }
                None | Some(Value::Null) => {}
                Some(_) => return Err(fail(at(&format!(".{key}")), "a text")),
            }
        }
        if let Some(score) = item.get("score").filter(|s| s.is_number()) {
            result.insert("score".into(), score.clone());
        }
        results.push(Value::Object(result));
    }
    Ok(json!({"status": "ok", "data": {"results": results}}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_become_the_simulated_searchs_output() {
        let answer = json!({"results": [
            {"url": "https://a.example/x", "title": "A", "snippet": "s", "score": 0.9, "extra": 1},
            {"url": "b.example/y", "title": null},
            {"url": "https://c.example/"}
        ]});
        assert_eq!(
            search_output("kb", &answer, Some(2)).unwrap(),
            json!({"status": "ok", "data": {"results": [
                {"url": "https://a.example/x", "title": "A", "snippet": "s", "score": 0.9},
                {"url": "b.example/y", "title": ""}
            ]}})
        );
        let wrapped = json!({"status": "ok", "data": {"results": []}});
        assert_eq!(
            search_output("kb", &wrapped, None).unwrap(),
            json!({"status": "ok", "data": {"results": []}})
        );
    }

    #[test]
    fn a_wrong_shape_is_named_with_its_place() {
        let error = |answer: Value| search_output("kb_search", &answer, None).unwrap_err();
        assert_eq!(
            error(json!({"hits": []})).to_string(),
            "the search tool `kb_search` answered without a list of results at `results` (a search tool returns {\"results\": [{\"url\", \"title\", \"snippet\"}]})"
        );
        assert_eq!(error(json!({"results": {}})).path, "results");
        assert_eq!(
            error(json!({"status": "ok", "data": {"results": "x"}})).path,
            "data.results"
        );
        let bad_url = error(json!({"results": [{"url": "u"}, {"url": " "}]}));
        assert_eq!(
            (bad_url.path.as_str(), bad_url.expected),
            ("results[1].url", "a text URL")
        );
        assert_eq!(error(json!({"results": [3]})).path, "results[0]");
        assert_eq!(
            error(json!({"results": [{"url": "u", "snippet": 5}]})).path,
            "results[0].snippet"
        );
    }
}
