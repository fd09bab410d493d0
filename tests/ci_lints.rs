//! CI lints in the tests' compile (`.ci/lints-in-build`, sourced by
//! `.ci/run`): a lint or a warning in any kind of target fails that
//! compile at its place, as `cargo clippy --all-targets -- -D warnings`
//! fails, and a crate with none builds. Held on a crate of one file per
//! kind of target, compiled with the very fragment `.ci/run` sources.

use std::path::Path;
use std::process::{Command, Output};

/// A crate with a build script, a library with unit tests, a binary, an
/// integration test and a bench, none of which warns.
const CLEAN: &[(&str, &str)] = &[
    (
        "Cargo.toml",
        "[package]\nname = \"probe\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n\
         [[bench]]\nname = \"b\"\nharness = false\n\n[workspace]\n",
    ),
    ("build.rs", "fn main() {}\n"),
    (
        "src/lib.rs",
        "pub fn one() -> u8 {\n    1\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    \
         fn one() {\n        assert_eq!(super::one(), 1);\n    }\n}\n",
    ),
    (
        "src/main.rs",
        "fn main() {\n    println!(\"{}\", probe::one());\n}\n",
    ),
    (
        "tests/it.rs",
        "#[test]\nfn one() {\n    assert_eq!(probe::one(), 1);\n}\n",
    ),
    (
        "benches/b.rs",
        "fn main() {\n    println!(\"{}\", probe::one());\n}\n",
    ),
];

/// A clippy lint that warns by default (`len_zero`), in a function of its own.
const LINT: &str =
    "\n#[allow(dead_code)]\nfn lint_probe(v: &[u8]) -> bool {\n    v.len() == 0\n}\n";

/// Write `files` (name, text) into `dir`.
fn write(dir: &Path, files: &[(&str, &str)]) {
    for (name, text) in files {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

/// `cargo test --all-targets --no-run` in `dir`, after `.ci/run`'s
/// fragment, as `.ci/run` runs it.
fn build(dir: &Path) -> Output {
    let fragment = Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/lints-in-build");
    Command::new("bash")
        .arg("-c")
        .arg("set -eu; source \"$1\"; \"$2\" test --all-targets --no-run --offline")
        .arg("bash")
        .arg(fragment)
        .arg(env!("CARGO"))
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .env_remove("RUSTC_WORKSPACE_WRAPPER")
        .env_remove("CLIPPY_ARGS")
        .output()
        .expect("bash runs")
}

#[test]
fn a_warning_in_any_target_fails_the_tests_compile_at_its_place() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), CLEAN);
    let clean = build(dir.path());
    assert!(
        clean.status.success(),
        "the clean crate builds: {}",
        String::from_utf8_lossy(&clean.stderr)
    );

    let lib = CLEAN[2].1;
    let in_unit_tests = lib.replace(
        "mod tests {\n",
        "mod tests {\n    #[test]\n    fn probe() {\n        let v: Vec<u8> = Vec::new();\n        \
         assert!(v.len() == 0);\n    }\n",
    );
    let cases: Vec<(&str, String, &str, &str)> = vec![
        (
            "build.rs",
            format!("{}{LINT}", CLEAN[1].1),
            "length comparison to zero",
            "(build script)",
        ),
        (
            "src/lib.rs",
            format!("{lib}{LINT}"),
            "length comparison to zero",
            "(lib)",
        ),
        (
            "src/lib.rs",
            in_unit_tests,
            "length comparison to zero",
            "(lib test)",
        ),
        (
            "src/main.rs",
            format!("{}{LINT}", CLEAN[3].1),
            "length comparison to zero",
            "(bin \"probe\"",
        ),
        (
            "tests/it.rs",
            format!("{}{LINT}", CLEAN[4].1),
            "length comparison to zero",
            "(test \"it\")",
        ),
        (
            "benches/b.rs",
            format!("{}{LINT}", CLEAN[5].1),
            "length comparison to zero",
            "(bench \"b\")",
        ),
        // A compiler's own warning, not only clippy's.
        (
            "tests/it.rs",
            CLEAN[4]
                .1
                .replace("fn one() {\n", "fn one() {\n    let unused = 1;\n"),
            "unused variable: `unused`",
            "(test \"it\")",
        ),
    ];
    for (file, text, says, unit) in cases {
        let clean_text = CLEAN.iter().find(|(name, _)| *name == file).unwrap().1;
        write(dir.path(), &[(file, &text)]);
        let failed = build(dir.path());
        write(dir.path(), &[(file, clean_text)]);
        let stderr = String::from_utf8_lossy(&failed.stderr);
        assert!(
            !failed.status.success(),
            "{file}: the compile passed:\n{stderr}"
        );
        assert!(
            stderr.contains(&format!("error: {says}"))
                && stderr.contains(&format!("--> {file}:"))
                && stderr.contains(&format!("could not compile `probe` {unit}")),
            "{file}: not refused {unit} with {says:?}:\n{stderr}"
        );
    }
}
