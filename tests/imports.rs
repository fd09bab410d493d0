//! The import graph of `src/`, read from the source as it stands: a file
//! imports another where its code names a path into it (`use
//! crate::a::b::Name`, `super::Name`, a child's `child::Name`), followed
//! through `pub use` to the file that defines the name, so a registry's
//! re-export points at the file that owns the type. No circle among files
//! (a registry sits above what it lists, a summary above what it sums),
//! and no circle among the top-level modules (no arrow runs back up a
//! floor). Test files and a file's `#[cfg(test)] mod` are left out; `mod
//! x;` declares a child and is no arrow.

use crate::common::sources::rust_files;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

/// A token of Rust source with comments, strings and chars taken out.
#[derive(Clone, Debug, PartialEq)]
enum Token {
    Ident(String),
    /// `::`
    Colons,
    Punct(char),
}

/// The source without comments, string and char literals, tokenised.
fn tokens(text: &str) -> Vec<Token> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == '"' || ((c == 'r' || c == 'b') && raw_string_at(&chars, i)) {
            i = skip_string(&chars, i);
        } else if c == '\'' {
            // A char literal ('x', '\n', '\u{..}') or a lifetime ('a).
            if next == Some('\\') {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if chars.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
            }
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(Token::Ident(chars[start..i].iter().collect()));
        } else if c == ':' && next == Some(':') {
            out.push(Token::Colons);
            i += 2;
        } else {
            if !c.is_whitespace() {
                out.push(Token::Punct(c));
            }
            i += 1;
        }
    }
    out
}

/// Whether a raw or byte string (`r"`, `r#"`, `b"`, `br"`) starts at `i`.
fn raw_string_at(chars: &[char], i: usize) -> bool {
    if i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_') {
        return false;
    }
    let mut j = i + 1;
    if chars[i] == 'b' && chars.get(j) == Some(&'r') {
        j += 1;
    }
    while chars.get(j) == Some(&'#') {
        j += 1;
    }
    chars.get(j) == Some(&'"')
}

/// The index just past the string literal starting at `i`.
fn skip_string(chars: &[char], mut i: usize) -> usize {
    let raw = chars[i] == 'r' || chars.get(i + 1) == Some(&'r');
    while chars[i] != '"' && chars[i] != '#' {
        i += 1;
    }
    let mut hashes = 0;
    while chars[i] == '#' {
        hashes += 1;
        i += 1;
    }
    i += 1;
    while i < chars.len() {
        if !raw && chars[i] == '\\' {
            i += 2;
            continue;
        }
        if chars[i] == '"' && (0..hashes).all(|k| chars.get(i + 1 + k) == Some(&'#')) {
            return i + 1 + hashes;
        }
        i += 1;
    }
    i
}

/// The tokens without the items under `#[cfg(test)]` (a `mod tests`, a
/// test-only `impl` or `use`): a file's tests are no part of the graph.
/// Also the modules it declares for tests alone (`#[cfg(test)] mod x;`).
fn without_tests(tokens: Vec<Token>) -> (Vec<Token>, Vec<String>) {
    let ident = |t: &Token, word: &str| matches!(t, Token::Ident(w) if w == word);
    let mut out = Vec::new();
    let mut test_modules = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let cfg_test = tokens[i] == Token::Punct('#')
            && tokens.get(i + 1) == Some(&Token::Punct('['))
            && tokens.get(i + 2).is_some_and(|t| ident(t, "cfg"))
            && tokens.get(i + 3) == Some(&Token::Punct('('))
            && tokens.get(i + 4).is_some_and(|t| ident(t, "test"))
            && tokens.get(i + 5) == Some(&Token::Punct(')'));
        if !cfg_test {
            out.push(tokens[i].clone());
            i += 1;
            continue;
        }
        // The item ends at a `;` or a closing brace back at its own depth.
        let mut depth = 0i32;
        i += 7;
        let start = i;
        while let Some(token) = tokens.get(i) {
            i += 1;
            match token {
                Token::Punct('(' | '[' | '{') => depth += 1,
                Token::Punct(')' | ']') => depth -= 1,
                Token::Punct('}') => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                Token::Punct(';') if depth == 0 => {
                    let item = &tokens[start..i];
                    if let [.., Token::Ident(word), Token::Ident(name), _] = item
                        && word == "mod"
                    {
                        test_modules.push(name.clone());
                    }
                    break;
                }
                _ => {}
            }
        }
    }
    (out, test_modules)
}

