//! What an allowance covers: the scenario file where it is (its canonical
//! path) and as it is (its SHA-256), and every program it would run,
//! found as the spawners find them (`crate::provider::program`): each
//! program; the script a program that is no script itself is given to run
//! (the first file its arguments name: `bash tool.sh`, `python3
//! server.py`); and any other file an argument names that is a program
//! itself (a `#!` line, an execute bit or a script's ending such as
//! `.py`). Data a program reads or writes is not covered. A file is covered by its canonical path and its SHA-256,
//! except the running conclave (trusted as the program the user is
//! running) and a system program (a file in a system folder that only root
//! can change: its path alone, so that an upgrade of python3 asks nothing).
//! The allowance's key is a hash over all of it, so a change to any of it
//! asks again. Reading only: nothing here starts anything.

use crate::provider::program::{resolve_program, search_path};
use crate::scenario::{Program, Scenario};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::{Path, PathBuf};

/// The folders a system program is in: what the system's packages
/// install, writable by root alone on any system that is not broken.
const SYSTEM_FOLDERS: &[&str] = &[
    "/usr/bin",
    "/bin",
    "/usr/sbin",
    "/sbin",
    "/usr/local/bin",
    "/usr/local/sbin",
];

/// Everything an allowance covers, in the order the scenario names it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Cover {
    /// The scenario file's canonical path; `None` for a scenario given as
    /// text, which is covered by its bytes and programs alone.
    pub(crate) scenario: Option<String>,
    /// SHA-256 of the scenario's bytes.
    pub(crate) sha256: String,
    /// Every file its programs would run.
    pub(crate) files: Vec<Covered>,
}

/// A file a program of the scenario would run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Covered {
    /// Where the scenario names the program (`workers.x.command`).
    pub(crate) at: String,
    /// The program itself, or a file one of its arguments names.
    pub(crate) role: Role,
    /// As the scenario writes it.
    pub(crate) written: String,
    /// Its canonical path; the path looked at (or the bare name) when it
    /// is not there.
    pub(crate) path: String,
    pub(crate) content: Content,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Role {
    Program,
    Argument,
}

/// How a covered file's content is held to what was allowed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Content {
    /// Its bytes, by SHA-256.
    Sha256(String),
    /// A system program: its path alone.
    System,
    /// The running conclave binary.
    Conclave,
    /// Nothing runnable there now (the run would fail to start it); if
    /// one appears, the key changes.
    Absent,
}

impl Cover {
    /// What allowing `scenario`, which starts `programs`, covers now.
    pub(crate) fn of(scenario: &Scenario, programs: &[Program]) -> Cover {
        let folder = scenario.origin.folder();
        let own = std::env::current_exe().and_then(std::fs::canonicalize).ok();
        let env = |name: &str| std::env::var(name).ok();
        let mut files = Vec::new();
        for program in programs {
            let Some((name, args)) = program.argv.split_first() else {
                continue;
            };
            let at = program.path.to_string();
            let path_var = search_path(program.search_path.as_ref(), &env);
            let covered = match resolve_program(name, &folder, path_var.as_deref()) {
                Ok(path) => file(&path, own.as_deref()),
                Err(_) => (looked_at(name, &folder), Content::Absent),
            };
            // A binary's first file is the script it runs (`python3
            // server.py`); a script's arguments are its data, unless they
            // look like a program.
            let mut script_named = matches!(covered.1, Content::Sha256(_))
                && starts_with_shebang(Path::new(&covered.0));
            files.push(Covered {
                at: at.clone(),
                role: Role::Program,
                written: name.clone(),
                path: covered.0,
                content: covered.1,
            });
            for arg in args {
                let named = named_files(arg, &program.cwd, &folder);
                let is_script = !script_named && !named.is_empty();
                script_named |= is_script;
                for path in named {
                    if !is_script && !is_runnable(&path) && !has_script_extension(&path) {
                        continue;
                    }
                    let (path, content) = file(&path, own.as_deref());
                    let covered = Covered {
                        at: at.clone(),
                        role: Role::Argument,
                        written: arg.clone(),
                        path,
                        content,
                    };
                    if !files.contains(&covered) {
                        files.push(covered);
                    }
                }
            }
        }
        Cover {
            scenario: scenario.origin.canonical().map(shown),
            sha256: scenario.origin.sha256().to_string(),
            files,
        }
    }

    /// The allowance's key: SHA-256 over everything covered, in hex.
    pub(crate) fn key(&self) -> String {
        hex(&Sha256::digest(
            serde_json::to_vec(self).unwrap_or_default(),
        ))
    }
}

