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
    pub path: JsonPath,
    /// Point at the key rather than the value (for unknown fields).
    pub at_key: bool,
    pub message: String,
}

impl Problem {
    pub fn at(path: JsonPath, message: impl Into<String>) -> Self {
        Problem {
            path,
            at_key: false,
            message: message.into(),
        }
    }

    pub fn at_key(path: JsonPath, message: impl Into<String>) -> Self {
        Problem {
            path,
            at_key: true,
            message: message.into(),
        }
    }
}
