//! One pass over a scenario's text once serde_json has accepted its syntax:
//! how deep it nests, which keys repeat within an object, how many values
//! lie outside `context`, and where each top-level member stands. It keeps
//! a few numbers per open object and per key of the object being read,
//! never an entry per value, so its memory follows the widest object, not
//! the file's node count.

use super::cursor::{CLOSE_LIST, CLOSE_OBJECT, Cursor, OPEN_LIST, OPEN_OBJECT};
use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::ops::Range;

/// Deepest nesting of lists and objects a scenario may use (serde_json
/// itself stops at 127).
pub(crate) const MAX_DEPTH: usize = 100;

/// Values a scenario may hold outside `context`. Those are read into memory
/// as parsed JSON (tens of bytes a value); `context`, which holds the
/// shared facts of any size, stays text until a run reads it.
pub(crate) const MAX_VALUES_OUTSIDE_CONTEXT: usize = 1_000_000;

/// The member of the top-level object that may be large.
pub(crate) const CONTEXT: &str = "context";

/// A member of the top-level object.
pub(crate) struct Member<'t> {
    pub(crate) key: Cow<'t, str>,
    pub(crate) value: Range<usize>,
}

/// Something the pass found wrong, by byte offset.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Finding {
    /// A list or object opened at `at` nests deeper than [`MAX_DEPTH`].
    TooDeep { at: usize },
    /// A key repeated within one object.
    Duplicate {
        key: String,
        first: usize,
        again: usize,
    },
    /// The value at `at` is one too many outside `context`; `member` is the
    /// top-level member it lies in.
    TooManyValues { at: usize, member: String },
}

pub(crate) struct Structure<'t> {
    /// Where the top-level value starts, and whether it is an object.
    pub(crate) top_at: usize,
    pub(crate) top_is_object: bool,
    /// The top-level object's members in file order.
    pub(crate) members: Vec<Member<'t>>,
    /// At most `limit` findings, in file order; a `TooDeep` or
    /// `TooManyValues` finding ends the pass.
    pub(crate) findings: Vec<Finding>,
}

/// The keys of one open object: a hash of each with the offset of its first
/// occurrence, and the rare keys whose hash another key already took.
#[derive(Default)]
struct Keys {
    hashes: HashMap<u64, usize>,
    collided: Vec<(String, usize)>,
}

impl Keys {
    fn reset(&mut self) {
        // An earlier wide object must not make every small one pay to clear it.
        if self.hashes.capacity() > 1024 {
            self.hashes = HashMap::new();
        } else {
            self.hashes.clear();
        }
        self.collided.clear();
    }
}

enum Step {
    Value,
    AfterOpenObject,
    Key,
    AfterOpenArray,
    AfterValue,
}

/// Read the structure of `text`, keeping at most `limit` findings.
pub(crate) fn scan(text: &str, limit: usize) -> Structure<'_> {
    let mut cursor = Cursor::new(text);
    cursor.skip_ws();
    let top_at = cursor.at;
    let top_is_object = cursor.peek() == Some(OPEN_OBJECT);
    let mut scan = Scan {
        text,
        limit,
        cursor,
        structure: Structure {
            top_at,
            top_is_object,
            members: Vec::new(),
            findings: Vec::new(),
        },
        hasher: RandomState::new(),
        open: Vec::new(),
        keys: Vec::new(),
        objects: 0,
        outside_context: 0,
        in_context: false,
    };
    let mut step = Step::Value;
    // Each step says the next one, or that the pass is over.
    loop {
        let next = match step {
            Step::Value => scan.value(),
            Step::AfterOpenObject | Step::AfterOpenArray => Some(scan.after_open(step)),
            Step::Key => scan.key(),
            Step::AfterValue => scan.after_value(),
        };
        match next {
            Some(next) => step = next,
            None => return scan.structure,
        }
    }
}

