//! The events stream's limits: how long and how much of every engine's
//! events the server keeps. The user names them (`--nats-max-age`,
//! `--nats-max-bytes`); without them a new stream gets the defaults here
//! and an existing one keeps the limits it has.

use super::subjects::{EVENTS_ALL, EVENTS_STREAM};
use async_nats::jetstream::{self, stream};
use std::time::Duration;

/// How long events are kept when nobody says: a day, long enough to attach
/// to any run a person watches.
pub(crate) const DEFAULT_MAX_AGE: Duration = Duration::from_secs(24 * 3600);
/// How many bytes of events are kept when nobody says: 1 GiB, the oldest
/// dropped first.
pub(crate) const DEFAULT_MAX_BYTES: u64 = 1 << 30;
/// How long JetStream remembers a message id to drop a duplicate.
const DUPLICATE_WINDOW: Duration = Duration::from_secs(120);

/// The limits a user set on the command line; `None` leaves the stream's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EventLimits {
    pub max_age: Option<Duration>,
    pub max_bytes: Option<u64>,
}

impl EventLimits {
    fn config(&self, mut config: stream::Config) -> stream::Config {
        let max_age = self.max_age.unwrap_or(if config.max_age.is_zero() {
            DEFAULT_MAX_AGE
        } else {
            config.max_age
        });
        config.max_age = max_age;
        config.max_bytes = match self.max_bytes {
            Some(bytes) => i64::try_from(bytes).unwrap_or(i64::MAX),
            None if config.max_bytes <= 0 => i64::try_from(DEFAULT_MAX_BYTES).unwrap_or(i64::MAX),
            None => config.max_bytes,
        };
        // The window may not exceed the age limit.
        config.duplicate_window = DUPLICATE_WINDOW.min(max_age);
        config
    }

    fn given(&self) -> bool {
        self.max_age.is_some() || self.max_bytes.is_some()
    }
}

/// Create the events stream, or set the limits the user gave on the one
/// there; an existing stream without new limits is left as it is.
pub(crate) async fn ensure_events_stream(
    js: &jetstream::Context,
    limits: EventLimits,
) -> Result<(), String> {
    match js.get_stream(EVENTS_STREAM).await {
        Ok(mut existing) => {
            if !limits.given() {
                return Ok(());
            }
            let current = existing
                .info()
                .await
                .map_err(|e| format!("cannot read the stream {EVENTS_STREAM}: {e}"))?
                .config
                .clone();
            js.update_stream(limits.config(current))
                .await
                .map(|_| ())
                .map_err(|e| format!("cannot set the limits of the stream {EVENTS_STREAM}: {e}"))
        }
        Err(_) => {
            let config = limits.config(stream::Config {
                name: EVENTS_STREAM.to_string(),
                subjects: vec![EVENTS_ALL.to_string()],
                retention: stream::RetentionPolicy::Limits,
                discard: stream::DiscardPolicy::Old,
                ..stream::Config::default()
            });
            js.get_or_create_stream(config)
                .await
                .map(|_| ())
                .map_err(|e| format!("cannot create the stream {EVENTS_STREAM}: {e}"))
        }
    }
}

/// `--nats-max-age`: a number with a unit, `90s`, `30m`, `12h` or `7d`.
pub fn parse_max_age(text: &str) -> Result<Duration, String> {
    let expected = || format!("expected a duration such as 90s, 30m, 12h or 7d, found {text:?}");
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .ok_or_else(expected)?;
    let (number, unit) = text.split_at(split);
    let number: u64 = number.parse().map_err(|_| expected())?;
    let seconds = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 24 * 3600,
        _ => return Err(expected()),
    };
    match number.checked_mul(seconds) {
        Some(0) => Err(format!("a duration above zero, found {text:?}")),
        Some(secs) if secs <= 3650 * 24 * 3600 => Ok(Duration::from_secs(secs)),
        _ => Err(format!("at most 3650d, found {text:?}")),
    }
}

/// `--nats-max-bytes`: bytes, or a number with a unit, `512MiB`, `2GiB`,
/// `500MB`.
pub fn parse_max_bytes(text: &str) -> Result<u64, String> {
    let expected =
        || format!("expected a size such as 1048576, 512MiB, 2GiB or 500MB, found {text:?}");
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: u64 = number.parse().map_err(|_| expected())?;
    let scale: u64 = match unit {
        "" | "B" => 1,
        "KB" => 1000,
        "MB" => 1000 * 1000,
        "GB" => 1000 * 1000 * 1000,
        "KiB" => 1 << 10,
        "MiB" => 1 << 20,
        "GiB" => 1 << 30,
        "TiB" => 1 << 40,
        _ => return Err(expected()),
    };
    match number.checked_mul(scale) {
        Some(0) => Err(format!("a size above zero, found {text:?}")),
        Some(bytes) if i64::try_from(bytes).is_ok() => Ok(bytes),
        _ => Err(format!(
            "a size that fits the server's limits, found {text:?}"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_read_with_their_unit_and_nonsense_is_refused() {
        assert_eq!(parse_max_age("90s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_max_age("30m"), Ok(Duration::from_secs(1800)));
        assert_eq!(parse_max_age("12h"), Ok(Duration::from_secs(12 * 3600)));
        assert_eq!(parse_max_age("7d"), Ok(Duration::from_secs(7 * 86400)));
        for bad in ["", "12", "h", "0s", "5w", "-3h", "99999999999999999999d"] {
            assert!(parse_max_age(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn sizes_read_in_bytes_or_with_a_unit() {
        assert_eq!(parse_max_bytes("1048576"), Ok(1 << 20));
        assert_eq!(parse_max_bytes("512MiB"), Ok(512 << 20));
        assert_eq!(parse_max_bytes("2GiB"), Ok(2 << 30));
        assert_eq!(parse_max_bytes("500MB"), Ok(500_000_000));
        for bad in ["", "0", "12PB", "MiB", "1.5GiB", "99999999999TiB"] {
            assert!(parse_max_bytes(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn limits_fill_a_new_stream_with_the_defaults_and_keep_what_is_not_given() {
        let fresh = EventLimits::default().config(stream::Config::default());
        assert_eq!(fresh.max_age, DEFAULT_MAX_AGE);
        assert_eq!(fresh.max_bytes, DEFAULT_MAX_BYTES as i64);
        let existing = stream::Config {
            max_age: Duration::from_secs(3600),
            max_bytes: 4096,
            ..stream::Config::default()
        };
        let only_bytes = EventLimits {
            max_age: None,
            max_bytes: Some(1 << 20),
        }
        .config(existing);
        assert_eq!(only_bytes.max_age, Duration::from_secs(3600));
        assert_eq!(only_bytes.max_bytes, 1 << 20);
        assert_eq!(only_bytes.duplicate_window, DUPLICATE_WINDOW);
        let short = EventLimits {
            max_age: Some(Duration::from_secs(30)),
            max_bytes: None,
        }
        .config(stream::Config::default());
        assert_eq!(short.duplicate_window, Duration::from_secs(30));
    }
}
