//! Before a program starts: its folder and its program found, each
//! failure an error at its place in the scenario file (a program that
//! cannot start is bad input, exit 2, never a failed run).

use super::scenario::LoadedProgram;
use crate::provider::program::resolve_program;
use crate::scenario::{JsonPath, ScenarioErrors};
use std::path::PathBuf;

/// Where and what to start.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Prepared {
    pub(crate) program: PathBuf,
    pub(crate) args: Vec<String>,
    pub(crate) cwd: PathBuf,
}

/// The program and folder `loaded` names, or the errors saying which
/// cannot be used and why.
pub(crate) fn prepare(loaded: &LoadedProgram) -> Result<Prepared, ScenarioErrors> {
    let s = &loaded.scenario;
    let root = JsonPath::root();
    let cwd = match &s.cwd {
        Some(dir) => loaded.folder.join(dir),
        None => loaded.folder.clone(),
    };
    let cwd = if cwd.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        cwd
    };
    if !cwd.is_dir() {
        let at = if s.cwd.is_some() {
            root.key("cwd")
        } else {
            root.key("command")
        };
        let what = if cwd.exists() {
            "is not a folder"
        } else {
            "does not exist"
        };
        return Err(loaded.error_at(
            at,
            format!("the working directory {} {what}", cwd.display()),
        ));
    }
    let Some(first) = s.command.first() else {
        return Err(loaded.error_at(
            root.key("command"),
            "expected the program and its arguments; the list is empty",
        ));
    };
    let path_var = s
        .env
        .get("PATH")
        .cloned()
        .or_else(|| std::env::var("PATH").ok());
    let program = resolve_program(first, &cwd, path_var.as_deref())
        .map_err(|why| loaded.error_at(root.key("command").index(0), why.to_string()))?;
    Ok(Prepared {
        program,
        args: s.command[1..].to_vec(),
        cwd,
    })
}

/// A program scenario for `conclave launch -- PROGRAM [ARGS…]`: named by
/// the program, run in the current folder; errors name the command line.
pub fn from_command_line(
    argv: &[String],
    name: Option<String>,
) -> Result<LoadedProgram, ScenarioErrors> {
    let name = name.unwrap_or_else(|| {
        argv.first()
            .map(|p| {
                std::path::Path::new(p)
                    .file_stem()
                    .map_or_else(|| p.clone(), |s| s.to_string_lossy().into_owned())
            })
            .unwrap_or_else(|| "program".into())
    });
    let text = serde_json::to_string_pretty(&serde_json::json!({
        "name": name,
        "pattern": "program",
        "command": argv,
    }))
    .map_err(|e| {
        ScenarioErrors::one(
            super::scenario::COMMAND_LINE,
            None,
            JsonPath::root(),
            e.to_string(),
        )
    })?;
    super::scenario::parse(&text, super::scenario::COMMAND_LINE, PathBuf::new())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loaded(extra: &str, folder: &std::path::Path) -> LoadedProgram {
        let text = format!("{{\"name\": \"a\", \"pattern\": \"program\",\n {extra}}}");
        super::super::scenario::parse(&text, "app.json", folder.to_path_buf()).unwrap()
    }

    #[test]
    fn a_missing_program_or_folder_is_named_at_its_place() {
        let dir = tempfile::tempdir().unwrap();
        let missing = loaded("\"command\": [\"no-such-program-here\"]", dir.path());
        let e = prepare(&missing).unwrap_err().to_string();
        assert!(e.starts_with("app.json:2:"), "{e}");
        assert!(
            e.contains("command[0]: cannot find the program \"no-such-program-here\" on PATH"),
            "{e}"
        );
        let folder = loaded("\"command\": [\"sh\"], \"cwd\": \"nowhere\"", dir.path());
        let e = prepare(&folder).unwrap_err().to_string();
        assert!(e.contains("cwd: the working directory"), "{e}");
        assert!(e.contains("does not exist"), "{e}");
        let file = dir.path().join("plain.txt");
        std::fs::write(&file, "").unwrap();
        let not_run = loaded("\"command\": [\"./plain.txt\"]", dir.path());
        let e = prepare(&not_run).unwrap_err().to_string();
        assert!(e.contains("is not an executable file"), "{e}");
        let ok = prepare(&loaded(
            "\"command\": [\"sh\", \"-c\", \"true\"]",
            dir.path(),
        ))
        .unwrap();
        assert_eq!(ok.args, ["-c", "true"]);
        assert_eq!(ok.cwd, dir.path());
    }

    #[test]
    fn the_command_line_is_a_program_scenario_named_by_its_program() {
        let argv = vec!["/usr/bin/python3".to_string(), "app.py".into()];
        let loaded = from_command_line(&argv, None).unwrap();
        assert_eq!(loaded.scenario.name, "python3");
        let empty = from_command_line(&[], None).unwrap_err().to_string();
        assert!(empty.starts_with("(command line)"), "{empty}");
        assert!(empty.contains("list is empty"), "{empty}");
    }
}