/// The pass in progress: where it is in the text and what is open there.
struct Scan<'t> {
    text: &'t str,
    limit: usize,
    cursor: Cursor<'t>,
    structure: Structure<'t>,
    hasher: RandomState,
    /// One entry per open list (None) or object (the index of its keys).
    open: Vec<Option<usize>>,
    keys: Vec<Keys>,
    objects: usize,
    outside_context: usize,
    in_context: bool,
}

impl<'t> Scan<'t> {
    /// A value starts here: count it, and open its list or object.
    fn value(&mut self) -> Option<Step> {
        let cursor = &mut self.cursor;
        cursor.skip_ws();
        if !self.open.is_empty() && !self.in_context {
            self.outside_context += 1;
            if self.outside_context > MAX_VALUES_OUTSIDE_CONTEXT {
                let member = self
                    .structure
                    .members
                    .last()
                    .map_or_else(String::new, |m| m.key.to_string());
                self.structure.findings.push(Finding::TooManyValues {
                    at: cursor.at,
                    member,
                });
                return None;
            }
        }
        Some(match cursor.peek() {
            Some(bracket @ (OPEN_OBJECT | OPEN_LIST)) => {
                if self.open.len() >= MAX_DEPTH {
                    self.structure
                        .findings
                        .push(Finding::TooDeep { at: cursor.at });
                    return None;
                }
                cursor.bump();
                if bracket == OPEN_OBJECT {
                    if self.keys.len() == self.objects {
                        self.keys.push(Keys::default());
                    }
                    self.keys[self.objects].reset();
                    self.open.push(Some(self.objects));
                    self.objects += 1;
                    Step::AfterOpenObject
                } else {
                    self.open.push(None);
                    Step::AfterOpenArray
                }
            }
            Some(b'"') => {
                cursor.skip_string();
                Step::AfterValue
            }
            Some(_) => {
                cursor.skip_scalar();
                Step::AfterValue
            }
            None => return None,
        })
    }

    /// Just inside a list or object: it closes at once, or holds values.
    fn after_open(&mut self, step: Step) -> Step {
        self.cursor.skip_ws();
        match (self.cursor.peek(), step) {
            (Some(CLOSE_OBJECT), Step::AfterOpenObject)
            | (Some(CLOSE_LIST), Step::AfterOpenArray) => {
                self.close();
                Step::AfterValue
            }
            (_, Step::AfterOpenObject) => Step::Key,
            _ => Step::Value,
        }
    }

    /// A key of an object: note it if it repeats, and where a top-level
    /// member starts.
    fn key(&mut self) -> Option<Step> {
        let cursor = &mut self.cursor;
        cursor.skip_ws();
        if cursor.peek() != Some(b'"') {
            return None;
        }
        let key_at = cursor.at;
        let key = cursor.string();
        if let Some(Some(object)) = self.open.last() {
            let seen = &mut self.keys[*object];
            if let Some(first) = first_occurrence(seen, &self.hasher, self.text, &key, key_at)
                && self.structure.findings.len() < self.limit
            {
                self.structure.findings.push(Finding::Duplicate {
                    key: key.to_string(),
                    first,
                    again: key_at,
                });
            }
        }
        cursor.skip_ws();
        if cursor.peek() != Some(b':') {
            return None;
        }
        cursor.bump();
        cursor.skip_ws();
        if self.open.len() == 1 && self.structure.top_is_object {
            self.in_context = key == CONTEXT;
            self.structure.members.push(Member {
                key,
                value: cursor.at..cursor.at,
            });
        }
        Some(Step::Value)
    }

    /// A value ended: close a top-level member's range, then a comma or
    /// the end of what holds it.
    fn after_value(&mut self) -> Option<Step> {
        if self.open.is_empty() {
            return None;
        }
        if self.open.len() == 1
            && self.structure.top_is_object
            && let Some(member) = self.structure.members.last_mut()
            && member.value.end == member.value.start
        {
            member.value.end = self.cursor.at;
            self.in_context = false;
        }
        self.cursor.skip_ws();
        match self.cursor.peek() {
            Some(b',') => {
                self.cursor.bump();
                Some(match self.open.last() {
                    Some(Some(_)) => Step::Key,
                    _ => Step::Value,
                })
            }
            Some(CLOSE_OBJECT | CLOSE_LIST) => {
                self.close();
                Some(Step::AfterValue)
            }
            _ => None,
        }
    }

