//! Who this engine is among every engine on one NATS server: the name its
//! runs, sweeps and jobs carry in subjects and message ids. It only names;
//! it never talks to the server.

use std::fmt;

/// Unique across engines: `<hostname>-<pid>-<4 random hex>`, cleaned to
/// `[a-zA-Z0-9_-]` because a NATS subject token may not hold `.`, `*`,
/// `>` or white space, and a message id built from it is read back by
/// splitting on `/`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct EngineId(String);

impl EngineId {
    /// This process's id: the host and the process tell engines on
    /// different machines and on one machine apart; the random part tells
    /// apart two processes that reuse a pid (a container restarted).
    pub fn new() -> Self {
        let suffix: u16 = rand::random();
        EngineId::from_parts(&hostname(), std::process::id(), suffix)
    }

    pub(crate) fn from_parts(host: &str, pid: u32, suffix: u16) -> Self {
        let host = clean(host);
        let host = if host.is_empty() {
            "host".to_string()
        } else {
            host
        };
        EngineId(format!("{host}-{pid}-{suffix:04x}"))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Default for EngineId {
    fn default() -> Self {
        EngineId::new()
    }
}

impl fmt::Display for EngineId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Every character a subject token may not hold becomes `_`; a host name
/// is rarely longer than this, and a subject has no use for more.
fn clean(text: &str) -> String {
    text.chars()
        .take(48)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The machine's name, as `hostname` prints it; empty when it cannot be
/// read (the id stays unique through the pid and the random part).
fn hostname() -> String {
    let mut buffer = [0u8; 256];
    // SAFETY: the pointer and length describe a live, writable buffer;
    // gethostname writes at most that many bytes.
    let status = unsafe { libc::gethostname(buffer.as_mut_ptr().cast(), buffer.len()) };
    if status != 0 {
        return String::new();
    }
    let end = buffer.iter().position(|&b| b == 0).unwrap_or(buffer.len());
    String::from_utf8_lossy(&buffer[..end]).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_is_one_subject_token() {
        let id = EngineId::from_parts("build.example.com", 4242, 0x0a1f);
        assert_eq!(id.as_str(), "build_example_com-4242-0a1f");
        let odd = EngineId::from_parts("a b*c>d/é", 7, 0xffff);
        assert_eq!(odd.to_string(), "a_b_c_d__-7-ffff");
        assert_eq!(EngineId::from_parts("", 1, 1).as_str(), "host-1-0001");
    }

    #[test]
    fn this_process_gets_a_clean_distinct_id() {
        let (a, b) = (EngineId::new(), EngineId::new());
        for id in [&a, &b] {
            assert!(
                id.as_str()
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'),
                "{id}"
            );
            assert!(id.as_str().contains(&format!("-{}-", std::process::id())));
        }
        // Two ids in one process differ only by chance in their last part;
        // 1 in 65,536 is too often for a test, so only their shape is checked.
        assert_eq!(a.as_str().len(), b.as_str().len());
    }
}