/// A path as the cover holds it: as text when it is UTF-8, else quoted
/// with its odd bytes escaped, so that two paths never read the same.
pub(crate) fn shown(path: &Path) -> String {
    match path.to_str() {
        Some(text) => text.to_string(),
        None => format!("{path:?}"),
    }
}

/// The path a program that is not there was looked for at.
fn looked_at(name: &str, folder: &Path) -> String {
    if name.contains('/') {
        shown(&folder.join(name.strip_prefix("./").unwrap_or(name)))
    } else {
        name.to_string()
    }
}

/// `path`'s canonical path and how its content is covered.
fn file(path: &Path, own: Option<&Path>) -> (String, Content) {
    let Ok(canonical) = std::fs::canonicalize(path) else {
        return (shown(path), Content::Absent);
    };
    let content = if own == Some(canonical.as_path()) {
        Content::Conclave
    } else if is_system(&canonical) {
        Content::System
    } else {
        match sha256_of(&canonical) {
            Ok(sha) => Content::Sha256(sha),
            Err(_) => Content::Absent,
        }
    };
    (shown(&canonical), content)
}

/// The files `arg` names, as a program started in `cwd` would read them,
/// or read from the scenario's `folder`: the argument itself, or what
/// follows `=` in `--option=FILE`. Only regular files: a folder is not
/// read whole.
fn named_files(arg: &str, cwd: &Path, folder: &Path) -> Vec<PathBuf> {
    let mut candidates = vec![arg];
    if let Some((_, value)) = arg.split_once('=') {
        candidates.push(value);
    }
    let mut found = Vec::new();
    for candidate in candidates {
        if candidate.is_empty() || candidate.len() > 4096 {
            continue;
        }
        for base in [cwd, folder] {
            let path = base.join(candidate);
            if path.is_file() && !found.contains(&path) {
                found.push(path);
            }
        }
    }
    found
}

/// The endings of the scripts interpreters are given to run, so that a
/// script handed to a program that is a script itself (a version manager's
/// `python3`) is covered as the script it is.
const SCRIPT_EXTENSIONS: &[&str] = &[
    "py", "pyw", "sh", "bash", "zsh", "fish", "js", "mjs", "cjs", "ts", "mts", "rb", "pl", "pm",
    "php", "lua", "r", "jl", "tcl", "ps1", "jar", "exs", "ex", "groovy", "kts", "swift",
];

fn has_script_extension(path: &Path) -> bool {
    path.extension()
        .and_then(|ext| ext.to_str())
        .is_some_and(|ext| SCRIPT_EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str()))
}

/// Whether the regular file at `path` is a program of its own: it starts
/// with `#!` or may be executed. A file a program writes is neither.
fn is_runnable(path: &Path) -> bool {
    is_executable(path) || starts_with_shebang(path)
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(_: &Path) -> bool {
    false
}

/// Whether the regular file at `path` starts with `#!` (read only when it
/// is one: a pipe would wait for a writer).
fn starts_with_shebang(path: &Path) -> bool {
    if !std::fs::metadata(path).is_ok_and(|meta| meta.is_file()) {
        return false;
    }
    let mut start = [0u8; 2];
    std::fs::File::open(path)
        .is_ok_and(|mut file| file.read_exact(&mut start).is_ok() && &start == b"#!")
}

/// Whether `canonical` is a system program: in a system folder, and it
/// and its folder can be changed by root alone.
fn is_system(canonical: &Path) -> bool {
    let Some(parent) = canonical.parent() else {
        return false;
    };
    let in_system_folder = SYSTEM_FOLDERS.iter().any(|dir| {
        Path::new(dir) == parent
            || std::fs::canonicalize(dir).is_ok_and(|dir| dir.as_path() == parent)
    });
    in_system_folder && root_only(canonical) && root_only(parent)
}

#[cfg(unix)]
fn root_only(path: &Path) -> bool {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    std::fs::metadata(path)
        .is_ok_and(|meta| meta.uid() == 0 && meta.permissions().mode() & 0o022 == 0)
}

#[cfg(not(unix))]
fn root_only(_: &Path) -> bool {
    false
}

fn sha256_of(path: &Path) -> std::io::Result<String> {
    let mut file = std::fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        match file.read(&mut chunk)? {
            0 => return Ok(hex(&hasher.finalize())),
            n => hasher.update(&chunk[..n]),
        }
    }
}

pub(super) fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        let _ = write!(out, "{byte:02x}");
    }
    out
}
