//! A run's result document, held as its compact JSON text. A large run's
//! result (a 100,000-task orchestrator's is about 50 MB of text) is many
//! times bigger as a `serde_json::Value` tree, and most of its readers only
//! pass it on: the recorder writes it, the headless printer prints it, a
//! replay reads it back. Those never build the tree; a reader that looks
//! inside (a test, a comparison, a copy) has it parsed once, on demand.

use serde::ser::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;
use std::sync::OnceLock;

pub struct ResultDoc {
    /// Compact JSON. Always JSON: serde_json wrote it or read it; so it is
    /// not read again to check.
    text: Text,
    /// The tree, for readers that look inside; built at most once.
    parsed: OnceLock<Value>,
}

/// A document's text, by where it came from.
#[derive(Clone)]
enum Text {
    /// serde_json wrote it here, compact: each string and number spelled
    /// as serde_json spells it, and written out as it is.
    Written(Box<RawValue>),
    /// serde_json read it (a recording's line): spelled as its writer
    /// spelled it, and checked once more where it is written out.
    Read(Box<str>),
}

impl Text {
    fn as_str(&self) -> &str {
        match self {
            Text::Written(raw) => raw.get(),
            Text::Read(text) => text,
        }
    }
}

impl ResultDoc {
    /// The document of a typed result, serialized straight to text: the
    /// tree is never built. A result that cannot be serialized (a map with
    /// keys that are not strings, which no result has) is `null`, as
    /// `serde_json::to_value(..).unwrap_or(Value::Null)` made it.
    pub fn of<T: Serialize + ?Sized>(result: &T) -> Self {
        // What serde_json wrote is JSON: it is not read again to check.
        let text =
            serde_json::value::to_raw_value(result).unwrap_or_else(|_| RawValue::NULL.to_owned());
        ResultDoc {
            text: Text::Written(text),
            parsed: OnceLock::new(),
        }
    }

    /// The document of a JSON value.
    pub fn from_value(value: &Value) -> Self {
        Self::of(value)
    }

    /// The document of a text that is JSON serde_json read.
    fn written(text: Box<str>) -> Self {
        ResultDoc {
            text: Text::Read(text),
            parsed: OnceLock::new(),
        }
    }

    /// Whether serde_json wrote the text in this process, compact, each
    /// string and number as it writes them (not a recording's text, which
    /// may be spelled another way).
    pub(crate) fn written_here(&self) -> bool {
        matches!(self.text, Text::Written(_))
    }

    /// The compact JSON text.
    pub fn text(&self) -> &str {
        self.text.as_str()
    }

    /// The document as a tree, parsed the first time it is asked for.
    pub fn value(&self) -> &Value {
        self.parsed
            .get_or_init(|| serde_json::from_str(self.text()).unwrap_or(Value::Null))
    }

    /// The document as a tree the caller keeps: the document itself stays
    /// text unless it was read already.
    pub(crate) fn tree_copy(&self) -> Value {
        match self.parsed.get() {
            Some(tree) => tree.clone(),
            None => serde_json::from_str(self.text()).unwrap_or(Value::Null),
        }
    }

    /// Some top-level members of the document, as the fields of `T`, read
    /// from its text without building the rest into a tree (a 100,000-task
    /// run's result is ten times its text as one); `None` when the document
    /// does not read as `T`.
    pub(crate) fn members<T: serde::de::DeserializeOwned>(&self) -> Option<T> {
        // A struct reads from an array too, by position: only an object
        // has members.
        if !self.text().trim_start().starts_with('{') {
            return None;
        }
        match self.parsed.get() {
            Some(tree) => T::deserialize(tree).ok(),
            None => serde_json::from_str(self.text()).ok(),
        }
    }

    /// The document as a tree, for a reader that keeps it.
    pub fn into_value(self) -> Value {
        let text = self.text;
        match self.parsed.into_inner() {
            Some(value) => value,
            None => serde_json::from_str(text.as_str()).unwrap_or(Value::Null),
        }
    }

    /// The document with every registered secret masked. With none
    /// registered (the simulated model) this is the document itself; with
    /// one, its strings are scrubbed in the tree, where a secret is found
    /// whatever JSON escaping its text went through.
    pub(crate) fn scrubbed(self) -> Self {
        if !crate::secrets::json_holds_secret(self.text()) {
            return self;
        }
        let mut tree = self.tree_copy();
        if crate::secrets::scrub_json(&mut tree) {
            Self::from_value(&tree)
        } else {
            self
        }
    }

    /// The document a recording's line holds, read by serde_json: its text
    /// as written.
    pub(crate) fn read(raw: &RawValue) -> Self {
        Self::written(raw.get().into())
    }