/// One path a `use` names: its segments, the name it brings in (none for
/// a glob), and whether it is re-exported (`pub use`, `pub(crate) use`).
struct Used {
    path: Vec<String>,
    name: Option<String>,
    public: bool,
}

/// The paths of the `use` tree starting at `tokens[*i]`, after `prefix`.
fn use_tree(tokens: &[Token], i: &mut usize, prefix: Vec<String>, public: bool) -> Vec<Used> {
    let mut path = prefix;
    let mut out = Vec::new();
    loop {
        match tokens.get(*i) {
            Some(Token::Ident(word)) if word == "self" && !path.is_empty() => {
                *i += 1;
                let name = path.last().cloned();
                out.push(Used {
                    name: alias(tokens, i, name),
                    path,
                    public,
                });
                return out;
            }
            Some(Token::Ident(word)) => {
                path.push(word.clone());
                *i += 1;
                if tokens.get(*i) == Some(&Token::Colons) {
                    *i += 1;
                    continue;
                }
                let name = path.last().cloned();
                out.push(Used {
                    name: alias(tokens, i, name),
                    path,
                    public,
                });
                return out;
            }
            Some(Token::Punct('{')) => {
                *i += 1;
                while !matches!(tokens.get(*i), Some(Token::Punct('}')) | None) {
                    let before = *i;
                    out.extend(use_tree(tokens, i, path.clone(), public));
                    if tokens.get(*i) == Some(&Token::Punct(',')) || *i == before {
                        *i += 1;
                    }
                }
                *i += 1;
                return out;
            }
            Some(Token::Punct('*')) => {
                *i += 1;
                out.push(Used {
                    path,
                    name: None,
                    public,
                });
                return out;
            }
            _ => return out,
        }
    }
}

/// The name after `as` where there is one, or `name`.
fn alias(tokens: &[Token], i: &mut usize, name: Option<String>) -> Option<String> {
    if matches!(tokens.get(*i), Some(Token::Ident(w)) if w == "as") {
        *i += 2;
        if let Some(Token::Ident(alias)) = tokens.get(*i - 1) {
            return (alias != "_").then(|| alias.clone());
        }
    }
    name
}

/// One file of `src/`: its module path, its uses, the other paths its
/// code names and the names it defines.
struct File {
    module: Vec<String>,
    /// The modules it declares for its tests alone.
    test_modules: Vec<String>,
    uses: Vec<Used>,
    /// The identifiers of its code outside its `use` items.
    words: BTreeSet<String>,
    paths: Vec<Vec<String>>,
    defines: BTreeSet<String>,
}

const ITEMS: [&str; 9] = [
    "struct", "enum", "fn", "trait", "type", "const", "static", "mod", "union",
];

fn read_file(module: Vec<String>, text: &str) -> File {
    let (tokens, test_modules) = without_tests(tokens(text));
    let mut uses = Vec::new();
    let mut paths = Vec::new();
    let mut defines = BTreeSet::new();
    let mut words = BTreeSet::new();
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            Token::Ident(word) if word == "use" => {
                let public = i > 0
                    && (matches!(&tokens[i - 1], Token::Ident(w) if w == "pub")
                        || tokens[i - 1] == Token::Punct(')'));
                i += 1;
                if tokens.get(i) == Some(&Token::Colons) {
                    i += 1;
                }
                uses.extend(use_tree(&tokens, &mut i, Vec::new(), public));
            }
            Token::Ident(word) if ITEMS.contains(&word.as_str()) || word == "macro_rules" => {
                let at = if word == "macro_rules" { i + 2 } else { i + 1 };
                if let Some(Token::Ident(name)) = tokens.get(at) {
                    defines.insert(name.clone());
                }
                words.insert(word.clone());
                i += 1;
            }
            Token::Ident(first) if tokens.get(i + 1) == Some(&Token::Colons) => {
                let mut path = vec![first.clone()];
                let mut j = i + 1;
                while tokens.get(j) == Some(&Token::Colons) {
                    match tokens.get(j + 1) {
                        Some(Token::Ident(next)) => path.push(next.clone()),
                        _ => break,
                    }
                    j += 2;
                }
                words.extend(path.iter().cloned());
                paths.push(path);
                i = j;
            }
            Token::Ident(word) => {
                words.insert(word.clone());
                i += 1;
            }
            _ => i += 1,
        }
    }
    File {
        module,
        test_modules,
        uses,
        words,
        paths,
        defines,
    }
}

