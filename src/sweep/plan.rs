//! What a sweep runs: a range of seeds and, per flag, the values to try.
//! It checks the arguments against the scenario; it never runs anything.
//! How many runs they make is counted in `size`, and the runs themselves
//! are made one at a time in `jobs`.

use crate::scenario::Scenario;
use std::ops::RangeInclusive;

/// What `--seeds A..B` expects, for the messages that refuse one.
const SEEDS_EXPECTED: &str = "expected A..B with whole numbers A <= B, e.g. 1..200";
/// What `--flag` expects in a sweep.
const FLAG_EXPECTED: &str =
    "expected NAME=VALUES with VALUES on, off or on,off, e.g. legal_analyst=on,off";

/// `--seeds A..B` (inclusive both ends, A <= B) and each `--flag NAME=on,off`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SweepPlan {
    pub seeds: RangeInclusive<u64>,
    pub flags: Vec<(String, Vec<bool>)>,
}

/// Why a sweep's arguments were refused; each names what was expected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    #[error("--seeds {given:?}: {SEEDS_EXPECTED}")]
    Seeds { given: String },
    #[error("--flag {given:?}: {FLAG_EXPECTED}")]
    FlagValues { given: String },
    #[error(
        "--flag {name} is given twice; give each flag once with all its values, e.g. {name}=on,off"
    )]
    FlagTwice { name: String },
    #[error("{source_name}: unknown flag {name:?}; this scenario declares: {known}")]
    UnknownFlag {
        source_name: String,
        name: String,
        known: String,
    },
}

impl SweepPlan {
    /// Every flag named is one `scenario` declares; `source_name` names the
    /// file in the message.
    pub fn check(&self, scenario: &Scenario, source_name: &str) -> Result<(), PlanError> {
        for (name, _) in &self.flags {
            if !scenario.flags.contains_key(name) {
                let names: Vec<&str> = scenario.flags.keys().map(String::as_str).collect();
                return Err(PlanError::UnknownFlag {
                    source_name: source_name.to_string(),
                    name: name.clone(),
                    known: if names.is_empty() {
                        "no flags".into()
                    } else {
                        names.join(", ")
                    },
                });
            }
        }
        Ok(())
    }

    /// A plan from the command line's words, checked for everything but
    /// the scenario (see [`SweepPlan::check`]).
    pub fn new(
        seeds: RangeInclusive<u64>,
        flags: Vec<(String, Vec<bool>)>,
    ) -> Result<SweepPlan, PlanError> {
        for (i, (name, _)) in flags.iter().enumerate() {
            if flags[..i].iter().any(|(earlier, _)| earlier == name) {
                return Err(PlanError::FlagTwice { name: name.clone() });
            }
        }
        Ok(SweepPlan { seeds, flags })
    }
}

/// `A..B`, both ends included, `A <= B`; `N` alone is the one seed N.
pub fn parse_seeds(text: &str) -> Result<RangeInclusive<u64>, PlanError> {
    let refused = || PlanError::Seeds {
        given: text.to_string(),
    };
    let number = |part: &str| part.trim().parse::<u64>().map_err(|_| refused());
    let (from, to) = match text.split_once("..") {
        Some((from, to)) => (number(from)?, number(to.strip_prefix('=').unwrap_or(to))?),
        None => {
            let seed = number(text)?;
            (seed, seed)
        }
    };
    if from > to {
        return Err(refused());
    }
    Ok(from..=to)
}

/// `NAME=on,off` (or one value): the flag and the values to try, each
/// once, in the order given.
pub fn parse_flag_values(text: &str) -> Result<(String, Vec<bool>), PlanError> {
    let refused = || PlanError::FlagValues {
        given: text.to_string(),
    };
    let (name, values) = text.split_once('=').ok_or_else(refused)?;
    let name = name.trim();
    if name.is_empty() {
        return Err(refused());
    }
    let mut tried = Vec::new();
    for value in values.split(',') {
        let on = match value.trim() {
            "on" | "true" | "1" => true,
            "off" | "false" | "0" => false,
            _ => return Err(refused()),
        };
        if tried.contains(&on) {
            return Err(refused());
        }
        tried.push(on);
    }
    Ok((name.to_string(), tried))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_take_a_range_or_one_number_and_refuse_the_rest() {
        assert_eq!(parse_seeds("1..200"), Ok(1..=200));
        assert_eq!(parse_seeds("7..=9"), Ok(7..=9));
        assert_eq!(parse_seeds("4"), Ok(4..=4));
        for bad in ["5..1", "1..", "..3", "a..b", "-1..3", "", "1...3"] {
            let error = parse_seeds(bad).unwrap_err().to_string();
            assert!(error.contains("expected A..B"), "{bad}: {error}");
        }
    }

    #[test]
    fn flag_values_are_on_off_each_once() {
        assert_eq!(
            parse_flag_values("legal_analyst=on,off"),
            Ok(("legal_analyst".into(), vec![true, false]))
        );
        assert_eq!(parse_flag_values("x=off"), Ok(("x".into(), vec![false])));
        for bad in ["x", "=on", "x=", "x=on,on", "x=maybe", "x=on,,off"] {
            let error = parse_flag_values(bad).unwrap_err().to_string();
            assert!(error.contains("expected NAME=VALUES"), "{bad}: {error}");
        }
    }

    #[test]
    fn a_flag_given_twice_is_refused() {
        let error = SweepPlan::new(
            1..=1,
            vec![("x".into(), vec![true]), ("x".into(), vec![false])],
        )
        .unwrap_err();
        assert_eq!(error, PlanError::FlagTwice { name: "x".into() });
    }
}
