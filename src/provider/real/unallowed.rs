//! Programs a run from a recording may not start: a fork, or a cassette
//! that goes live on a miss, starts a program only when its live part
//! first calls on it, so the allowance is asked for then, for what would
//! run. Which real tools would start which program, and the refusal that
//! names the file and the place. It starts nothing and decides nothing.

use crate::scenario::{JsonPath, RealCall, Scenario, ScenarioErrors};
use std::collections::HashMap;

/// The refusal, in words, of every real tool of `scenario` whose call
/// would start a program (a `command` worker, a tool of an MCP server
/// started over stdio), by the tool's name; `file` names the scenario
/// where the scenario itself names no file (a recording's).
pub(crate) fn refusals(scenario: &Scenario, file: &str) -> HashMap<String, String> {
    let mut refusals = HashMap::new();
    for (path, name, call, _) in super::real_calls(scenario) {
        let program = match call {
            RealCall::Command(spec) => Some((path.key("command"), spec.argv.first())),
            RealCall::Mcp(spec) => scenario
                .mcp_servers
                .get(&spec.server)
                .and_then(|server| server.command.as_ref())
                .map(|argv| {
                    let at = JsonPath::root().key("mcp_servers").key(&spec.server);
                    (at.key("command"), argv.first())
                }),
            RealCall::Http(_) => None,
        };
        if let Some((at, program)) = program {
            let words = refusal(scenario, file, at, program.map_or("", String::as_str));
            refusals.insert(name, words);
        }
    }
    refusals
}

/// Why the program at `at` may not start, placed in the file.
fn refusal(scenario: &Scenario, file: &str, at: JsonPath, program: &str) -> String {
    let message = format!(
        "this scenario would run the program {} for a call made live; a scenario's programs run only when you allow it: run it with --allow-exec",
        serde_json::Value::from(crate::sanitize::clean(program))
    );
    let errors = if scenario.origin.file().is_empty() {
        ScenarioErrors::one(file, None, at, message)
    } else {
        scenario.errors_at(vec![(at, message)])
    };
    errors.to_string()
}