/// The library's files by name from `src/` (the crate root, the binaries
/// and test files left out).
fn files() -> BTreeMap<String, File> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut paths = Vec::new();
    rust_files(&src, &mut paths);
    let mut files = BTreeMap::new();
    for path in paths {
        let name = path
            .strip_prefix(&src)
            .expect("under src")
            .to_string_lossy()
            .replace('\\', "/");
        let test = name.ends_with("tests.rs") || name.split('/').any(|part| part == "tests");
        if test || name == "lib.rs" || name == "main.rs" || name.starts_with("bin/") {
            continue;
        }
        let mut module: Vec<String> = name
            .trim_end_matches(".rs")
            .split('/')
            .map(str::to_string)
            .collect();
        if module.last().is_some_and(|last| last == "mod") {
            module.pop();
        }
        let text = std::fs::read_to_string(&path).expect("a source file");
        files.insert(name, read_file(module, &text));
    }
    let for_tests: Vec<Vec<String>> = files
        .values()
        .flat_map(|file| {
            file.test_modules.iter().map(|name| {
                let mut module = file.module.clone();
                module.push(name.clone());
                module
            })
        })
        .collect();
    files.retain(|_, file| !for_tests.iter().any(|test| file.module.starts_with(test)));
    files
}

/// The import graph: for each file, the files it imports and the names it
/// takes from each.
struct Graph {
    files: BTreeMap<String, File>,
    by_module: HashMap<Vec<String>, String>,
    scopes: HashMap<String, HashMap<String, Vec<String>>>,
}

impl Graph {
    fn new() -> Graph {
        let files = files();
        let by_module = files
            .iter()
            .map(|(name, file)| (file.module.clone(), name.clone()))
            .collect();
        let mut graph = Graph {
            files,
            by_module,
            scopes: HashMap::new(),
        };
        let scopes = graph
            .files
            .iter()
            .map(|(name, file)| (name.clone(), graph.scope(file)))
            .collect();
        graph.scopes = scopes;
        graph
    }

    /// `path`, named in `file`, from the crate's root; `None` where it
    /// leaves the crate.
    fn absolute(
        &self,
        file: &File,
        path: &[String],
        scope: &HashMap<String, Vec<String>>,
    ) -> Option<Vec<String>> {
        let first = path.first()?;
        let mut base = match first.as_str() {
            "crate" => Vec::new(),
            "self" | "super" => file.module.clone(),
            _ => {
                let mut child = file.module.clone();
                child.push(first.clone());
                if self.by_module.contains_key(&child) {
                    file.module.clone()
                } else {
                    let mut whole = scope.get(first)?.clone();
                    whole.extend(path[1..].iter().cloned());
                    return Some(whole);
                }
            }
        };
        let mut rest = path;
        if first == "crate" || first == "self" {
            rest = &path[1..];
        }
        while rest.first().is_some_and(|s| s == "super") {
            base.pop()?;
            rest = &rest[1..];
        }
        base.extend(rest.iter().cloned());
        Some(base)
    }

    /// The file that defines what `path` (from the crate's root) names, and
    /// the name, following `pub use`.
    fn target(&self, path: &[String], depth: usize) -> Option<(String, String)> {
        let cut = (1..=path.len())
            .rev()
            .find(|&n| self.by_module.contains_key(&path[..n]))?;
        let name = self.by_module[&path[..cut]].clone();
        let Some(item) = path.get(cut) else {
            return Some((name.clone(), path[cut - 1].clone()));
        };
        let file = &self.files[&name];
        if file.defines.contains(item) || depth > 8 {
            return Some((name, item.clone()));
        }
        let scope = &self.scopes[&name];
        for used in file.uses.iter().filter(|u| u.public) {
            let whole = match &used.name {
                Some(alias) if alias == item => self.absolute(file, &used.path, scope),
                None => self.absolute(file, &used.path, scope).map(|mut glob| {
                    glob.push(item.clone());
                    glob
                }),
                _ => continue,
            };
            let Some(mut whole) = whole else { continue };
            whole.extend(path[cut + 1..].iter().cloned());
            if let Some(found) = self.target(&whole, depth + 1)
                && (used.name.is_some() || self.files[&found.0].defines.contains(&found.1))
            {
                return Some(found);
            }
        }
        Some((name, item.clone()))
    }

