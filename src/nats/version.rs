//! Which nats-server releases Conclave works with, read from the version
//! the server announces when a client connects. It only decides; the
//! connection refuses an older server with [`super::NatsError::TooOld`].

/// The oldest release whose JetStream API (work-queue streams, pull
/// consumers, message ids, purge by subject) Conclave uses as it is.
pub(crate) const MINIMUM: (u64, u64, u64) = (2, 9, 0);

/// The minimum as people write it.
pub(crate) fn minimum_text() -> String {
    let (major, minor, patch) = MINIMUM;
    format!("{major}.{minor}.{patch}")
}

/// Whether `announced` (e.g. `2.9.10`, `v2.10.0-beta.3`) is at least
/// [`MINIMUM`]. A version that cannot be read is let through: a server
/// that announces no usable version is judged by what it answers.
pub fn supported(announced: &str) -> bool {
    match parse(announced) {
        Some(version) => version >= MINIMUM,
        None => true,
    }
}

/// `MAJOR.MINOR.PATCH`, ignoring a leading `v` and anything after the
/// patch number (`-beta.3`, `+build`).
fn parse(announced: &str) -> Option<(u64, u64, u64)> {
    let text = announced.trim().trim_start_matches('v');
    let mut parts = text.splitn(3, '.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    let rest = parts.next()?;
    let digits = rest
        .find(|c: char| !c.is_ascii_digit())
        .map_or(rest, |end| &rest[..end]);
    Some((major, minor, digits.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn releases_from_2_9_on_are_supported() {
        for yes in [
            "2.9.0",
            "2.9.10",
            "v2.10.25",
            "2.15.1",
            "3.0.0",
            "2.11.0-RC.1",
        ] {
            assert!(supported(yes), "{yes}");
        }
        for no in ["2.8.4", "2.2.0", "1.4.1", "v2.8.99-beta"] {
            assert!(!supported(no), "{no}");
        }
        for unreadable in ["", "dev", "2"] {
            assert!(supported(unreadable), "{unreadable}");
        }
        assert_eq!(minimum_text(), "2.9.0");
    }
}
