//! Properties of the scenario loader on any input: arbitrary bytes,
//! arbitrary JSON, and the shipped scenarios with fields dropped, replaced
//! or added at random. It never panics, and every error it reports names
//! the file, a line and a column from 1, and a path. The `--ignored`
//! variants try many more and larger inputs.

use crate::common;

use conclave::scenario::{self, JsonPath, ScenarioErrors};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use serde_json::{Map, Value};

/// Keys a scenario uses, so that random documents reach past the first
/// "unknown field" into the checks behind it.
const KEYS: &[&str] = &[
    "name",
    "pattern",
    "goal",
    "context",
    "provider",
    "kind",
    "sim",
    "budget",
    "max_seconds",
    "timeout_seconds",
    "latency_ms",
    "min",
    "max",
    "team",
    "roles",
    "sequence",
    "flags",
    "default",
    "workers",
    "data",
    "resilience",
    "timeouts_ms",
    "retries",
    "backoff_ms",
    "circuit_breaker",
    "open_for_ms",
    "bulkhead",
    "max_wait_ms",
    "agents",
    "entry",
    "limits",
    "node_timeout_ms",
    "turns",
    "responses",
    "plan",
    "sources",
    "tools",
    "outage_ms",
    "$fault",
];

const VALUES: &[&str] = &[
    "collaboration",
    "orchestrator",
    "swarm",
    "coordinator",
    "research",
    "sim",
    "openai",
    "timeout",
    "empty",
    "full",
    "default",
    "model",
];

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(KEYS).prop_map(str::to_string),
        1 => "\\PC{0,8}",
    ]
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter_map("finite", serde_json::Number::from_f64)
            .prop_map(Value::Number),
        prop::sample::select(&[0.0, -1.0, 1e308, 604_800.5, 18_446_744_073_709_551_615.0][..])
            .prop_map(Value::from),
        prop::sample::select(VALUES).prop_map(Value::from),
        "\\PC{0,12}".prop_map(Value::from),
    ]
}

