//! Places in a scenario's text, found only for the paths that have errors:
//! one pass follows all of them at once and steps over every value off
//! their way, so finding them costs time in the file's size and memory in
//! the number of errors, never an index of every value.

use super::super::path::{JsonPath, Position, Segment};
use super::cursor::{CLOSE_LIST, CLOSE_OBJECT, Cursor, OPEN_LIST, OPEN_OBJECT};
use std::collections::HashMap;

/// Where the value at a path starts and, in an object, where its key does.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Found {
    key: Option<usize>,
    value: usize,
}

/// A tree of the wanted paths, one node per distinct prefix.
#[derive(Default)]
struct Node {
    children: HashMap<Segment, usize>,
    found: Option<Found>,
}

/// For each `(path, at_key)`, the byte offset of the value at `path` (or of
/// its key, with `at_key`), or of its nearest ancestor's value when the path
/// goes where the text does not. `None` only for a text with no value.
pub(crate) fn offsets(text: &str, wanted: &[(&JsonPath, bool)]) -> Vec<Option<usize>> {
    let mut nodes = vec![Node::default()];
    let mut ends = Vec::with_capacity(wanted.len());
    for (path, _) in wanted {
        let mut node = 0;
        for segment in path.segments() {
            node = match nodes[node].children.get(segment) {
                Some(&child) => child,
                None => {
                    nodes.push(Node::default());
                    let child = nodes.len() - 1;
                    nodes[node].children.insert(segment.clone(), child);
                    child
                }
            };
        }
        ends.push(node);
    }
    let mut cursor = Cursor::new(text);
    visit(&mut cursor, &mut nodes, 0, None);
    wanted
        .iter()
        .map(|(path, at_key)| {
            let mut node = 0;
            let mut best = nodes[0].found.map(|f| f.value);
            for (depth, segment) in path.segments().iter().enumerate() {
                let Some(&child) = nodes[node].children.get(segment) else {
                    break;
                };
                let Some(found) = nodes[child].found else {
                    break;
                };
                node = child;
                let last = depth + 1 == path.segments().len();
                best = Some(match found.key {
                    Some(key) if last && *at_key => key,
                    _ => found.value,
                });
            }
            best
        })
        .collect()
}

/// Record where the value at the cursor (and its key) stands for `node`,
/// and follow the wanted paths into it. Recursion goes only as deep as the
/// longest wanted path.
fn visit(cursor: &mut Cursor<'_>, nodes: &mut Vec<Node>, node: usize, key: Option<usize>) {
    cursor.skip_ws();
    if cursor.peek().is_none() {
        return;
    }
    nodes[node].found = Some(Found {
        key,
        value: cursor.at,
    });
    if nodes[node].children.is_empty() {
        cursor.skip_value();
        return;
    }
    match cursor.peek() {
        Some(OPEN_OBJECT) => {
            cursor.bump();
            loop {
                cursor.skip_ws();
                match cursor.peek() {
                    Some(b',') => cursor.bump(),
                    Some(b'"') => {
                        let key_at = cursor.at;
                        let name = cursor.string().into_owned();
                        cursor.skip_ws();
                        if cursor.peek() != Some(b':') {
                            return;
                        }
                        cursor.bump();
                        match nodes[node].children.get(&Segment::Key(name)) {
                            Some(&child) => visit(cursor, nodes, child, Some(key_at)),
                            None => cursor.skip_value(),
                        }
                    }
                    Some(CLOSE_OBJECT) => {
                        cursor.bump();
                        return;
                    }
                    _ => return,
                }
            }
        }
        Some(OPEN_LIST) => {
            cursor.bump();
            let mut index = 0;
            loop {
                cursor.skip_ws();
                match cursor.peek() {
                    Some(b',') => {
                        cursor.bump();
                        index += 1;
                    }
                    Some(CLOSE_LIST) => {
                        cursor.bump();
                        return;
                    }
                    None => return,
                    Some(_) => {
                        let before = cursor.at;
                        match nodes[node].children.get(&Segment::Index(index)) {
                            Some(&child) => visit(cursor, nodes, child, None),
                            None => cursor.skip_value(),
                        }
                        if cursor.at == before {
                            return;
                        }
                    }
                }
            }
        }
        _ => cursor.skip_value(),
    }
}

