//! A scenario's sim script as an endpoint on loopback answers from it: the
//! system prompt says what a call is for (which analyst, which agent, a
//! plan, a brief or a synthesis); each rule keeps its own cursor and
//! repeats its last entry, as the sim does.

use serde_json::{Value, json};
use std::sync::Mutex;

/// One kind of call and the answers the script gives it, in order.
pub struct Rule {
    /// A piece of the system prompt only this kind of call has.
    pub needle: String,
    pub entries: Vec<Value>,
    /// The call asks for prose (a final brief), not a JSON contract.
    pub prose: bool,
}

/// The piece of `conclave probe`'s system prompt the endpoint knows it by.
pub const PROBE_NEEDLE: &str = "You answer a probe of this endpoint by Conclave";

pub struct Script {
    pub rules: Vec<Rule>,
    cursors: Mutex<Vec<usize>>,
}

impl Script {
    /// The rules for the sim script of `doc`.
    pub fn of(doc: &Value) -> Self {
        let script = &doc["provider"];
        let entries = |value: &Value| match value {
            Value::Array(items) if !items.is_empty() => items.clone(),
            other => vec![other.clone()],
        };
        let rule = |needle: String, entries: Vec<Value>| Rule {
            needle,
            entries,
            prose: false,
        };
        let mut rules = Vec::new();
        if let Some(responses) = script["responses"].as_object() {
            for (role, value) in responses {
                rules.push(rule(
                    format!("You are the {role} at a launch-readiness"),
                    entries(value),
                ));
            }
        }
        if let Some(turns) = script["turns"].as_object() {
            for (agent, value) in turns {
                let without_latency = entries(value)
                    .into_iter()
                    .map(|mut entry| {
                        if let Some(map) = entry.as_object_mut() {
                            map.remove("latency_ms");
                        }
                        entry
                    })
                    .collect();
                // A member team's agent is told its own name, not its path;
                // a graph's agent node is scripted by its id and told the
                // name of the agent it runs.
                let own = graph_agent(doc, agent)
                    .unwrap_or_else(|| agent.rsplit('/').next().unwrap_or(agent));
                rules.push(rule(format!("You are {own},"), without_latency));
            }
        }
        let pattern = doc["pattern"].as_str().unwrap_or_default();
        if let Some(plan) = script.get("plan") {
            let (needle, plan) = match pattern {
                "research" if plan.is_array() => ("You plan a research", json!({"steps": plan})),
                "research" => ("You plan a research", plan.clone()),
                _ => (
                    "You plan the work of an operations orchestrator",
                    plan.clone(),
                ),
            };
            rules.push(rule(needle.to_string(), vec![plan]));
        }
        if let Some(brief) = script.get("final_answer") {
            let needle = match pattern {
                "collaboration" => "You write the final operations brief",
                _ => "You write a short morning operations brief",
            };
            rules.push(Rule {
                prose: true,
                ..rule(needle.to_string(), entries(brief))
            });
        }
        if let Some(synthesis) = script.get("synthesis") {
            rules.push(rule(
                "You write the answer of a research workflow".to_string(),
                entries(synthesis),
            ));
        }
        // `conclave probe`'s tiny requests, which any endpoint answers.
        rules.push(rule(PROBE_NEEDLE.to_string(), vec![json!({"ok": true})]));
        let cursors = Mutex::new(vec![0; rules.len()]);
        Script { rules, cursors }
    }

    /// The rule a request with this system prompt falls under.
    pub fn rule_of(&self, system: &str) -> Option<usize> {
        self.rules
            .iter()
            .position(|rule| system.contains(rule.needle.as_str()))
    }

    /// The rule's next answer, and whether it is the rule's first.
    pub fn next(&self, rule: usize) -> (Value, bool) {
        let mut cursors = self.cursors.lock().unwrap();
        let entries = &self.rules[rule].entries;
        let entry = entries[cursors[rule].min(entries.len() - 1)].clone();
        cursors[rule] += 1;
        (entry, cursors[rule] == 1)
    }

    /// The answer the rule gave last (its first before it gave any),
    /// without moving on: what a repair of that answer asks for again.
    pub fn again(&self, rule: usize) -> Value {
        let cursors = self.cursors.lock().unwrap();
        let entries = &self.rules[rule].entries;
        entries[cursors[rule].saturating_sub(1).min(entries.len() - 1)].clone()
    }

    /// Whether a request with this system prompt asks for prose.
    pub fn asks_for_prose(&self, system: &str) -> bool {
        self.rule_of(system)
            .is_some_and(|rule| self.rules[rule].prose)
    }
}

/// The agent a graph's node `id` runs, when `id` is an agent node.
fn graph_agent<'a>(doc: &'a Value, id: &str) -> Option<&'a str> {
    doc["graph"]["nodes"]
        .as_array()?
        .iter()
        .find(|node| node["id"] == id)?["agent"]
        .as_str()
}

/// A request's system prompt.
pub fn system_of(request: &Value) -> &str {
    request["messages"][0]["content"]
        .as_str()
        .unwrap_or_default()
}

/// A shipped scenario with every latency set to zero, so that the sim run
/// and the endpoint run take no real time beyond the HTTP round trips.
pub fn quick(file: &str) -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios")
        .join(file);
    let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    zero_latencies(&mut doc);
    doc
}

fn zero_latencies(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, value) in map.iter_mut() {
                if key == "latency_ms" {
                    *value = json!(0);
                } else {
                    zero_latencies(value);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(zero_latencies),
        _ => {}
    }
}
