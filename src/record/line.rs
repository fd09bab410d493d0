//! One line of a recording read as its event, or why it holds none: the
//! reason quotes the line, cleaned for a terminal and cut short.

use crate::bus::Event;
use crate::sanitize::clean;
use std::ops::Range;

/// How much of a report quotes the line.
const MAX_QUOTED: usize = 160;

/// The event on one line, or why there is none.
pub(super) fn decode(bytes: &[u8]) -> Result<Event, String> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let at = e.valid_up_to();
        format!(
            "not UTF-8 at byte {} (0x{:02x}); skipped",
            at + 1,
            bytes[at]
        )
    })?;
    if let Some(event) = Event::from_text(text) {
        return Ok(event);
    }
    serde_json::from_str::<Event>(text).map_err(|e| {
        match serde_json::from_str::<serde_json::Value>(text) {
            Err(_) => format!("not JSON: {}", quoted(&e.to_string())),
            Ok(value)
                if value
                    .get("type")
                    .and_then(serde_json::Value::as_str)
                    .is_some_and(|kind| !crate::bus::is_known_kind(kind)) =>
            {
                let kind = value.get("type").map(ToString::to_string);
                format!(
                    "an event kind this version does not know ({}); skipped",
                    quoted(kind.as_deref().unwrap_or("?"))
                )
            }
            Ok(_) => format!("not a Conclave event: {}", quoted(&e.to_string())),
        }
    })
}

/// [`decode`] for a whole line given up, its event in `within`: a run's
/// finish keeps its result in the line's memory ([`Event::from_line`]).
pub(super) fn decode_line(mut line: Vec<u8>, within: Range<usize>) -> Result<Event, String> {
    line.truncate(within.end);
    line.drain(..within.start);
    match String::from_utf8(line) {
        Ok(text) => Event::from_line(text).or_else(|text| decode(text.as_bytes())),
        Err(e) => decode(e.as_bytes()),
    }
}

/// Text from the file made safe for a terminal and short.
fn quoted(text: &str) -> String {
    let text = clean(text);
    match text.char_indices().nth(MAX_QUOTED) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bus::EventKind;

    #[test]
    fn a_line_given_up_reads_as_the_same_line_lent() {
        let long = "y".repeat(5 << 20);
        let head = |seq: u64, kind: &str| {
            format!("{{\"run\":1,\"seq\":{seq},\"t_ms\":{seq},\"type\":\"{kind}\"")
        };
        let result = format!("{{\"answer\": \"{long}\", \"n\":[1, 2]}}");
        let finished = format!(
            "{},\"status\":\"ok\",\"stop_reason\":\"success\",\"result\":{result},\"error\":\"e\"}}",
            head(2, "run_finished")
        );
        let flag = format!(
            "{},\"name\":\"{long}\",\"on\":true}}",
            head(3, "flag_changed")
        );
        let unknown = format!("{},\"x\":\"{long}\"}}", head(4, "time_travelled"));
        let mut lines: Vec<Vec<u8>> = [&finished, &flag, &unknown, &format!("{{{long}")]
            .iter()
            .map(|l| l.as_bytes().to_vec())
            .collect();
        let mut bad = flag.clone().into_bytes();
        bad[100] = 0xff;
        lines.push(bad);
        for line in lines {
            let lent = decode(&line);
            // Given up with a byte order mark before it and a CRLF after.
            let mut given = b"\xef\xbb\xbf".to_vec();
            given.extend_from_slice(&line);
            given.extend_from_slice(b"\r\n");
            let read = decode_line(given, 3..3 + line.len());
            assert_eq!(read, lent);
        }
        let Ok(event) = decode_line(finished.clone().into_bytes(), 0..finished.len()) else {
            panic!("a run's finish")
        };
        let EventKind::RunFinished { result: read, .. } = event.kind else {
            panic!("a run's finish")
        };
        assert_eq!(read.text(), result, "the result as written, spacing kept");
    }
}
