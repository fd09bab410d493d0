//! The repository names no package host: the tests and the README install
//! what they need by package name with the ordinary clients (`apt-get
//! download`, `pip`). The hosts are read from this machine's apt sources,
//! as the project's pre-stop check reads them, so that this file names
//! none either.

use std::path::Path;
use std::process::Command;

/// The hosts of every `http(s)://` address in the machine's apt sources.
fn apt_hosts() -> Vec<String> {
    let mut text = std::fs::read_to_string("/etc/apt/sources.list").unwrap_or_default();
    if let Ok(entries) = std::fs::read_dir("/etc/apt/sources.list.d") {
        for entry in entries.filter_map(Result::ok) {
            text.push_str(&std::fs::read_to_string(entry.path()).unwrap_or_default());
        }
    }
    let mut hosts: Vec<String> = text
        .split(|c: char| c.is_whitespace() || c == '"' || c == '\'')
        .filter_map(|word| {
            let rest = word
                .strip_prefix("http://")
                .or_else(|| word.strip_prefix("https://"))?;
            let host = rest.split(['/', ':']).next()?;
            (!host.is_empty()).then(|| host.to_string())
        })
        .collect();
    hosts.sort();
    hosts.dedup();
    hosts
}

#[test]
fn no_file_of_the_repository_names_a_package_host() {
    let hosts = apt_hosts();
    if hosts.is_empty() {
        // A machine without apt sources has no host to look for.
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let listed = Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(root)
        .output()
        .expect("git lists the repository's files");
    let files = String::from_utf8(listed.stdout).unwrap();
    let mut named = Vec::new();
    for file in files
        .split('\0')
        .filter(|f| !f.is_empty() && *f != "Cargo.lock")
    {
        let Ok(text) = std::fs::read_to_string(root.join(file)) else {
            continue;
        };
        for host in &hosts {
            if text.contains(host.as_str()) {
                named.push(format!("{file}: {host}"));
            }
        }
    }
    assert!(
        named.is_empty(),
        "files that name a package host: {named:?}"
    );
}
