//! The agent frameworks the steering tests run, installed by the tests
//! themselves on first use: one virtualenv per framework under
//! target/tools, made with `python3 -m venv` and filled with `pip install
//! -r` from the pinned requirements the watch's fixtures were captured
//! with (tests/fixtures/watch/requirements), plus the repository's own
//! hooks package (`pip install ./hooks/python`). Test binaries started
//! together install each once, under a lock, into a side folder renamed
//! into place; a changed requirements file gets a new folder. A framework
//! that cannot be installed fails the test that needs it.

use super::nats::install::Lock;
use sha2::{Digest, Sha256};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A framework the tests run, by its requirements file's stem.
#[derive(Clone, Copy, Debug)]
pub enum Framework {
    OpenAiAgents,
    LangGraph,
    PydanticAi,
    AutoGen,
}

impl Framework {
    fn stem(self) -> &'static str {
        match self {
            Framework::OpenAiAgents => "openai_agents",
            Framework::LangGraph => "langgraph",
            Framework::PydanticAi => "pydantic_ai",
            Framework::AutoGen => "autogen",
        }
    }
}

/// The repository's root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The framework's Python, installed now if it is not there yet.
pub fn python(framework: Framework) -> PathBuf {
    let requirements = root()
        .join("tests/fixtures/watch/requirements")
        .join(format!("{}.txt", framework.stem()));
    let pins =
        std::fs::read(&requirements).unwrap_or_else(|e| panic!("{}: {e}", requirements.display()));
    let tag = tag_of(&pins);
    let tools = tools();
    let home = tools.join(format!("steer-{}-{tag}", framework.stem()));
    let python = home.join("bin").join("python");
    if !python.is_file() {
        install(framework, &tools, &home, &requirements);
    }
    python
}

/// The folder under target/ the tests install their tools into.
pub fn tools() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("the target folder")
        .join("tools")
}

/// A short name for `pins`: the first bytes of their hash, in hex.
pub fn tag_of(pins: &[u8]) -> String {
    let digest = Sha256::digest(pins);
    digest[..6].iter().map(|b| format!("{b:02x}")).collect()
}

fn install(framework: Framework, tools: &Path, home: &Path, requirements: &Path) {
    std::fs::create_dir_all(tools).expect("the tools folder under target/");
    let lock = File::create(tools.join(format!("steer-{}.lock", framework.stem()))).unwrap();
    let _held = Lock::take(&lock);
    if home.join("bin").join("python").is_file() {
        return;
    }
    let side = tools.join(format!("steer-{}.partial", framework.stem()));
    let _ = std::fs::remove_dir_all(&side);
    run(
        Command::new("python3").args(["-m", "venv"]).arg(&side),
        "python3 -m venv (install python3 and its venv module)",
    );
    let pip = || {
        let mut command = Command::new(side.join("bin").join("python"));
        command
            .args(["-m", "pip", "install", "--quiet"])
            .args(["--disable-pip-version-check", "--no-input"]);
        command
    };
    run(
        pip().arg("-r").arg(requirements),
        &format!("pip install -r {}", requirements.display()),
    );
    // Built from a copy: pip builds in the folder it installs from, and
    // two frameworks may be installed at once.
    let hooks = side.join("hooks-python");
    copy_sources(&root().join("hooks/python"), &hooks);
    run(pip().arg(&hooks), "pip install ./hooks/python");
    std::fs::rename(&side, home).expect("the virtualenv moves into place");
}

/// Run `command` (`what` it does, for the failure), which must succeed.
pub fn run(command: &mut Command, what: &str) {
    let output = command
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        output.status.success(),
        "{what} failed ({}):\n{}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The package's sources (no build folders) from `from` into `to`.
fn copy_sources(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("a folder for the hooks' copy");
    for entry in std::fs::read_dir(from).expect("hooks/python") {
        let path = entry.expect("an entry of hooks/python").path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if name == "build" || name == "__pycache__" || name.ends_with(".egg-info") {
            continue;
        }
        if path.is_dir() {
            copy_sources(&path, &to.join(&name));
        } else {
            std::fs::copy(&path, to.join(&name)).expect("a hooks file copied");
        }
    }
}