/// Any JSON value, `depth` levels deep at most.
fn json(depth: u32, size: u32) -> impl Strategy<Value = Value> {
    leaf().prop_recursive(depth, size, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((key(), inner), 0..6)
                .prop_map(|members| Value::Object(members.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// The shipped scenarios, read once.
fn shipped() -> &'static [(String, Value)] {
    static SHIPPED: std::sync::OnceLock<Vec<(String, Value)>> = std::sync::OnceLock::new();
    SHIPPED.get_or_init(common::files::shipped_documents)
}

/// A change to one place of a document.
#[derive(Clone, Debug)]
enum Mutation {
    Drop,
    Replace(Value),
    Insert(String, Value),
}

fn mutation(depth: u32) -> impl Strategy<Value = Mutation> {
    prop_oneof![
        Just(Mutation::Drop),
        json(depth, 16).prop_map(Mutation::Replace),
        (key(), json(depth, 16)).prop_map(|(k, v)| Mutation::Insert(k, v)),
    ]
}

/// The child at `index` of an object or a list.
fn child_mut(node: &mut Value, index: usize) -> &mut Value {
    match node {
        Value::Object(map) => map.iter_mut().nth(index).unwrap().1,
        Value::Array(items) => &mut items[index],
        _ => unreachable!("only objects and lists have children"),
    }
}

fn node_at_mut<'v>(document: &'v mut Value, path: &[usize]) -> &'v mut Value {
    path.iter()
        .fold(document, |node, &index| child_mut(node, index))
}

/// Apply `mutation` at the node the choices pick, walking down from the
/// top one child a step (a choice divisible by 4 stops the walk).
fn mutate(document: &mut Value, choice: Vec<usize>, mutation: Mutation) {
    let mut path = Vec::new();
    let mut node = &*document;
    for pick in choice {
        let len = match node {
            Value::Object(map) => map.len(),
            Value::Array(items) => items.len(),
            _ => 0,
        };
        if len == 0 || pick % 4 == 0 {
            break;
        }
        let index = pick % len;
        path.push(index);
        node = match node {
            Value::Object(map) => map.values().nth(index).unwrap(),
            Value::Array(items) => &items[index],
            _ => unreachable!(),
        };
    }
    if let (Mutation::Drop, Some((&last, parent))) = (&mutation, path.split_last()) {
        match node_at_mut(document, parent) {
            Value::Object(map) => {
                let key = map.keys().nth(last).unwrap().clone();
                map.shift_remove(&key);
            }
            Value::Array(items) => {
                items.remove(last);
            }
            _ => unreachable!(),
        }
        return;
    }
    let node = node_at_mut(document, &path);
    match mutation {
        Mutation::Replace(value) => *node = value,
        Mutation::Insert(key, value) => match node {
            Value::Object(map) => {
                map.insert(key, value);
            }
            Value::Array(items) => items.push(value),
            other => *other = value,
        },
        Mutation::Drop => *node = Value::Object(Map::new()),
    }
}

/// Every error names `file`, a line and a column from 1, and a path.
fn placed(errors: &ScenarioErrors, file: &str) -> Result<(), TestCaseError> {
    prop_assert!(!errors.0.is_empty(), "an error list is never empty");
    prop_assert!(errors.0.len() <= scenario::MAX_REPORTED + 1);
    for error in &errors.0 {
        prop_assert_eq!(&error.file, file);
        let position = error.position;
        prop_assert!(
            position.is_some_and(|p| p.line >= 1 && p.column >= 1),
            "no place: {}",
            error
        );
        prop_assert!(!error.message.is_empty());
        let shown = error.to_string();
        prop_assert!(
            shown.starts_with(&format!("{file}:")),
            "the error names the file: {}",
            shown
        );
        // The path is printed, even when it is the top level.
        let _: &JsonPath = &error.path;
        prop_assert!(shown.contains(&format!(": {}: ", error.path)), "{}", shown);
    }
    Ok(())
}

fn check_bytes(bytes: Vec<u8>) -> Result<(), TestCaseError> {
    if let Err(errors) = scenario::parse_bytes(bytes, "hostile.json") {
        placed(&errors, "hostile.json")?;
    }
    Ok(())
}

fn check_text(text: &str) -> Result<(), TestCaseError> {
    match scenario::parse(text, "hostile.json") {
        Ok(_) => Ok(()),
        Err(errors) => placed(&errors, "hostile.json"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_bytes_get_placed_errors(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        check_bytes(bytes)?;
    }

    #[test]
    fn arbitrary_json_gets_placed_errors(document in json(5, 48)) {
        check_text(&document.to_string())?;
        check_text(&serde_json::to_string_pretty(&document).unwrap())?;
    }

    #[test]
    fn mutated_shipped_scenarios_get_placed_errors(
        which in any::<prop::sample::Index>(),
        choice in prop::collection::vec(any::<usize>(), 0..6),
        change in mutation(3),
    ) {
        let all = shipped();
        let (_, document) = &all[which.index(all.len())];
        let mut document = document.clone();
        mutate(&mut document, choice, change);
        check_text(&serde_json::to_string_pretty(&document).unwrap())?;
    }

    #[test]
    fn shipped_scenarios_with_bytes_spliced_in_get_placed_errors(
        which in any::<prop::sample::Index>(),
        at in any::<prop::sample::Index>(),
        cut in 0usize..16,
        with in prop::collection::vec(any::<u8>(), 0..8),
    ) {
        let all = shipped();
        let (_, document) = &all[which.index(all.len())];
        let mut bytes = serde_json::to_string_pretty(document).unwrap().into_bytes();
        let at = at.index(bytes.len());
        let end = (at + cut).min(bytes.len());
        bytes.splice(at..end, with);
        check_bytes(bytes)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    #[test]
    #[ignore = "the deep run: cargo test --test all scenario_properties:: -- --ignored"]
    fn deep_arbitrary_inputs_get_placed_errors(
        bytes in prop::collection::vec(any::<u8>(), 0..4096),
        document in json(8, 256),
    ) {
        check_bytes(bytes)?;
        check_text(&serde_json::to_string_pretty(&document).unwrap())?;
    }

    #[test]
    #[ignore = "the deep run: cargo test --test all scenario_properties:: -- --ignored"]
    fn deep_mutations_of_shipped_scenarios_get_placed_errors(
        which in any::<prop::sample::Index>(),
        choices in prop::collection::vec(prop::collection::vec(any::<usize>(), 0..8), 1..4),
        changes in prop::collection::vec(mutation(5), 1..4),
    ) {
        let all = shipped();
        let (_, document) = &all[which.index(all.len())];
        let mut document = document.clone();
        for (choice, change) in choices.into_iter().zip(changes) {
            mutate(&mut document, choice, change);
        }
        check_text(&serde_json::to_string_pretty(&document).unwrap())?;
    }
}

/// The shipped scenarios load, so that the properties above start from
/// valid documents and each change is what makes a file fail.
#[test]
fn the_shipped_scenarios_load() {
    for (name, document) in shipped() {
        let text = serde_json::to_string_pretty(document).unwrap();
        if let Err(errors) = scenario::parse(&text, name) {
            panic!("{errors}");
        }
    }
}
