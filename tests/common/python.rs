//! The agent frameworks the steering tests run, installed by the tests
//! themselves on first use: one virtualenv per framework under
//! target/tools, filled from the pinned requirements the watch's fixtures
//! were captured with (tests/fixtures/watch/requirements), plus the
//! repository's own hooks package (./hooks/python). Test binaries started
//! together install each once, under a lock, into a side folder renamed
//! into place; a changed requirements file gets a new folder. A framework
//! that cannot be installed fails the test that needs it.
//!
//! The installer is `uv` (itself a pinned package, installed by pip into
//! target/tools): on a clean clone pip took 32-38 s of CPU a framework,
//! about 70 s of the tests' run on two cores, and uv takes 4, and a few
//! more to compile every module to bytecode as pip does. Where uv cannot
//! be had or fails, pip installs as before.

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

/// The `uv` release the tests install their frameworks with.
const UV: &str = "0.13.9";

fn install(framework: Framework, tools: &Path, home: &Path, requirements: &Path) {
    std::fs::create_dir_all(tools).expect("the tools folder under target/");
    let lock = File::create(tools.join(format!("steer-{}.lock", framework.stem()))).unwrap();
    let _held = Lock::take(&lock);
    if home.join("bin").join("python").is_file() {
        return;
    }
    let side = tools.join(format!("steer-{}.partial", framework.stem()));
    // Built from a copy: an installer builds in the folder it installs
    // from, and two frameworks may be installed at once.
    let hooks = tools.join(format!("steer-{}.hooks-python", framework.stem()));
    let _ = std::fs::remove_dir_all(&hooks);
    copy_sources(&root().join("hooks/python"), &hooks);
    let by_uv = uv(tools).and_then(|uv| {
        let _ = std::fs::remove_dir_all(&side);
        install_with_uv(&uv, tools, &side, requirements, &hooks)
            .map_err(|why| eprintln!("uv could not install {}: {why}; pip will", framework.stem()))
            .ok()
    });
    if by_uv.is_none() {
        let _ = std::fs::remove_dir_all(&side);
        install_with_pip(&side, requirements, &hooks);
    }
    let _ = std::fs::remove_dir_all(&hooks);
    std::fs::rename(&side, home).expect("the virtualenv moves into place");
}

/// The tests' `uv`, installed by pip into target/tools once; `None` (and
/// why, on stderr) where it cannot be.
fn uv(tools: &Path) -> Option<PathBuf> {
    let home = tools.join(format!("uv-{UV}"));
    let binary = home.join("bin").join("uv");
    let lock = File::create(tools.join("uv.lock")).unwrap();
    let _held = Lock::take(&lock);
    if binary.is_file() {
        return Some(binary);
    }
    let side = tools.join(format!("uv-{UV}.partial"));
    let _ = std::fs::remove_dir_all(&side);
    let output = Command::new("python3")
        .args(["-m", "pip", "install", "--quiet", "--no-deps"])
        .args(["--disable-pip-version-check", "--no-input", "--target"])
        .arg(&side)
        .arg(format!("uv=={UV}"))
        .stdin(Stdio::null())
        .output();
    match output {
        Ok(out) if out.status.success() && side.join("bin").join("uv").is_file() => {
            std::fs::rename(&side, &home).expect("uv moves into place");
            Some(binary)
        }
        Ok(out) => {
            let why = String::from_utf8_lossy(&out.stderr);
            eprintln!("pip install uv=={UV} failed ({}): {why}", out.status);
            None
        }
        Err(e) => {
            eprintln!("python3 -m pip install uv=={UV}: {e}");
            None
        }
    }
}

/// A virtualenv at `side` from `requirements` and the hooks' copy, by
/// `uv`: the system's `python3`, the system's trusted certificates, its
/// cache beside the tools (the frameworks share most of their packages),
/// and never a Python of uv's own.
fn install_with_uv(
    uv: &Path,
    tools: &Path,
    side: &Path,
    requirements: &Path,
    hooks: &Path,
) -> Result<(), String> {
    let command = || {
        let mut command = Command::new(uv);
        command
            .env("UV_CACHE_DIR", tools.join("uv-cache"))
            .env("UV_PYTHON_DOWNLOADS", "never")
            .env("UV_NATIVE_TLS", "1")
            .args(["--quiet", "--no-config"]);
        command
    };
    let python = side.join("bin").join("python");
    let steps: [(&str, Command); 2] = [
        ("uv venv", {
            let mut venv = command();
            venv.args(["venv", "--python", "python3"]).arg(side);
            venv
        }),
        ("uv pip install", {
            let mut pip = command();
            // Every module compiled to bytecode now, as pip does: where
            // PYTHONDONTWRITEBYTECODE is set (CI's machines set it), a
            // module without its .pyc is compiled again by every process
            // that imports it, 3 s of CPU for each LangGraph program.
            pip.args(["pip", "install", "--compile-bytecode", "--python"])
                .arg(&python)
                .arg("-r")
                .arg(requirements)
                .arg(hooks);
            pip
        }),
    ];
    for (what, mut step) in steps {
        let output = step
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("{what}: {e}"))?;
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            return Err(format!("{what} failed ({}): {stderr}", output.status));
        }
    }
    Ok(())
}

/// A virtualenv at `side` from `requirements` and the hooks' copy, by
/// `python3 -m venv` and pip.
fn install_with_pip(side: &Path, requirements: &Path, hooks: &Path) {
    run(
        Command::new("python3").args(["-m", "venv"]).arg(side),
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
    run(pip().arg(hooks), "pip install ./hooks/python");
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
