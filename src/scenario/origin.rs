//! Where a scenario was read from: its file's folder (real workers' relative
//! paths resolve against it), its canonical path and the SHA-256 of its
//! exact bytes (part of what an allowance to run its programs covers) and
//! its text (to place,
//! by line and column, what is found wrong only at launch). None of it is
//! part of what the scenario says: two scenarios that say the same are
//! equal wherever they were read from, and none of it is serialised.

use super::error::{Problem, ScenarioError, ScenarioErrors};
use sha2::{Digest, Sha256};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[derive(Clone, Debug, Default)]
pub(crate) struct Origin {
    /// The file as errors name it.
    file: String,
    /// The folder of the file, when it was read from one.
    folder: Option<PathBuf>,
    /// The file's canonical path (links and `..` resolved), when it was
    /// read from one: an allowance covers the file where it is.
    canonical: Option<PathBuf>,
    /// SHA-256 of the file's bytes, in hex.
    sha256: String,
    text: Option<Arc<String>>,
}

impl PartialEq for Origin {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Origin {
    pub(crate) fn new(file: &str, bytes: &[u8]) -> Self {
        let mut sha256 = String::with_capacity(64);
        for byte in Sha256::digest(bytes) {
            let _ = write!(sha256, "{byte:02x}");
        }
        Origin {
            file: file.to_string(),
            folder: None,
            canonical: None,
            sha256,
            text: None,
        }
    }

    pub(crate) fn with_text(mut self, text: Arc<String>) -> Self {
        self.text = Some(text);
        self
    }

    /// Read from the file at `path`: relative paths resolve against its
    /// folder, made absolute now so that a later change of directory
    /// changes nothing.
    pub(crate) fn in_folder_of(mut self, path: &Path) -> Self {
        let folder = path.parent().unwrap_or(Path::new(""));
        let folder = if folder.as_os_str().is_empty() {
            Path::new(".")
        } else {
            folder
        };
        self.folder = Some(std::path::absolute(folder).unwrap_or_else(|_| folder.to_path_buf()));
        self.canonical = Some(
            std::fs::canonicalize(path)
                .or_else(|_| std::path::absolute(path))
                .unwrap_or_else(|_| path.to_path_buf()),
        );
        self
    }

    /// The canonical path of the file the scenario was read from (made
    /// absolute when it is not there: a scenario sent as text naming its
    /// file); `None` for a scenario given as text alone.
    pub(crate) fn canonical(&self) -> Option<&Path> {
        self.canonical.as_deref()
    }

    /// The file's text, when the scenario was read from text or a file
    /// (a sweep sends it to workers on other machines).
    pub(crate) fn text(&self) -> Option<&str> {
        self.text.as_deref().map(String::as_str)
    }

    pub(crate) fn file(&self) -> &str {
        &self.file
    }

    /// The folder relative paths resolve against: the file's, or the
    /// current directory for a scenario given as text.
    pub(crate) fn folder(&self) -> PathBuf {
        self.folder
            .clone()
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_else(|| PathBuf::from("."))
    }

    /// SHA-256 of the scenario's exact bytes, in lower-case hex.
    pub(crate) fn sha256(&self) -> &str {
        &self.sha256
    }

    /// `problems` as errors of this file, placed by line and column when
    /// the text is at hand.
    pub(crate) fn errors(&self, problems: Vec<Problem>) -> ScenarioErrors {
        match &self.text {
            Some(text) => super::placed(text, &self.file, problems),
            None => ScenarioErrors(
                problems
                    .into_iter()
                    .map(|p| ScenarioError {
                        file: self.file.clone(),
                        position: None,
                        path: p.path,
                        message: p.message,
                    })
                    .collect(),
            ),
        }
    }
}
