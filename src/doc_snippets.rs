//! The README and every page of `docs/` are checked against the program:
//! each scenario snippet loads as a scenario, each other JSON snippet
//! parses, and each `conclave` command line parses as the binary would.
//!
//! A JSON block says what it is after the language, so nothing is skipped
//! by accident: `json scenario` (a whole scenario), `json scenario-part
//! FILE` (keys merged into the shipped `scenarios/FILE`), `json program` (a
//! program scenario, docs/launch.md), `json pricing` (a
//! pricing table), `json result`/`json sweep`/`json events` (output shown as
//! an example: it parses). A block right after `<!-- schema: NAME -->` is a
//! contract's schema, which `patterns::contract_checks` compares exactly.

use crate::cli::Cli;
use clap::Parser;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// One fenced block: where it starts, its info string and its lines.
struct Block {
    place: String,
    info: String,
    body: String,
    after_schema_marker: bool,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The README and every `docs/*.md`, as (name, text).
fn pages() -> Vec<(String, String)> {
    let mut names = vec![root().join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("the docs folder")
        .map(|entry| entry.expect("a docs entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    docs.sort();
    names.extend(docs);
    names
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("a page");
            let name = path.strip_prefix(root()).unwrap().display().to_string();
            (name, text)
        })
        .collect()
}

fn blocks(name: &str, text: &str) -> Vec<Block> {
    let mut found = Vec::new();
    let mut lines = text.lines().enumerate().peekable();
    let mut previous = "";
    while let Some((at, line)) = lines.next() {
        let Some(info) = line.strip_prefix("```") else {
            if !line.trim().is_empty() {
                previous = line;
            }
            continue;
        };
        let mut body = String::new();
        for (_, inner) in lines.by_ref() {
            if inner.starts_with("```") {
                break;
            }
            body.push_str(inner);
            body.push('\n');
        }
        found.push(Block {
            place: format!("{name}:{}", at + 1),
            info: info.trim().to_string(),
            body,
            after_schema_marker: previous.starts_with("<!-- schema:"),
        });
        previous = "";
    }
    found
}

/// A snippet that shows some keys of an object (`"budget": {...}`) as the
/// object holding them.
fn as_object(body: &str) -> Result<Map<String, Value>, String> {
    let text = body.trim();
    let text = if text.starts_with("{") {
        text.to_string()
    } else {
        ["{", text, "}"].concat()
    };
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err("expected a JSON object".into()),
        Err(e) => Err(format!("not JSON: {e}")),
    }
}

/// Keys shown in a part of a scenario go into the shipped one, objects
/// into objects, so an excerpt (two of a scenario's agents) keeps the rest;
/// an object that names its `kind` (a provider) is another one and replaces.
fn merge(into: &mut Map<String, Value>, part: Map<String, Value>) {
    for (key, value) in part {
        match (into.get_mut(&key), value) {
            (Some(Value::Object(old)), Value::Object(new)) if !new.contains_key("kind") => {
                merge(old, new)
            }
            (_, value) => {
                into.insert(key, value);
            }
        }
    }
}

/// Output shown as an example: one JSON document, a few of its keys, or
/// several documents one after the other (JSON lines).
fn json_values(body: &str) -> Result<(), String> {
    let whole = serde_json::Deserializer::from_str(body).into_iter::<Value>();
    match whole.collect::<Result<Vec<_>, _>>() {
        Ok(values) if !values.is_empty() => Ok(()),
        _ => as_object(body).map(drop),
    }
}

fn check_json(block: &Block) -> Result<(), String> {
    let mut words = block.info.split_whitespace().skip(1);
    match (words.next(), words.next()) {
        (Some("scenario"), None) => {
            conclave::scenario::parse(&block.body, &block.place).map_err(|e| e.to_string())?;
            Ok(())
        }
        (Some("scenario-part"), Some(file)) => {
            let path = root().join("scenarios").join(file);
            let shipped = std::fs::read_to_string(&path).map_err(|e| format!("{file}: {e}"))?;
            let Value::Object(mut scenario) = serde_json::from_str(&shipped).unwrap() else {
                return Err(format!("{file} is no object"));
            };
            merge(&mut scenario, as_object(&block.body)?);
            let text = serde_json::to_string(&scenario).unwrap();
            conclave::scenario::parse_from(&text, &path).map_err(|e| e.to_string())?;
            Ok(())
        }
        (Some("pricing"), None) => {
            let dir = tempfile::tempdir().unwrap();
            let file = dir.path().join("prices.json");
            std::fs::write(&file, &block.body).unwrap();
            conclave::scenario::load_prices(&file).map_err(|e| e.to_string())?;
            Ok(())
        }
        (Some("program"), None) => {
            conclave::launch::scenario::parse(&block.body, &block.place, PathBuf::new())
                .map(drop)
                .map_err(|e| e.to_string())
        }
        (Some("result" | "sweep" | "events"), None) => json_values(&block.body),
        _ if block.after_schema_marker => as_object(&block.body).map(drop),
        _ => Err(format!(
            "a json block says what it is: `json scenario`, `json scenario-part FILE`, \
             `json program`, `json pricing`, `json result`, `json sweep` or `json events`, not `{}`",
            block.info
        )),
    }
}

/// The `conclave` command lines of a shell block: continuations joined,
/// prompts and comments taken off, each command of a pipeline apart.
fn command_lines(body: &str) -> Vec<Vec<String>> {
    let joined = body.replace("\\\n", " ");
    let mut commands = Vec::new();
    for line in joined.lines() {
        let line = line.trim().trim_start_matches("$ ");
        let Ok(words) = shell_words::split(line) else {
            continue;
        };
        let words: Vec<String> = words
            .into_iter()
            .take_while(|w| !w.starts_with('#'))
            .collect();
        for command in words.split(|w| ["|", "&&", ";", ">", "2>"].contains(&w.as_str())) {
            let command: Vec<&String> = command.iter().skip_while(|w| is_assignment(w)).collect();
            let args: Vec<String> = match command.as_slice() {
                [first, rest @ ..] if *first == "conclave" => {
                    rest.iter().map(|w| w.to_string()).collect()
                }
                [cargo, run, release, rest @ ..]
                    if *cargo == "cargo" && *run == "run" && *release == "--release" =>
                {
                    match rest {
                        [] => Vec::new(),
                        [dashes, rest @ ..] if *dashes == "--" => {
                            rest.iter().map(|w| w.to_string()).collect()
                        }
                        _ => continue,
                    }
                }
                _ => continue,
            };
            commands.push(args);
        }
    }
    commands
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty() && name.chars().all(|c| c.is_ascii_uppercase() || c == '_')
    })
}

