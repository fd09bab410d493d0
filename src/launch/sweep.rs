//! `conclave sweep` of a program scenario: every seed under every
//! combination of the flags' values, each run a launch of the program
//! (the seed as `CONCLAVE_SEED`, the flags through its hook), at most
//! `parallel` at once, and the outcomes (`<status>/<stop_reason>`) counted
//! per combination as any sweep's are, printed as one JSON document.

use super::result::LaunchResult;
use super::run::{LaunchError, LaunchSettings, launch};
use super::scenario::LoadedProgram;
use crate::exit::Exit;
use crate::output;
use crate::sweep::SweepPlan;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::Arc;

/// One combination's tally.
#[derive(Default)]
struct Combination {
    runs: u64,
    outcomes: BTreeMap<String, u64>,
    exit_statuses: BTreeMap<String, u64>,
    model_calls: u64,
}

/// Every combination of the plan's flag values, in the order given.
fn combinations(flags: &[(String, Vec<bool>)]) -> Vec<Vec<(String, bool)>> {
    let mut all = vec![Vec::new()];
    for (name, values) in flags {
        all = all
            .into_iter()
            .flat_map(|combo: Vec<(String, bool)>| {
                values.iter().map(move |on| {
                    let mut next = combo.clone();
                    next.push((name.clone(), *on));
                    next
                })
            })
            .collect();
    }
    all
}

/// Run the sweep and print its document; the exit status.
pub fn headless(program: LoadedProgram, plan: &SweepPlan, parallel: usize) -> Exit {
    if let Some((name, _)) = plan
        .flags
        .iter()
        .find(|(name, _)| !program.scenario.flags.contains_key(name))
    {
        let known: Vec<&str> = program.scenario.flags.keys().map(String::as_str).collect();
        output::message(&format!(
            "{}: unknown flag {name:?}; this scenario declares: {}",
            program.file,
            if known.is_empty() {
                "none".to_string()
            } else {
                known.join(", ")
            }
        ));
        return Exit::BadInput;
    }
    let (prepared, runtime) = match super::headless::ready(&program) {
        Ok(ready) => ready,
        Err(exit) => return exit,
    };
    let combos = combinations(&plan.flags);
    let program = Arc::new(program);
    let prepared = Arc::new(prepared);
    // The launches share one thread (the receiver's start holds what is
    // not Send); their programs and the receivers' I/O run on the runtime.
    let local = tokio::task::LocalSet::new();
    let tallied = runtime.block_on(local.run_until(async move {
        let room = Arc::new(tokio::sync::Semaphore::new(parallel.max(1)));
        let mut runs = tokio::task::JoinSet::new();
        for (at, combo) in combos.iter().enumerate() {
            for seed in plan.seeds.clone() {
                let (program, prepared, room) = (program.clone(), prepared.clone(), room.clone());
                let settings = LaunchSettings {
                    flags: combo.clone(),
                    seed: Some(seed),
                    ..LaunchSettings::default()
                };
                runs.spawn_local(async move {
                    let _turn = room.acquire_owned().await;
                    let finished = launch(&program, &prepared, settings, None, None).await;
                    (at, finished.map(|f| LaunchResult::of(&f, &program.scenario.name)))
                });
            }
        }
        let mut tally: Vec<Combination> = combos.iter().map(|_| Combination::default()).collect();
        let mut signals = crate::signals::Signals::new().ok();
        loop {
            let signal = crate::signals::next_of(signals.as_mut());
            tokio::select! {
                joined = runs.join_next() => match joined {
                    None => break,
                    Some(Ok((at, Ok(result)))) => count(&mut tally[at], &result),
                    Some(Ok((_, Err(LaunchError::BadInput(e))))) => return Err((Exit::BadInput, e.to_string())),
                    Some(Ok((_, Err(LaunchError::Internal(e))))) => return Err((Exit::Internal, e)),
                    Some(Err(e)) => return Err((Exit::Internal, format!("a run's task failed: {e}"))),
                },
                // Each run's program is stopped with the runtime (its group killed).
                Some(signal) = signal => return Err((Exit::Signalled(signal), String::new())),
            }
        }
        Ok((combos, tally))
    }));
    match tallied {
        Ok((combos, tally)) => {
            output::document(&document(&combos, &tally));
            Exit::Ok
        }
        Err((exit, message)) => {
            if !message.is_empty() {
                output::message(&format!("conclave sweep: {message}"));
            }
            exit
        }
    }
}

fn count(c: &mut Combination, result: &LaunchResult) {
    c.runs += 1;
    *c.outcomes.entry(result.outcome_key()).or_default() += 1;
    let exit = match (&result.exit_status, &result.signal) {
        (Some(code), _) => code.to_string(),
        (None, Some(signal)) => signal.clone(),
        (None, None) => "none".into(),
    };
    *c.exit_statuses.entry(exit).or_default() += 1;
    c.model_calls += result.watch.model_calls;
}

fn document(combos: &[Vec<(String, bool)>], tally: &[Combination]) -> Value {
    let combinations: Vec<Value> = combos
        .iter()
        .zip(tally)
        .map(|(flags, c)| {
            let flags: serde_json::Map<String, Value> = flags
                .iter()
                .map(|(k, v)| (k.clone(), Value::from(*v)))
                .collect();
            json!({
                "flags": flags,
                "runs": c.runs,
                "outcomes": c.outcomes,
                "exit_statuses": c.exit_statuses,
                "model_calls": c.model_calls,
            })
        })
        .collect();
    json!({"pattern": "program", "combinations": combinations})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_combination_of_the_values_is_run_in_the_order_given() {
        let flags = vec![
            ("a".to_string(), vec![true, false]),
            ("b".to_string(), vec![false]),
        ];
        let all = combinations(&flags);
        assert_eq!(all.len(), 2);
        assert_eq!(all[0], [("a".to_string(), true), ("b".to_string(), false)]);
        assert_eq!(all[1][0], ("a".to_string(), false));
        assert_eq!(combinations(&[]), [Vec::new()]);
    }
}