    /// [`ResultDoc::read`] for a line the caller gives up, `span` being
    /// where serde_json read the document in it: kept in the line's own
    /// memory rather than copied (a long run's result is most of its
    /// recording's last line, tens of megabytes).
    pub(crate) fn within(mut line: String, span: std::ops::Range<usize>) -> Self {
        line.truncate(span.end);
        line.drain(..span.start);
        Self::written(line.into_boxed_str())
    }
}

impl std::ops::Deref for ResultDoc {
    type Target = Value;

    fn deref(&self) -> &Value {
        self.value()
    }
}

impl From<Value> for ResultDoc {
    fn from(value: Value) -> Self {
        let doc = Self::from_value(&value);
        // The tree is at hand already: keep it rather than parse it again.
        let _ = doc.parsed.set(value);
        doc
    }
}

impl Clone for ResultDoc {
    fn clone(&self) -> Self {
        ResultDoc {
            text: self.text.clone(),
            parsed: OnceLock::new(),
        }
    }
}

impl PartialEq for ResultDoc {
    /// Equal documents: the same text, or texts that read as the same
    /// JSON (a hand-written recording may space its result differently).
    fn eq(&self, other: &Self) -> bool {
        self.text() == other.text() || self.value() == other.value()
    }
}

impl std::fmt::Debug for ResultDoc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("ResultDoc").field(&self.text()).finish()
    }
}

impl std::fmt::Display for ResultDoc {
    /// The compact JSON text.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.text())
    }
}

impl Default for ResultDoc {
    fn default() -> Self {
        Self::from(Value::Null)
    }
}

impl Serialize for ResultDoc {
    /// The text as it is. serde_json writes a `RawValue` as it is. One it
    /// wrote here is one already; making one of a text read elsewhere
    /// reads it through once: here, where a document is written out (a
    /// recording, a message), rather than at each change.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.text {
            Text::Written(raw) => raw.serialize(serializer),
            Text::Read(text) => {
                let raw: &RawValue = serde_json::from_str(text).map_err(S::Error::custom)?;
                raw.serialize(serializer)
            }
        }
    }
}

impl<'de> Deserialize<'de> for ResultDoc {
    /// Any deserializer: through the tree. A recording's lines take the
    /// direct way ([`ResultDoc::read`]).
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Value::deserialize(deserializer).map(Self::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_document_reads_as_the_value_it_was_made_from() {
        let value = json!({"status": "ok", "trace": [{"a": 1.5, "b": "é\n"}], "n": null});
        let doc = ResultDoc::of(&value);
        assert_eq!(doc.text(), serde_json::to_string(&value).unwrap());
        assert_eq!(*doc, value);
        assert_eq!(doc["trace"][0]["a"], 1.5);
    }

    #[test]
    fn a_document_serializes_as_its_json_and_reads_back_both_ways() {
        let doc = ResultDoc::of(&json!({"status": "stopped", "rounds": [1, 2]}));
        let line = serde_json::to_string(&json!({"result": &doc})).unwrap();
        assert_eq!(line, r#"{"result":{"status":"stopped","rounds":[1,2]}}"#);
        #[derive(Deserialize)]
        struct Direct<'a> {
            #[serde(borrow)]
            result: &'a RawValue,
        }
        #[derive(Deserialize)]
        struct Tree {
            result: ResultDoc,
        }
        let direct: Direct = serde_json::from_str(&line).unwrap();
        let tree: Tree = serde_json::from_value(serde_json::from_str(&line).unwrap()).unwrap();
        let read = ResultDoc::read(direct.result);
        assert_eq!(read, doc);
        assert_eq!(tree.result, doc);
        assert_eq!(read.text(), doc.text());
        // Kept in the line it was read from: the same text.
        let at = direct.result.get().as_ptr() as usize - line.as_ptr() as usize;
        let span = at..at + direct.result.get().len();
        let within = ResultDoc::within(format!("{line}\r\n"), span);
        assert_eq!(within.text(), doc.text());
    }

    #[test]
    fn documents_spaced_differently_are_equal_and_different_ones_are_not() {
        let spaced = |text: &str| ResultDoc::read(serde_json::from_str(text).unwrap());
        let doc = spaced("{ \"a\" : [1, 2] }");
        assert_eq!(doc.text(), "{ \"a\" : [1, 2] }");
        assert_eq!(doc, ResultDoc::of(&json!({"a": [1, 2]})));
        assert_ne!(doc, ResultDoc::of(&json!({"a": [2, 1]})));
    }
}