fn check_command(args: &[String]) -> Result<(), String> {
    let argv = std::iter::once("conclave".to_string()).chain(args.iter().cloned());
    Cli::try_parse_from(argv).map_err(|e| e.render().to_string())?;
    for arg in args {
        if arg.starts_with("scenarios/") && !Path::new(&root()).join(arg).is_file() {
            return Err(format!("{arg} is no shipped scenario"));
        }
    }
    Ok(())
}

/// Every snippet of every page, checked; the failures, each with its place.
fn failures() -> (usize, Vec<String>) {
    let mut checked = 0;
    let mut failed = Vec::new();
    for (name, text) in pages() {
        for block in blocks(&name, &text) {
            let language = block.info.split_whitespace().next().unwrap_or("");
            let outcome = match language {
                "json" => {
                    checked += 1;
                    check_json(&block)
                }
                "sh" | "console" | "" => {
                    let mut outcome = Ok(());
                    for args in command_lines(&block.body) {
                        checked += 1;
                        if let Err(e) = check_command(&args) {
                            outcome = Err(format!("conclave {}: {e}", args.join(" ")));
                            break;
                        }
                    }
                    outcome
                }
                _ => Ok(()),
            };
            if let Err(e) = outcome {
                failed.push(format!("{}: {e}", block.place));
            }
        }
    }
    (checked, failed)
}

#[test]
fn every_snippet_and_command_in_the_readme_and_docs_holds() {
    let (checked, failed) = failures();
    assert!(checked > 40, "only {checked} snippets were found to check");
    assert!(
        failed.is_empty(),
        "snippets that do not hold:\n{}",
        failed.join("\n\n")
    );
}

#[test]
fn a_snippet_that_drifted_is_caught() {
    let scenario = Block {
        place: "x.md:1".into(),
        info: "json scenario-part checkout_v2_launch.json".into(),
        body: r#""budget": {"max_rounds": "three"}"#.into(),
        after_schema_marker: false,
    };
    assert!(check_json(&scenario).is_err(), "a wrong budget loads");
    let untagged = Block {
        info: "json".into(),
        ..scenario
    };
    assert!(
        check_json(&untagged)
            .unwrap_err()
            .contains("says what it is")
    );
    assert!(check_command(&["run".into(), "--no-such-flag".into()]).is_err());
    assert!(check_command(&["run".into(), "scenarios/missing.json".into()]).is_err());
    assert_eq!(
        command_lines("X=1 conclave run a.json --seed 2 | jq . # why\n"),
        vec![vec![
            "run".to_string(),
            "a.json".into(),
            "--seed".into(),
            "2".into()
        ]]
    );
}
