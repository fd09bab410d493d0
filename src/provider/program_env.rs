//! The environment a program a scenario starts (a command worker, a stdio
//! MCP server) gets: not Conclave's, which holds the API key and the
//! variables secret headers read, but a few harmless variables a program
//! needs to run as the user would ([`INHERITED`] and every `LC_*`), and
//! exactly what the scenario's `env` for it names. A value written
//! `env:NAME` is Conclave's variable NAME, so a secret reaches a program
//! only when the scenario hands it over by name; one whose name looks
//! like a secret's ([`SECRET_WORDS`]) is masked from then on, like the
//! key. Programs are looked up on the `PATH` this gives them
//! (`provider::program`), so what is found is what runs.

use crate::scenario::env_name;
use indexmap::IndexMap;

/// Conclave's variables every program gets when they are set: where
/// programs are, who and where the user is, the language, the terminal and
/// the time zone, the folder for temporary files, the user's shell.
pub(crate) const INHERITED: &[&str] = &[
    "PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TERM", "TZ", "TMPDIR", "SHELL",
];

/// The prefix of the locale variables every program gets too.
const LOCALE_PREFIX: &str = "LC_";

/// Words that make a variable handed over by name a secret to mask.
pub(crate) const SECRET_WORDS: &[&str] = &[
    "KEY",
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "CREDENTIAL",
    "AUTH",
];

/// A variable the scenario hands over by name that Conclave does not have.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "the environment variable {variable} is not set; the program's {name} takes its value from it"
)]
pub(crate) struct UnsetVariable {
    /// The program's variable.
    pub(crate) name: String,
    /// Conclave's variable it was to come from.
    pub(crate) variable: String,
}

/// The whole environment of a program whose scenario names `named`,
/// reading Conclave's variables through `conclave`.
pub(crate) fn program_env(
    named: &IndexMap<String, String>,
    conclave: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<(String, String)>, UnsetVariable> {
    let mut env: IndexMap<String, String> = IndexMap::new();
    let locale = std::env::vars_os()
        .filter_map(|(name, _)| name.into_string().ok())
        .filter(|name| name.starts_with(LOCALE_PREFIX));
    for name in INHERITED.iter().map(|n| n.to_string()).chain(locale) {
        if let Some(value) = conclave(&name) {
            env.insert(name, value);
        }
    }
    for (name, value) in named {
        let value = match env_name(value) {
            Some(variable) => {
                let handed = conclave(variable).ok_or_else(|| UnsetVariable {
                    name: name.clone(),
                    variable: variable.to_string(),
                })?;
                if looks_secret(variable) || looks_secret(name) {
                    crate::secrets::register(&handed);
                }
                handed
            }
            None => value.clone(),
        };
        env.insert(name.clone(), value);
    }
    Ok(env.into_iter().collect())
}

/// The `PATH` of an environment [`program_env`] gave.
pub(crate) fn path_of(env: &[(String, String)]) -> Option<&str> {
    env.iter()
        .find(|(name, _)| name == "PATH")
        .map(|(_, value)| value.as_str())
}

pub(crate) fn looks_secret(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    SECRET_WORDS.iter().any(|word| upper.contains(word))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conclave(name: &str) -> Option<String> {
        match name {
            "PATH" => Some("/usr/bin:/bin".into()),
            "HOME" => Some("/home/ada".into()),
            "OPENAI_API_KEY" => Some("sk-program-env-Hq7Tz2Lp9Wx4".into()),
            "SALES_TOKEN" => Some("tok-program-env-Jd8Rk3Mv6".into()),
            "REGION" => Some("EU".into()),
            _ => None,
        }
    }

    fn named(pairs: &[(&str, &str)]) -> IndexMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn a_program_gets_the_harmless_variables_and_no_secret_it_was_not_handed() {
        let env = program_env(&named(&[]), &conclave).unwrap();
        assert_eq!(
            env,
            vec![
                ("PATH".to_string(), "/usr/bin:/bin".to_string()),
                ("HOME".to_string(), "/home/ada".to_string())
            ]
        );
        assert_eq!(path_of(&env), Some("/usr/bin:/bin"));
    }

    #[test]
    fn what_the_scenario_names_is_added_written_or_handed_over_by_name() {
        let env = program_env(
            &named(&[
                ("PATH", "/opt/tools"),
                ("MODE", "env:1X"),
                ("KEY", "env:OPENAI_API_KEY"),
                ("AREA", "env:REGION"),
            ]),
            &conclave,
        )
        .unwrap();
        let get = |name: &str| env.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str());
        assert_eq!(get("PATH"), Some("/opt/tools"), "the scenario's PATH wins");
        assert_eq!(get("MODE"), Some("env:1X"), "not a name: as written");
        assert_eq!(get("KEY"), Some("sk-program-env-Hq7Tz2Lp9Wx4"));
        assert_eq!(get("AREA"), Some("EU"));
        assert_eq!(
            crate::secrets::scrub("sk-program-env-Hq7Tz2Lp9Wx4 EU"),
            "[redacted] EU",
            "a secret handed over is masked from then on; a plain value is not"
        );
    }

    #[test]
    fn a_variable_conclave_does_not_have_is_named() {
        let unset = program_env(&named(&[("DB", "env:DB_PASSWORD")]), &conclave).unwrap_err();
        assert_eq!(
            unset.to_string(),
            "the environment variable DB_PASSWORD is not set; the program's DB takes its value from it"
        );
    }
}
