//! Places in a scenario file: JSON paths as people write them
//! (`team.sequence[3]`) and the line and column where each value starts.

use std::collections::HashMap;
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Segment {
    Key(String),
    Index(usize),
}

/// A path from the top of a JSON document to one value.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct JsonPath(Vec<Segment>);

impl JsonPath {
    pub fn root() -> Self {
        JsonPath(Vec::new())
    }

    pub fn key(&self, key: &str) -> Self {
        let mut segments = self.0.clone();
        segments.push(Segment::Key(key.to_string()));
        JsonPath(segments)
    }

    pub fn index(&self, index: usize) -> Self {
        let mut segments = self.0.clone();
        segments.push(Segment::Index(index));
        JsonPath(segments)
    }

    pub fn push(&mut self, segment: Segment) {
        self.0.push(segment);
    }

    pub fn parent(&self) -> Option<JsonPath> {
        let (_, rest) = self.0.split_last()?;
        Some(JsonPath(rest.to_vec()))
    }

    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Display for JsonPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("(top level)");
        }
        for (i, segment) in self.0.iter().enumerate() {
            match segment {
                Segment::Index(n) => write!(f, "[{n}]")?,
                Segment::Key(k) if is_plain_key(k) => {
                    if i > 0 {
                        f.write_str(".")?;
                    }
                    f.write_str(k)?;
                }
                Segment::Key(k) => write!(f, "[{}]", serde_json::Value::from(k.as_str()))?,
            }
        }
        Ok(())
    }
}

fn is_plain_key(key: &str) -> bool {
    let mut chars = key.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '$')
}

/// A 1-based line and column (in characters).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    pub line: usize,
    pub column: usize,
}

#[derive(Clone, Copy, Debug)]
struct Span {
    key: Option<usize>,
    value: usize,
}

/// Where every value of a JSON text starts. Built from text that already
/// parsed as JSON; on anything else it indexes what it can and never fails.
pub struct SourceMap<'t> {
    text: &'t str,
    spans: HashMap<JsonPath, Span>,
}

impl<'t> SourceMap<'t> {
    pub fn build(text: &'t str) -> Self {
        let mut scanner = Scanner {
            bytes: text.as_bytes(),
            at: 0,
            spans: HashMap::new(),
        };
        let mut path = JsonPath::root();
        scanner.value(&mut path, None, 0);
        SourceMap {
            text,
            spans: scanner.spans,
        }
    }

    /// Where the value at `path` starts, or its nearest ancestor's.
    pub fn value(&self, path: &JsonPath) -> Option<Position> {
        let mut path = path.clone();
        loop {
            if let Some(span) = self.spans.get(&path) {
                return Some(self.position(span.value));
            }
            path = path.parent()?;
        }
    }

    /// Where the key naming the value at `path` starts (for unknown fields).
    pub fn key(&self, path: &JsonPath) -> Option<Position> {
        match self.spans.get(path) {
            Some(Span { key: Some(key), .. }) => Some(self.position(*key)),
            _ => self.value(path),
        }
    }

    fn position(&self, offset: usize) -> Position {
        let before = &self.text[..offset.min(self.text.len())];
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        Position {
            line: before.matches('\n').count() + 1,
            column: before[line_start..].chars().count() + 1,
        }
    }
}

struct Scanner<'b> {
    bytes: &'b [u8],
    at: usize,
    spans: HashMap<JsonPath, Span>,
}

/// Documents nested deeper than this are not indexed further (serde_json
/// itself refuses beyond 128).
const MAX_DEPTH: usize = 200;

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn value(&mut self, path: &mut JsonPath, key: Option<usize>, depth: usize) {
        self.skip_ws();
        self.spans.insert(
            path.clone(),
            Span {
                key,
                value: self.at,
            },
        );
        if depth > MAX_DEPTH {
            return;
        }
        match self.peek() {
            Some(b'{') => self.object(path, depth),
            Some(b'[') => self.array(path, depth),
            Some(b'"') => {
                self.string();
            }
            Some(_) => {
                while !matches!(
                    self.peek(),
                    None | Some(b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
                ) {
                    self.at += 1;
                }
            }
            None => {}
        }
    }

    fn object(&mut self, path: &mut JsonPath, depth: usize) {
        self.at += 1;
        loop {
            self.skip_ws();
            match self.peek() {
                Some(b'"') => {}
                Some(b',') => {
                    self.at += 1;
                    continue;
                }
                Some(b'}') => {
                    self.at += 1;
                    return;
                }
                _ => return,
            }
            let key_at = self.at;
            let key = self.string();
            self.skip_ws();
            if self.peek() != Some(b':') {
                return;
            }
            self.at += 1;
            path.push(Segment::Key(key));
            self.value(path, Some(key_at), depth + 1);
            path.0.pop();
        }
    }

    fn array(&mut self, path: &mut JsonPath, depth: usize) {
        self.at += 1;
        let mut index = 0;
        loop {
            self.skip_ws();
            match self.peek() {
                Some(b']') => {
                    self.at += 1;
                    return;
                }
                Some(b',') => {
                    self.at += 1;
                    continue;
                }
                None => return,
                Some(_) => {}
            }
            path.push(Segment::Index(index));
            let before = self.at;
            self.value(path, None, depth + 1);
            path.0.pop();
            if self.at == before {
                return;
            }
            index += 1;
        }
    }

    /// Skip a string literal and return its decoded text.
    fn string(&mut self) -> String {
        let start = self.at;
        self.at += 1;
        while let Some(b) = self.peek() {
            self.at += 1;
            match b {
                b'\\' => self.at += 1,
                b'"' => break,
                _ => {}
            }
        }
        let literal = &self.bytes[start..self.at.min(self.bytes.len())];
        serde_json::from_slice(literal).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_read_like_code() {
        let path = JsonPath::root()
            .key("team")
            .key("sequence")
            .index(3)
            .key("odd key");
        assert_eq!(path.to_string(), r#"team.sequence[3]["odd key"]"#);
        assert_eq!(JsonPath::root().to_string(), "(top level)");
    }

    #[test]
    fn finds_values_and_keys() {
        let text = "{\n  \"team\": {\n    \"sequence\": [\"a\", \"b\",\n      \"é\"]\n  }\n}";
        let map = SourceMap::build(text);
        let seq = JsonPath::root().key("team").key("sequence");
        assert_eq!(
            map.value(&seq),
            Some(Position {
                line: 3,
                column: 17
            })
        );
        assert_eq!(map.key(&seq), Some(Position { line: 3, column: 5 }));
        assert_eq!(
            map.value(&seq.index(2)),
            Some(Position { line: 4, column: 7 })
        );
        // A missing value points at its nearest ancestor.
        assert_eq!(
            map.value(&seq.index(9)),
            Some(Position {
                line: 3,
                column: 17
            })
        );
    }
}
