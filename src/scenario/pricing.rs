//! Prices of models, in US dollars per million tokens: the shape of
//! `provider.pricing` in a scenario and of a `--pricing FILE`, which holds
//! the same JSON. A file is checked as a scenario is: every error names the
//! file, the line and column, the path and what was expected.

use super::error::Problem;
use super::path::JsonPath;
use super::text::structure::{self, Finding};
use super::{MAX_REPORTED, ScenarioErrors, text};
use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;
use std::path::Path;

/// What one model's tokens cost, in US dollars per million tokens.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ModelPrice {
    /// US dollars per million input (prompt) tokens.
    #[schemars(range(min = 0))]
    pub input: f64,
    /// US dollars per million output (completion) tokens.
    #[schemars(range(min = 0))]
    pub output: f64,
    /// US dollars per million input tokens the endpoint served from its
    /// prompt cache; without it, cached tokens cost what `input` costs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0))]
    pub cached_input: Option<f64>,
}

impl ModelPrice {
    /// A price without a cached-input price of its own.
    pub const fn new(input: f64, output: f64) -> Self {
        ModelPrice {
            input,
            output,
            cached_input: None,
        }
    }
}

/// Prices by model name, as the endpoint is asked for the model
/// (`{"gpt-4.1-mini": {"input": 0.4, "output": 1.6}}`).
pub type PriceTable = IndexMap<String, ModelPrice>;

/// The largest pricing file read: a table of prices is a few kilobytes.
const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// Read and check a pricing file (`--pricing FILE`).
pub fn load_prices(path: &Path) -> Result<PriceTable, ScenarioErrors> {
    let file = path.display().to_string();
    let fail = |message: String| ScenarioErrors::one(&file, None, JsonPath::root(), message);
    let bytes = match text::read_capped(path, MAX_FILE_BYTES) {
        Ok(text::Contents::Whole(bytes)) => bytes,
        Ok(text::Contents::TooLarge(_)) => {
            return Err(fail(format!(
                "the file is larger than {}; a pricing table is a JSON object of a few models",
                text::human_size_exact(MAX_FILE_BYTES)
            )));
        }
        Err(e) => return Err(fail(format!("cannot read the file: {e}"))),
    };
    let text = match text::decode(bytes) {
        Ok(text) => text,
        Err((bytes, bad)) => {
            return Err(ScenarioErrors::one(
                &file,
                Some(text::position_in_bytes(&bytes, bad.at)),
                JsonPath::root(),
                bad.message,
            ));
        }
    };
    parse_prices(&text, &file)
}

/// Check a pricing table given as text; `file` names it in errors. A
/// model named twice is refused as a scenario's key given twice is, naming
/// both places: JSON readers keep one of the two prices, silently.
pub fn parse_prices(text: &str, file: &str) -> Result<PriceTable, ScenarioErrors> {
    super::syntax(text, file)?;
    let duplicates: Vec<Finding> = structure::scan(text, MAX_REPORTED + 1)
        .findings
        .into_iter()
        .filter(|finding| matches!(finding, Finding::Duplicate { .. }))
        .collect();
    if !duplicates.is_empty() {
        return Err(super::findings_errors(text, file, &duplicates));
    }
    let document: Value = serde_json::from_str(text).map_err(|e| {
        let past = numbers_past_the_largest(text);
        if past.is_empty() {
            ScenarioErrors::one(file, None, JsonPath::root(), format!("not valid JSON: {e}"))
        } else {
            super::placed(text, file, past)
        }
    })?;
    let problems = check_table(&document, &JsonPath::root());
    if !problems.is_empty() {
        return Err(super::placed(text, file, problems));
    }
    serde_json::from_value(document)
        .map_err(|e| ScenarioErrors::one(file, None, JsonPath::root(), e.to_string()))
}

