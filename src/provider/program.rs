//! Where a program a scenario names is found: one rule for the command
//! workers, the stdio MCP servers and the trust store, so that what the
//! user allowed and what is started cannot be two different files.
//! `conclave` is the running binary; a name with a `/` is a path relative
//! to the scenario's folder (an absolute path stays as it is); a bare name
//! is looked up on `PATH`, the scenario's own `env.PATH` for that program
//! when it sets one, else Conclave's.

use std::path::{Path, PathBuf};

/// The argv[0] that means this very binary, so that scenarios can use
/// `conclave toolbox` wherever conclave is built or installed.
pub(crate) const SELF_PROGRAM: &str = "conclave";

/// Why a program is not where the scenario says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Unresolved {
    /// `conclave`, but the running binary cannot be found.
    NoSelf(String),
    /// A path to something that is not there.
    Missing(PathBuf),
    /// A path to something that cannot be run.
    NotExecutable(PathBuf),
    /// A bare name found in no folder of `PATH`.
    NotOnPath(String),
}

impl std::fmt::Display for Unresolved {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unresolved::NoSelf(why) => write!(f, "cannot find the running conclave binary: {why}"),
            Unresolved::Missing(path) => {
                write!(f, "the program {} does not exist", path.display())
            }
            Unresolved::NotExecutable(path) => {
                write!(
                    f,
                    "the program {} is not an executable file",
                    path.display()
                )
            }
            Unresolved::NotOnPath(name) => write!(f, "cannot find the program {name:?} on PATH"),
        }
    }
}

/// The `PATH` a program is looked up on, the one it gets
/// (`provider::program_env`): the scenario's `env.PATH` for it when it
/// sets one (`own`, Conclave's variable when written `env:NAME`), else
/// Conclave's, read from `env`.
pub(crate) fn search_path(
    own: Option<&String>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Option<String> {
    match own {
        Some(own) => match crate::scenario::env_name(own) {
            Some(variable) => env(variable),
            None => Some(own.clone()),
        },
        None => env("PATH"),
    }
}

/// Where `program` is, for a scenario in `folder`, looked up on
/// `path_var` when it is a bare name (see the module's doc).
pub(crate) fn resolve_program(
    program: &str,
    folder: &Path,
    path_var: Option<&str>,
) -> Result<PathBuf, Unresolved> {
    if program == SELF_PROGRAM {
        return std::env::current_exe().map_err(|e| Unresolved::NoSelf(e.to_string()));
    }
    if program.contains('/') {
        let path = folder.join(program.strip_prefix("./").unwrap_or(program));
        return if is_executable(&path) {
            Ok(path)
        } else if path.exists() {
            Err(Unresolved::NotExecutable(path))
        } else {
            Err(Unresolved::Missing(path))
        };
    }
    path_var
        .unwrap_or_default()
        .split(':')
        .filter(|dir| !dir.is_empty())
        .map(|dir| Path::new(dir).join(program))
        .find(|candidate| is_executable(candidate))
        .ok_or_else(|| Unresolved::NotOnPath(program.to_string()))
}

fn is_executable(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.is_file() && meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    meta.is_file()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_resolve_as_a_shell_would_find_them_but_relative_to_the_scenario() {
        let dir = tempfile::tempdir().unwrap();
        let tool = dir.path().join("tool");
        std::fs::write(&tool, "").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let plain = dir.path().join("plain");
        std::fs::write(&plain, "").unwrap();
        let folder = dir.path();
        assert_eq!(
            resolve_program("./tool", folder, None).unwrap(),
            folder.join("./tool")
        );
        assert_eq!(
            resolve_program(tool.to_str().unwrap(), Path::new("/nowhere"), None).unwrap(),
            tool,
            "an absolute path stays as it is"
        );
        let on_path = dir.path().display().to_string();
        assert_eq!(
            resolve_program(
                "tool",
                Path::new("/nowhere"),
                Some(&format!("/nowhere:{on_path}"))
            )
            .unwrap(),
            tool
        );
        assert_eq!(
            resolve_program("conclave", folder, None).unwrap(),
            std::env::current_exe().unwrap()
        );
        let missing = resolve_program("tool", folder, Some("/nowhere")).unwrap_err();
        assert_eq!(
            missing.to_string(),
            "cannot find the program \"tool\" on PATH"
        );
        let absent = resolve_program("./absent", folder, None).unwrap_err();
        assert_eq!(absent, Unresolved::Missing(folder.join("absent")));
        assert!(absent.to_string().ends_with("absent does not exist"));
        let not_executable = resolve_program("./plain", folder, None).unwrap_err();
        assert!(
            not_executable
                .to_string()
                .ends_with("plain is not an executable file"),
            "{not_executable}"
        );
    }

    #[test]
    fn the_scenario_path_for_a_program_comes_before_conclaves() {
        let env = |name: &str| (name == "PATH").then(|| "/usr/bin".to_string());
        assert_eq!(search_path(None, &env).as_deref(), Some("/usr/bin"));
        let own = "/opt/tools".to_string();
        assert_eq!(search_path(Some(&own), &env).as_deref(), Some("/opt/tools"));
        let handed = "env:PATH".to_string();
        assert_eq!(
            search_path(Some(&handed), &env).as_deref(),
            Some("/usr/bin"),
            "a PATH handed over by name is Conclave's variable"
        );
    }
}