    /// The names a file's uses bring in, each with its path from the root.
    fn scope(&self, file: &File) -> HashMap<String, Vec<String>> {
        let mut scope = HashMap::new();
        // Twice: a use may start from a name another use brings in.
        for _ in 0..2 {
            for used in &file.uses {
                if let (Some(name), Some(whole)) =
                    (&used.name, self.absolute(file, &used.path, &scope))
                {
                    scope.insert(name.clone(), whole);
                }
            }
        }
        scope
    }

    /// The file a path from the crate's root reaches first: the module
    /// it names, before any `pub use` there is followed.
    fn face(&self, path: &[String]) -> Option<String> {
        let cut = (1..=path.len())
            .rev()
            .find(|&n| self.by_module.contains_key(&path[..n]))?;
        Some(self.by_module[&path[..cut]].clone())
    }

    /// Each file's arrows: the file it imports and the names taken.
    fn arrows(&self) -> BTreeMap<String, BTreeMap<String, BTreeSet<String>>> {
        self.arrows_read(false)
    }

    /// [`Graph::arrows`], and with `through`, an arrow too to each file a
    /// name is taken through (a module's `pub use` of its child's type):
    /// the importer reads that file's face, as a person reading it does.
    fn arrows_read(&self, through: bool) -> BTreeMap<String, BTreeMap<String, BTreeSet<String>>> {
        let mut arrows: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
        for (name, file) in &self.files {
            let scope = &self.scopes[name];
            // A `pub use` of a name the file's own code never names only
            // hands the name on: the importer's arrow runs through it.
            let named = file
                .uses
                .iter()
                .filter(|u| !u.public || u.name.as_ref().is_some_and(|n| file.words.contains(n)))
                .map(|u| &u.path)
                .chain(&file.paths);
            for path in named {
                let Some(whole) = self.absolute(file, path, scope) else {
                    continue;
                };
                if let Some((to, item)) = self.target(&whole, 0)
                    && &to != name
                {
                    let names = arrows.entry(name.clone()).or_default();
                    if through
                        && let Some(face) = self.face(&whole)
                        && &face != name
                        && face != to
                    {
                        names.entry(face).or_default().insert(item.clone());
                    }
                    names.entry(to).or_default().insert(item);
                }
            }
        }
        arrows
    }
}

/// The strongly connected parts of more than one node (Tarjan's).
fn circles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Walk<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: HashMap<&'a str, usize>,
        low: HashMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        found: Vec<Vec<String>>,
    }
    fn visit<'a>(walk: &mut Walk<'a>, node: &'a str) {
        let at = walk.index.len();
        walk.index.insert(node, at);
        walk.low.insert(node, at);
        walk.stack.push(node);
        walk.on_stack.insert(node);
        for next in walk.edges.get(node).into_iter().flatten() {
            if !walk.index.contains_key(next.as_str()) {
                visit(walk, next);
                let low = walk.low[node].min(walk.low[next.as_str()]);
                walk.low.insert(node, low);
            } else if walk.on_stack.contains(next.as_str()) {
                let low = walk.low[node].min(walk.index[next.as_str()]);
                walk.low.insert(node, low);
            }
        }
        if walk.low[node] == walk.index[node] {
            let mut part = Vec::new();
            loop {
                let top = walk.stack.pop().expect("the node is on the stack");
                walk.on_stack.remove(top);
                part.push(top.to_string());
                if top == node {
                    break;
                }
            }
            if part.len() > 1 {
                part.sort();
                walk.found.push(part);
            }
        }
    }
    let mut walk = Walk {
        edges,
        index: HashMap::new(),
        low: HashMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for node in edges.keys() {
        if !walk.index.contains_key(node.as_str()) {
            visit(&mut walk, node);
        }
    }
    walk.found
}

#[test]
fn no_files_of_src_import_each_other_in_a_circle() {
    assert_no_circle(false);
}

#[test]
fn no_files_of_src_import_each_other_in_a_circle_through_a_module_face() {
    // `watched/state.rs` once took `GraphFold` through `graph/mod.rs`,
    // which takes the unit trait from `unit.rs`, whose registry names
    // the watched fold: a circle a reader of the files walks, though
    // each type's own file stands in none.
    assert_no_circle(true);
}