/// The prices written past the largest number (`1e999`), which a JSON
/// reader refuses as a whole file: each named by its model and field, as
/// any other price that is no price.
fn numbers_past_the_largest(text: &str) -> Vec<Problem> {
    type Fields<'t> = IndexMap<String, &'t RawValue>;
    let Ok(models) = serde_json::from_str::<IndexMap<String, Fields<'_>>>(text) else {
        return Vec::new();
    };
    let mut problems = Vec::new();
    for (model, fields) in &models {
        for (field, raw) in fields {
            let number = raw.get().trim();
            let finite = serde_json::from_str::<f64>(number).is_ok_and(f64::is_finite);
            let is_number = number.starts_with(|c: char| c == '-' || c.is_ascii_digit());
            if is_number && !finite {
                let tokens = FIELDS
                    .iter()
                    .find(|(name, _, _)| name == field)
                    .map_or(field.as_str(), |(_, _, tokens)| tokens);
                problems.push(Problem::at(
                    JsonPath::root().key(model).key(field),
                    format!(
                        "expected US dollars per million {tokens} tokens, a finite number ≥ 0, found {number}, too large to hold"
                    ),
                ));
            }
        }
    }
    problems
}

/// The fields of a model's price: whether each must be given, and what it
/// is the price of, as an error says it.
const FIELDS: [(&str, bool, &str); 3] = [
    ("input", true, "input"),
    ("output", true, "output"),
    ("cached_input", false, "cached input"),
];

