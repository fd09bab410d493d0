//! Errors in scenario files: each names the file, the line and column, the
//! JSON path and what was expected, the way a compiler reports them.

use super::path::{JsonPath, Position};
use std::fmt;

#[derive(Clone, Debug, PartialEq)]
pub struct ScenarioError {
    pub file: String,
    pub position: Option<Position>,
    pub path: JsonPath,
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(Position { line, column }) = self.position {
            write!(f, ":{line}:{column}")?;
        }
        write!(f, ": {}: {}", self.path, self.message)
    }
}

/// Every error found in one file, in the order of the file.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub struct ScenarioErrors(pub Vec<ScenarioError>);

/// The most errors reported for one file: a broken file of many megabytes
/// can hold millions, and the first hundred say what is wrong.
pub const MAX_REPORTED: usize = 100;

impl ScenarioErrors {
    pub(crate) fn one(
        file: &str,
        position: Option<Position>,
        path: JsonPath,
        message: impl Into<String>,
    ) -> Self {
        ScenarioErrors(vec![ScenarioError {
            file: file.to_string(),
            position,
            path,
            message: message.into(),
        }])
    }
}

/// At most [`MAX_REPORTED`] errors; when there were more, a last one says
/// so at the place of the first left out.
pub(crate) fn capped(mut errors: Vec<ScenarioError>) -> ScenarioErrors {
    if errors.len() > MAX_REPORTED {
        let rest = errors.split_off(MAX_REPORTED);
        errors.push(ScenarioError {
            message: format!(
                "more errors from here on are not shown; at most {MAX_REPORTED} are reported for a file"
            ),
            ..rest[0].clone()
        });
    }
    ScenarioErrors(errors)
}

impl fmt::Display for ScenarioErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, error) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{error}")?;
        }
        Ok(())
    }
}

/// A problem found while checking, before it is placed in the file.
#[derive(Clone, Debug)]
pub(crate) struct Problem {
    pub(crate) path: JsonPath,
    /// Point at the key rather than the value (for unknown fields).
    pub(crate) at_key: bool,
    pub(crate) message: String,
}

impl Problem {
    pub(crate) fn at(path: JsonPath, message: impl Into<String>) -> Self {
        Problem {
            path,
            at_key: false,
            message: message.into(),
        }
    }

    pub(crate) fn at_key(path: JsonPath, message: impl Into<String>) -> Self {
        Problem {
            path,
            at_key: true,
            message: message.into(),
        }
    }
}
