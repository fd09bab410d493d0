//! The Node frameworks the steering tests run, installed by the tests
//! themselves on first use: `npm ci` from the pinned lock file of
//! tests/fixtures/steer_node into a folder under target/tools named by the
//! lock file's hash, with the repository's hook package (hooks/node) and
//! the test scripts copied in at each use, as `npm install` would put them.
//! Test threads install once, under a lock, into a side folder renamed
//! into place. A framework that cannot be installed fails the test.

use super::python::{root, run, tag_of, tools};
use super::steer::Run;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::nats::install::Lock;

/// The folder holding the frameworks' node_modules, the hook and the
/// scripts, installed now if it is not there yet.
pub fn home() -> PathBuf {
    let fixtures = root().join("tests/fixtures/steer_node");
    let lock_file = fixtures.join("package-lock.json");
    let pins = std::fs::read(&lock_file).unwrap_or_else(|e| panic!("{}: {e}", lock_file.display()));
    let tools = tools();
    std::fs::create_dir_all(&tools).expect("the tools folder under target/");
    let home = tools.join(format!("steer-node-{}", tag_of(&pins)));
    let lock = File::create(tools.join("steer-node.lock")).unwrap();
    let _held = Lock::take(&lock);
    if !home.join("node_modules").is_dir() {
        install(&tools, &home, &fixtures);
    }
    sync(
        &root().join("hooks/node"),
        &home.join("node_modules/conclave-steer"),
    );
    sync(&fixtures, &home);
    home
}

fn install(tools: &Path, home: &Path, fixtures: &Path) {
    let side = tools.join("steer-node.partial");
    let _ = std::fs::remove_dir_all(&side);
    std::fs::create_dir_all(&side).expect("a folder to install into");
    for name in ["package.json", "package-lock.json"] {
        std::fs::copy(fixtures.join(name), side.join(name)).expect("the pins copied");
    }
    // Only what the lock file says, and no package's install scripts.
    run(
        Command::new("npm")
            .args(["ci", "--ignore-scripts", "--no-audit", "--no-fund"])
            .args(["--loglevel", "error"])
            .current_dir(&side),
        "npm ci in tests/fixtures/steer_node (install Node.js 20 and npm)",
    );
    std::fs::rename(&side, home).expect("the frameworks move into place");
}

/// The plain files of `from` into `to`, each written (whole, by a rename)
/// only when it differs: a script another test runs is never half written.
fn sync(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("a folder for the copy");
    for entry in std::fs::read_dir(from).expect("a folder to copy") {
        let path = entry.expect("an entry").path();
        if !path.is_file() {
            continue;
        }
        let name = path.file_name().unwrap();
        let text = std::fs::read(&path).expect("a file to copy");
        let target = to.join(name);
        if std::fs::read(&target).ok().as_deref() == Some(&text[..]) {
            continue;
        }
        let side = to.join(format!(".{}.new", name.to_string_lossy()));
        std::fs::write(&side, &text).expect("a file copied");
        std::fs::rename(&side, &target).expect("a file copied into place");
    }
}

/// `script` of tests/fixtures/steer_node run by Node, its hook pointed at `url`.
pub fn start(script: &str, url: &str) -> Run {
    start_with(script, &[], url, &[])
}

/// `script` run by Node with `args`, its hook pointed at `url`, with `env` besides.
pub fn start_with(script: &str, args: &[&str], url: &str, env: &[(&str, &str)]) -> Run {
    let home = home();
    let child = Command::new("node")
        .arg(home.join(script))
        .args(args)
        .current_dir(&home)
        .env_remove("CONCLAVE_RUN_ID")
        .env_remove("CONCLAVE_STEER_TOKEN")
        .env("CONCLAVE_STEER_URL", url)
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node starts (install Node.js 20)");
    Run::of(child)
}
