//! A sweep of graph runs tallies what each run came to as the graph
//! pattern declares it: the path taken (its verdict, the last part of its
//! outcome's key), each node's visits (`visits.NODE`) and the stop. Each
//! equals what the same seed's run prints when it runs alone.

use crate::common;

use common::cli::{conclave, result};
use common::real::stderr;
use serde_json::{Value, json};

const SEEDS: u64 = 3;

/// What the run of `file` with `seed` prints headless.
fn alone(file: &str, seed: u64) -> Value {
    let out = conclave(&["run", file, "--headless", "--seed", &seed.to_string()]);
    assert!(
        matches!(out.status.code(), Some(0 | 3)),
        "{file} seed {seed}: {}",
        stderr(&out)
    );
    result(&out)
}

fn joined(path: &Value) -> String {
    let nodes: Vec<&str> = path
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    nodes.join("→")
}

#[test]
fn a_graph_sweep_tallies_each_run_s_path_visits_and_stop() {
    for file in [
        "scenarios/graph_review_loop.json",
        "scenarios/graph_stalled_join.json",
    ] {
        let out = conclave(&[
            "sweep",
            file,
            "--seeds",
            &format!("1..{SEEDS}"),
            "--headless",
        ]);
        assert_eq!(out.status.code(), Some(0), "{file}: {}", stderr(&out));
        let document = result(&out);
        let combination = &document["combinations"][0];
        assert_eq!(combination["runs"], SEEDS, "{file}");

        let runs: Vec<Value> = (1..=SEEDS).map(|seed| alone(file, seed)).collect();
        let mut verdicts = serde_json::Map::new();
        let mut outcomes = serde_json::Map::new();
        let mut stops = serde_json::Map::new();
        for run in &runs {
            let path = joined(&run["path"]);
            let reason = match run["stop_reason"].as_str().unwrap() {
                // The sweep speaks of every pattern's finished run alike.
                "completed" => "success",
                other => other,
            };
            let status = run["status"].as_str().unwrap();
            let bump = |map: &mut serde_json::Map<String, Value>, key: String| {
                let n = map.get(&key).and_then(Value::as_u64).unwrap_or(0);
                map.insert(key, json!(n + 1));
            };
            bump(&mut outcomes, format!("{status}/{reason}/{path}"));
            bump(&mut verdicts, path);
            bump(&mut stops, reason.to_string());
        }
        assert_eq!(combination["verdicts"], Value::Object(verdicts), "{file}");
        assert_eq!(combination["outcomes"], Value::Object(outcomes), "{file}");
        assert_eq!(combination["stop_reasons"], Value::Object(stops), "{file}");

        // Each node's visits, in the graph's declaration order, spread
        // over the runs as each run counted them.
        let used = combination["used"].as_object().unwrap();
        let nodes: Vec<&String> = runs[0]["visits"].as_object().unwrap().keys().collect();
        let swept: Vec<String> = used
            .keys()
            .filter(|k| k.starts_with("visits."))
            .cloned()
            .collect();
        let declared: Vec<String> = nodes.iter().map(|n| format!("visits.{n}")).collect();
        assert_eq!(swept, declared, "{file}");
        for node in nodes {
            let each: Vec<u64> = runs
                .iter()
                .map(|r| r["visits"][node].as_u64().unwrap())
                .collect();
            let spread = &used[&format!("visits.{node}")];
            assert_eq!(spread["total"], each.iter().sum::<u64>(), "{file} {node}");
            assert_eq!(spread["max"], *each.iter().max().unwrap(), "{file} {node}");
            assert_eq!(spread["min"], *each.iter().min().unwrap(), "{file} {node}");
        }
    }
}

#[test]
fn a_loop_visited_three_times_shows_three_in_the_sweep() {
    let out = conclave(&[
        "sweep",
        "scenarios/graph_review_loop.json",
        "--seeds",
        "1..2",
        "--headless",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let used = &result(&out)["combinations"][0]["used"];
    assert_eq!(used["visits.draft"]["counts"], json!({"3": 2}));
    assert_eq!(used["visits.ask"]["counts"], json!({"0": 2}));
}
