//! The headers of a program's call that go upstream with its body: which
//! organization and project its key is for, as OpenAI's clients send
//! them (from `OPENAI_ORG_ID` and `OPENAI_PROJECT_ID`). Nothing else of
//! the program's request goes on: its key least of all.

use super::Refused;
use reqwest::header::HeaderMap;

/// The headers forwarded, as they are named upstream.
const NAMES: [&str; 2] = ["OpenAI-Organization", "OpenAI-Project"];
/// The longest value forwarded (an organization's or project's id is a
/// few dozen characters).
const MAX_VALUE: usize = 256;

/// A call's forwarded headers, by name, as they came.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Forwarded(Vec<(&'static str, String)>);

impl Forwarded {
    /// The forwarded headers among `headers`; a 400 naming one that is
    /// not short printable text, or is given twice.
    pub(crate) fn of(headers: &HeaderMap) -> Result<Forwarded, Refused> {
        let mut kept = Vec::new();
        for name in NAMES {
            let mut values = headers.get_all(name).iter();
            let Some(value) = values.next() else {
                continue;
            };
            let text = value
                .to_str()
                .ok()
                .filter(|t| !t.is_empty() && t.len() <= MAX_VALUE && values.next().is_none());
            let Some(text) = text else {
                let message = format!(
                    "the {name} header must be given once, as printable text of 1 to {MAX_VALUE} characters"
                );
                return Err(Refused::new(400, message));
            };
            kept.push((name, text.to_string()));
        }
        Ok(Forwarded(kept))
    }

    /// `request` with the forwarded headers.
    pub(crate) fn onto(&self, mut request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        for (name, value) in &self.0 {
            request = request.header(*name, value);
        }
        request
    }
}

#[cfg(test)]
mod tests {
    use super::Forwarded;
    use reqwest::header::{HeaderMap, HeaderValue};

    #[test]
    fn only_the_organization_and_project_go_on_and_bad_ones_are_refused_by_name() {
        let mut headers = HeaderMap::new();
        headers.insert("openai-organization", HeaderValue::from_static("org-1"));
        headers.insert("OpenAI-Project", HeaderValue::from_static("proj_2"));
        headers.insert("authorization", HeaderValue::from_static("Bearer sk-x"));
        headers.insert("openai-beta", HeaderValue::from_static("assistants=v2"));
        let forwarded = Forwarded::of(&headers).unwrap();
        assert_eq!(
            forwarded.0,
            [
                ("OpenAI-Organization", "org-1".to_string()),
                ("OpenAI-Project", "proj_2".to_string())
            ]
        );
        assert_eq!(
            Forwarded::of(&HeaderMap::new()).unwrap(),
            Forwarded::default()
        );
        let long = HeaderValue::from_str(&"p".repeat(257)).unwrap();
        let bytes = HeaderValue::from_bytes(b"org-\xff").unwrap();
        let mut twice = HeaderMap::new();
        twice.append("openai-project", HeaderValue::from_static("a"));
        twice.append("openai-project", HeaderValue::from_static("b"));
        for (bad, name) in [
            (long, "OpenAI-Project"),
            (bytes, "OpenAI-Organization"),
            (HeaderValue::from_static(""), "OpenAI-Project"),
        ] {
            let mut headers = HeaderMap::new();
            headers.insert(name, bad);
            let refused = Forwarded::of(&headers).unwrap_err();
            assert_eq!(refused.status, 400);
            assert!(refused.message.contains(name), "{}", refused.message);
        }
        let refused = Forwarded::of(&twice).unwrap_err();
        assert!(
            refused.message.contains("given once"),
            "{}",
            refused.message
        );
    }
}