/// The problems of a pricing table at `path`: an object of models, each
/// an object of `input`, `output` and optionally `cached_input`, numbers
/// of dollars ≥ 0.
pub(crate) fn check_table(value: &Value, path: &JsonPath) -> Vec<Problem> {
    let mut problems = Vec::new();
    let Value::Object(models) = value else {
        problems.push(Problem::at(
            path.clone(),
            format!(
                "expected an object of prices by model name, e.g. {{\"gpt-4.1-mini\": {{\"input\": 0.4, \"output\": 1.6}}}}, found {}",
                super::value_words::describe_value(value)
            ),
        ));
        return problems;
    };
    for (model, price) in models {
        let at = path.key(model);
        if model.trim().is_empty() {
            problems.push(Problem::at_key(
                at.clone(),
                "expected a model name, found an empty one",
            ));
        }
        let Value::Object(fields) = price else {
            problems.push(Problem::at(
                at,
                format!(
                    "expected {{\"input\": <USD per million tokens>, \"output\": <USD per million tokens>}}, found {}",
                    super::value_words::describe_value(price)
                ),
            ));
            continue;
        };
        for name in fields
            .keys()
            .filter(|k| FIELDS.iter().all(|(field, _, _)| field != k))
        {
            problems.push(Problem::at_key(
                at.key(name),
                format!(
                    "unknown field {}; expected one of: input, output, cached_input",
                    Value::from(name.as_str())
                ),
            ));
        }
        for (field, required, tokens) in FIELDS {
            match fields.get(field) {
                None if required => problems.push(Problem::at(
                    at.clone(),
                    format!("missing field \"{field}\": US dollars per million {tokens} tokens"),
                )),
                None => {}
                Some(Value::Number(n)) if n.as_f64().is_some_and(|d| d.is_finite() && d >= 0.0) => {
                }
                Some(other) => problems.push(Problem::at(
                    at.key(field),
                    format!(
                        "expected US dollars per million {tokens} tokens, a number ≥ 0, found {}",
                        super::value_words::describe_value(other)
                    ),
                )),
            }
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_reads_in_order() {
        let table = parse_prices(
            r#"{"m1": {"input": 1, "output": 2}, "m0": {"input": 0.4, "output": 1.6}}"#,
            "p.json",
        )
        .unwrap();
        assert_eq!(table.keys().collect::<Vec<_>>(), ["m1", "m0"]);
        assert_eq!(table["m0"], ModelPrice::new(0.4, 1.6));
    }

    #[test]
    fn every_error_is_placed_and_says_what_was_expected() {
        let text = "{\n  \"m\": {\"input\": -1, \"output\": \"2\", \"cached\": 1},\n  \"n\": 3\n}";
        let errors = parse_prices(text, "p.json").unwrap_err().to_string();
        let lines: Vec<&str> = errors.lines().collect();
        assert_eq!(lines.len(), 4, "{errors}");
        assert!(
            lines[0].starts_with("p.json:2:18: m.input: expected US dollars per million input tokens, a number ≥ 0, found whole number -1"),
            "{errors}"
        );
        assert!(
            lines[1].starts_with("p.json:2:32: m.output: expected"),
            "{errors}"
        );
        assert!(
            lines[2].starts_with("p.json:2:37: m.cached: unknown field"),
            "{errors}"
        );
        assert!(
            lines[3].starts_with("p.json:3:8: n: expected {\"input\""),
            "{errors}"
        );
    }

    #[test]
    fn a_cached_input_price_is_read_and_checked_like_the_others() {
        let table = parse_prices(
            r#"{"m": {"input": 2.5, "output": 10, "cached_input": 1.25}, "n": {"input": 1, "output": 2}}"#,
            "p.json",
        )
        .unwrap();
        assert_eq!(table["m"].cached_input, Some(1.25));
        assert_eq!(table["n"], ModelPrice::new(1.0, 2.0));
        let text = "{\n  \"m\": {\"input\": 1, \"output\": 2, \"cached_input\": \"x\"},\n  \"n\": {\"input\": 1, \"output\": 2, \"cached_input\": -1}\n}";
        let errors = parse_prices(text, "p.json").unwrap_err().to_string();
        let lines: Vec<&str> = errors.lines().collect();
        assert_eq!(lines.len(), 2, "{errors}");
        assert!(
            lines[0].starts_with("p.json:2:50: m.cached_input: expected US dollars per million cached input tokens, a number ≥ 0, found string \"x\""),
            "{errors}"
        );
        assert!(
            lines[1].starts_with("p.json:3:50: n.cached_input: expected US dollars per million cached input tokens, a number ≥ 0"),
            "{errors}"
        );
    }

    #[test]
    fn a_price_past_the_largest_number_is_refused_naming_its_model_and_field() {
        let text = "{\n  \"m\": {\"input\": 1, \"output\": 1e999},\n  \"n\": {\"input\": -2e400, \"output\": 1}\n}";
        let errors = parse_prices(text, "p.json").unwrap_err().to_string();
        let lines: Vec<&str> = errors.lines().collect();
        assert_eq!(lines.len(), 2, "{errors}");
        assert_eq!(
            lines[0],
            "p.json:2:31: m.output: expected US dollars per million output tokens, a finite number ≥ 0, found 1e999, too large to hold"
        );
        assert!(lines[1].starts_with("p.json:3:18: n.input: expected US dollars per million input tokens, a finite number ≥ 0, found -2e400"), "{errors}");
    }

    #[test]
    fn a_model_priced_twice_is_refused_naming_both_places() {
        let text =
            "{\n  \"m\": {\"input\": 1, \"output\": 2},\n  \"m\": {\"input\": 0, \"output\": 0}\n}";
        let errors = parse_prices(text, "p.json").unwrap_err().to_string();
        assert_eq!(
            errors.trim_end(),
            "p.json:3:3: m: duplicate key \"m\": already given at line 2, column 3; a key may appear once in an object",
        );
        let errors = parse_prices(r#"{"m": {"input": 1, "input": 2, "output": 0}}"#, "p.json")
            .unwrap_err()
            .to_string();
        assert!(
            errors.contains("duplicate key \"input\": already given at line 1, column 8"),
            "{errors}"
        );
    }

    #[test]
    fn bad_json_and_the_wrong_top_are_placed() {
        let errors = parse_prices("{\"m\": {\"input\": 1,}}", "p.json").unwrap_err();
        assert!(errors.to_string().starts_with("p.json:1:"), "{errors}");
        assert!(errors.to_string().contains("not valid JSON"), "{errors}");
        let errors = parse_prices("[1]", "p.json").unwrap_err();
        assert!(
            errors
                .to_string()
                .contains("expected an object of prices by model name"),
            "{errors}"
        );
        let errors = parse_prices("{\"m\": {\"input\": 1}}", "p.json").unwrap_err();
        assert!(
            errors.to_string().contains("missing field \"output\""),
            "{errors}"
        );
    }
}