/// The path of the innermost value or key that holds byte `offset`.
pub(crate) fn path_at(text: &str, offset: usize) -> JsonPath {
    let mut cursor = Cursor::new(text);
    let mut path = JsonPath::root();
    'descend: loop {
        cursor.skip_ws();
        match cursor.peek() {
            Some(OPEN_OBJECT) => {
                cursor.bump();
                loop {
                    cursor.skip_ws();
                    match cursor.peek() {
                        Some(b',') => cursor.bump(),
                        Some(b'"') => {
                            let key_at = cursor.at;
                            if offset < key_at {
                                return path;
                            }
                            let name = cursor.string().into_owned();
                            if key_at == offset {
                                path.push(Segment::Key(name));
                                return path;
                            }
                            cursor.skip_ws();
                            if cursor.peek() != Some(b':') {
                                return path;
                            }
                            cursor.bump();
                            let mut value = Cursor::new(text);
                            value.at = cursor.at;
                            value.skip_value();
                            if value.at > offset {
                                path.push(Segment::Key(name));
                                continue 'descend;
                            }
                            cursor.at = value.at;
                        }
                        _ => return path,
                    }
                }
            }
            Some(OPEN_LIST) => {
                cursor.bump();
                let mut index = 0;
                loop {
                    cursor.skip_ws();
                    match cursor.peek() {
                        Some(b',') => {
                            cursor.bump();
                            index += 1;
                        }
                        Some(CLOSE_LIST) | None => return path,
                        Some(_) => {
                            let before = cursor.at;
                            if offset < before {
                                return path;
                            }
                            let mut value = Cursor::new(text);
                            value.at = cursor.at;
                            value.skip_value();
                            if value.at > offset {
                                path.push(Segment::Index(index));
                                continue 'descend;
                            }
                            if value.at == before {
                                return path;
                            }
                            cursor.at = value.at;
                        }
                    }
                }
            }
            _ => return path,
        }
    }
}

/// The line and column (both from 1, the column in characters) of each
/// byte offset, in one pass over the text up to the last of them.
pub(crate) fn positions(text: &str, offsets: &[usize]) -> Vec<Position> {
    let mut order: Vec<usize> = (0..offsets.len()).collect();
    order.sort_by_key(|&i| offsets[i]);
    let mut found = vec![Position { line: 1, column: 1 }; offsets.len()];
    let (mut line, mut line_start, mut scanned) = (1, 0, 0);
    for i in order {
        let offset = floor_char_boundary(text, offsets[i]);
        let newlines = text[scanned..offset].bytes().filter(|&b| b == b'\n');
        for _ in newlines {
            line += 1;
        }
        if let Some(last) = text[scanned..offset].rfind('\n') {
            line_start = scanned + last + 1;
        }
        scanned = offset;
        found[i] = Position {
            line,
            column: text[line_start..offset].chars().count() + 1,
        };
    }
    found
}

fn floor_char_boundary(text: &str, offset: usize) -> usize {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str =
        "{\n  \"team\": {\n    \"sequence\": [\"a\", \"b\",\n      \"é\"]\n  },\n  \"x\": 1\n}";

    fn position(path: &JsonPath, at_key: bool) -> Position {
        let offset = offsets(TEXT, &[(path, at_key)])[0].unwrap();
        positions(TEXT, &[offset])[0]
    }

    #[test]
    fn finds_values_and_keys() {
        let seq = JsonPath::root().key("team").key("sequence");
        let at = |line, column| Position { line, column };
        assert_eq!(position(&seq, false), at(3, 17));
        assert_eq!(position(&seq, true), at(3, 5));
        assert_eq!(position(&seq.index(2), false), at(4, 7));
        assert_eq!(position(&JsonPath::root().key("x"), true), at(6, 3));
        // A missing value points at its nearest ancestor.
        assert_eq!(position(&seq.index(9), false), at(3, 17));
        assert_eq!(position(&JsonPath::root().key("nope"), true), at(1, 1));
    }

    #[test]
    fn finds_many_paths_in_one_pass_in_any_order() {
        let seq = JsonPath::root().key("team").key("sequence");
        let wanted = [(&seq.index(1), false), (&seq, true), (&seq.index(0), false)];
        let found = offsets(TEXT, &wanted);
        let found: Vec<usize> = found.into_iter().map(Option::unwrap).collect();
        let lines: Vec<(usize, usize)> = positions(TEXT, &found)
            .into_iter()
            .map(|p| (p.line, p.column))
            .collect();
        assert_eq!(lines, vec![(3, 23), (3, 5), (3, 18)]);
    }

    #[test]
    fn names_the_path_of_an_offset() {
        let after_e = TEXT.find('é').unwrap();
        assert_eq!(path_at(TEXT, after_e).to_string(), "team.sequence[2]");
        let key = TEXT.find("\"x\"").unwrap();
        assert_eq!(path_at(TEXT, key).to_string(), "x");
        assert_eq!(path_at(TEXT, 0).to_string(), "(top level)");
    }
}