/// No circle among files, reading names taken through a module's face
/// as arrows to it too when `through`.
fn assert_no_circle(through: bool) {
    let graph = Graph::new();
    let arrows = graph.arrows_read(through);
    // A module's file holds its submodules (`mod x;`): an arrow between it
    // and one of its own submodules' files is the tree's nesting, a room
    // and what is inside it, and no circle's.
    let nested = |from: &str, to: &str| {
        let (from, to) = (&graph.files[from].module, &graph.files[to].module);
        from.starts_with(to) || to.starts_with(from)
    };
    let edges = arrows
        .iter()
        .map(|(from, to)| {
            let to = to.keys().filter(|to| !nested(from, to)).cloned();
            (from.clone(), to.collect())
        })
        .collect();
    let found: Vec<String> = circles(&edges)
        .into_iter()
        .map(|part| {
            let ties: Vec<String> = part
                .iter()
                .flat_map(|from| {
                    arrows[from]
                        .iter()
                        .filter(|(to, _)| part.contains(to) && !nested(from, to))
                        .map(move |(to, names)| format!("  {from} -> {to}: {names:?}"))
                })
                .collect();
            format!("{part:?}\n{}", ties.join("\n"))
        })
        .collect();
    assert!(
        found.is_empty(),
        "circles among files:\n{}",
        found.join("\n")
    );
}

#[test]
fn no_arrow_runs_back_up_between_the_top_level_modules() {
    let graph = Graph::new();
    let top = |name: &str| graph.files[name].module[0].clone();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut ties: Vec<String> = Vec::new();
    for (from, to) in graph.arrows() {
        for (to, names) in to {
            if top(&from) != top(&to) {
                edges.entry(top(&from)).or_default().insert(top(&to));
                ties.push(format!("  {from} -> {to}: {names:?}"));
            }
        }
    }
    let found = circles(&edges);
    let back: Vec<&String> = ties
        .iter()
        .filter(|tie| {
            found.iter().any(|part| {
                let (from, to) = tie.trim().split_once(" -> ").expect("a tie");
                let first = |p: &str| p.split(['/', '.']).next().unwrap_or("").to_string();
                part.contains(&first(from)) && part.contains(&first(to))
            })
        })
        .collect();
    assert!(
        found.is_empty(),
        "top-level modules in a circle: {found:?}\n{back:#?}"
    );
}

#[test]
fn a_pattern_imports_its_own_types_from_its_own_folder_not_through_the_registry() {
    // `patterns/events.rs` lists every pattern's events: a pattern that
    // took its own types back through it would sit below its own registry.
    let graph = Graph::new();
    let mut through: Vec<String> = Vec::new();
    for (name, file) in &graph.files {
        let in_a_pattern = name.starts_with("patterns/") && name.matches('/').count() > 1;
        if !in_a_pattern {
            continue;
        }
        let scope = &graph.scopes[name];
        for path in file.uses.iter().map(|u| &u.path).chain(&file.paths) {
            let Some(whole) = graph.absolute(file, path, scope) else {
                continue;
            };
            if whole.len() > 2
                && whole[..2] == ["patterns", "events"]
                && let Some((to, item)) = graph.target(&whole, 0)
                && to != "patterns/events.rs"
            {
                through.push(format!("{name}: {item} (from {to})"));
            }
        }
    }
    assert!(
        through.is_empty(),
        "taken through the registry: {through:#?}"
    );
}

#[test]
fn the_graph_is_read_as_the_checks_need_it() {
    // The reading itself: a registry's re-export points at the file that
    // defines the type, a child's `super::` at its parent, and the graph
    // has the arrows the layers are known by.
    let arrows = Graph::new().arrows();
    let takes = |from: &str, to: &str, name: &str| {
        arrows
            .get(from)
            .and_then(|to_names| to_names.get(to))
            .is_some_and(|names| names.contains(name))
    };
    assert!(takes(
        "patterns/events.rs",
        "patterns/orchestrator/events.rs",
        "TaskEvent"
    ));
    assert!(
        arrows["gateway/mod.rs"]
            .keys()
            .any(|to| to.starts_with("provider/"))
    );
    assert!(
        !arrows["gateway/mod.rs"]
            .keys()
            .any(|to| to.starts_with("patterns/"))
    );
    let files = arrows.len();
    assert!(files > 400, "only {files} files import another");
    // And a circle is found where there is one, and only there.
    let edges: BTreeMap<String, BTreeSet<String>> = [("a", "b"), ("b", "a"), ("c", "a")]
        .into_iter()
        .map(|(from, to)| (from.to_string(), BTreeSet::from([to.to_string()])))
        .collect();
    assert_eq!(
        circles(&edges),
        vec![vec!["a".to_string(), "b".to_string()]]
    );
}