    /// Past the bracket that closes the innermost list or object.
    fn close(&mut self) {
        self.cursor.bump();
        if self.open.pop().flatten().is_some() {
            self.objects -= 1;
        }
    }
}

/// Where `key` first stood in the object `seen` describes, if it did;
/// records it otherwise.
fn first_occurrence(
    seen: &mut Keys,
    hasher: &RandomState,
    text: &str,
    key: &str,
    key_at: usize,
) -> Option<usize> {
    let hash = hasher.hash_one(key);
    let Some(&earlier) = seen.hashes.get(&hash) else {
        seen.hashes.insert(hash, key_at);
        return None;
    };
    let mut at_earlier = Cursor::new(text);
    at_earlier.at = earlier;
    if at_earlier.string() == key {
        return Some(earlier);
    }
    // Two different keys with one hash: compare such keys in full.
    if let Some((_, first)) = seen.collided.iter().find(|(k, _)| k == key) {
        return Some(*first);
    }
    seen.collided.push((key.to_string(), key_at));
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn duplicates(text: &str) -> Vec<(String, &str, &str)> {
        scan(text, 100)
            .findings
            .into_iter()
            .map(|f| match f {
                Finding::Duplicate { key, first, again } => {
                    (key, &text[first..first + 3], &text[again..again + 3])
                }
                other => panic!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn finds_keys_repeated_in_one_object_only() {
        let text = r#"{"a": {"x": 1, "y": 2}, "b": {"x": 1, "y": [{"x": 0}, {"x": 1, "z": 1, "x": 2}]}, "a": 3}"#;
        let found = duplicates(text);
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[0].0, "x");
        assert_eq!(found[1].0, "a");
        // An escaped key is the same key.
        assert_eq!(duplicates(r#"{"ab": 1, "\u0061b": 2}"#).len(), 1);
        assert!(duplicates(r#"[{"a": 1}, {"a": 2}]"#).is_empty());
    }

    #[test]
    fn reads_the_top_level_members() {
        let text = "{ \"name\" : \"n\",\n \"context\": {\"big\": [1, 2, 3]} , \"x\": []}";
        let structure = scan(text, 100);
        assert!(structure.top_is_object);
        let members: Vec<(&str, &str)> = structure
            .members
            .iter()
            .map(|m| (&*m.key, &text[m.value.clone()]))
            .collect();
        assert_eq!(
            members,
            vec![
                ("name", "\"n\""),
                ("context", "{\"big\": [1, 2, 3]}"),
                ("x", "[]")
            ]
        );
        assert!(structure.findings.is_empty());
    }

    #[test]
    fn stops_at_the_first_level_too_deep() {
        let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(scan(&ok, 100).findings.is_empty());
        let deep = format!("{{\"a\": {}", "[".repeat(100_000));
        assert_eq!(
            scan(&deep, 100).findings,
            vec![Finding::TooDeep {
                at: 6 + MAX_DEPTH - 1
            }]
        );
    }

    #[test]
    fn counts_values_outside_the_context_only() {
        let many = vec!["0"; MAX_VALUES_OUTSIDE_CONTEXT + 5].join(",");
        let inside = format!("{{\"context\": [{many}], \"name\": 1}}");
        assert!(scan(&inside, 100).findings.is_empty());
        let outside = format!("{{\"name\": 1, \"workers\": [{many}]}}");
        assert!(matches!(
            &scan(&outside, 100).findings[..],
            [Finding::TooManyValues { member, .. }] if member == "workers"
        ));
    }
}
