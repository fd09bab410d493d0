//! An upstream's answer on its way back to the client, whole (up to
//! [`MAX_ANSWER`]) or piece by piece, its usage charged to the run when it
//! ends, and, for a run that keeps its calls, kept as the client got it
//! (scrubbed of every known secret) for a cassette to serve again.

use super::report::{Answered, Pending, RecordedAnswer, Reports};
use super::served::{PIECES_IN_FLIGHT, Served, ServedBody, lock};
use super::stream::event_end;
use super::{Api, Refused, RunSpend, StreamMeter};
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc;

/// The largest whole answer passed back, and the most of one answer a
/// run keeps: 8 MiB (a stream has no bound, only its events read for
/// usage have; past this one is passed on but not kept).
pub(super) const MAX_ANSWER: usize = 8 * 1024 * 1024;

/// A whole answer passed back as it came (up to [`MAX_ANSWER`]), with how
/// it ended: its status, the usage it counts, the model that answered,
/// and the answer kept when `keep`.
pub(super) async fn whole(
    mut answer: reqwest::Response,
    api: Api,
    keep: bool,
) -> (Served, Answered) {
    let status = answer.status().as_u16();
    let failed = |message: String| {
        let answered = Answered {
            status: Some(status),
            error: Some(message.clone()),
            ..Answered::default()
        };
        (Served::refusal(&Refused::new(502, message)), answered)
    };
    let content_type = answer
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("application/json")
        .to_string();
    let mut body = Vec::new();
    loop {
        match answer.chunk().await {
            Ok(Some(piece)) if body.len() + piece.len() <= MAX_ANSWER => body.extend(piece),
            Ok(Some(_)) => {
                return failed(format!("the upstream's answer is over {MAX_ANSWER} bytes"));
            }
            Ok(None) => break,
            Err(error) => {
                return failed(format!(
                    "the upstream's answer broke off: {}",
                    crate::provider::openai::transport_cause(&error)
                ));
            }
        }
    }
    let (usage, answered_by) = if (200..300).contains(&status) {
        super::usage_of_answer(api, &body)
    } else {
        (None, None)
    };
    let mut answered = Answered {
        status: Some(status),
        answered_by,
        usage,
        ..Answered::default()
    };
    if keep {
        match std::str::from_utf8(&body) {
            Ok(text) => {
                answered.answer = Some(RecordedAnswer {
                    content_type: content_type.clone(),
                    body: Some(crate::secrets::scrub(text).into_owned()),
                    events: Vec::new(),
                })
            }
            Err(_) => answered.answer_not_kept = Some("the answer is not UTF-8 text".into()),
        }
    }
    let served = Served {
        status,
        content_type,
        final_refusal: false,
        body: ServedBody::Whole(body),
    };
    (served, answered)
}

/// What a stream's end does: charge the run and report the call.
pub(super) struct Ending {
    pub(super) spend: Arc<Mutex<RunSpend>>,
    pub(super) asked: Option<String>,
    pub(super) pending: Pending,
    pub(super) reports: Reports,
}

/// A streamed answer passed back piece by piece as it comes, read for its
/// usage on the way, charged to the run when it ends (or when the client
/// goes away: what came is counted, and the upstream is no longer read).
pub(super) fn stream(
    mut answer: reqwest::Response,
    mut meter: StreamMeter,
    ending: Ending,
) -> Served {
    let status = answer.status().as_u16();
    let (pieces, body) = mpsc::channel(PIECES_IN_FLIGHT);
    let mut kept = Kept::new(ending.reports.kept());
    tokio::spawn(async move {
        let mut error = None;
        loop {
            let next = match answer.chunk().await {
                Ok(Some(piece)) => Ok(meter.feed(&piece)),
                // Ended without saying so: cut, and the client must see
                // it broken rather than ended.
                Ok(None) if !meter.done() => {
                    Err("the upstream's stream ended before it said it was done".to_string())
                }
                Ok(None) => break,
                Err(error) => Err(format!(
                    "the upstream's stream broke off: {}",
                    crate::provider::openai::transport_cause(&error)
                )),
            };
            let cut = next.is_err();
            match &next {
                Err(why) => error = Some(why.clone()),
                Ok(out) if out.is_empty() => continue,
                Ok(out) => kept.add(out),
            }
            if pieces.send(next).await.is_err() {
                error = Some("the client went away before the stream's end".to_string());
                break;
            }
            if cut {
                break;
            }
        }
        let rest = meter.finish();
        if !rest.is_empty() {
            kept.add(&rest);
            let _ = pieces.send(Ok(rest)).await;
        }
        let (answer, answer_not_kept) = kept.answer();
        let mut answered = Answered {
            status: Some(status),
            answered_by: meter.model().map(str::to_string),
            error,
            answer,
            answer_not_kept,
            ..Answered::default()
        };
        if let Some(usage) = meter.usage() {
            let asked = ending.asked.as_deref();
            let (priced, over) = lock(&ending.spend).charge(usage, meter.model(), asked);
            answered.usage = Some(priced);
            answered.over = over;
        }
        ending.reports.send(ending.pending.ended(answered)).await;
    });
    Served {
        status,
        content_type: "text/event-stream".to_string(),
        final_refusal: false,
        body: ServedBody::Stream(body),
    }
}

/// The bytes of a stream the client got, kept up to [`MAX_ANSWER`].
struct Kept {
    bytes: Option<Vec<u8>>,
    over: bool,
}

impl Kept {
    fn new(keep: bool) -> Self {
        Kept {
            bytes: keep.then(Vec::new),
            over: false,
        }
    }

    fn add(&mut self, piece: &[u8]) {
        if let Some(bytes) = &mut self.bytes {
            if bytes.len() + piece.len() > MAX_ANSWER {
                self.bytes = None;
                self.over = true;
            } else {
                bytes.extend_from_slice(piece);
            }
        }
    }

    /// The stream's whole events, scrubbed, or why they were not kept. A
    /// piece of an event the stream was cut in is left out.
    fn answer(self) -> (Option<RecordedAnswer>, Option<String>) {
        if self.over {
            return (None, Some(format!("the stream is over {MAX_ANSWER} bytes")));
        }
        let Some(bytes) = self.bytes else {
            return (None, None);
        };
        let Ok(text) = String::from_utf8(bytes) else {
            return (None, Some("the stream is not UTF-8 text".into()));
        };
        let mut events = Vec::new();
        let mut rest = text.as_str();
        while let Some(end) = event_end(rest.as_bytes()) {
            events.push(crate::secrets::scrub(&rest[..end]).into_owned());
            rest = &rest[end..];
        }
        let answer = RecordedAnswer {
            content_type: "text/event-stream".to_string(),
            body: None,
            events,
        };
        (Some(answer), None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_streams_events_are_kept_whole_and_bounded() {
        let mut kept = Kept::new(true);
        kept.add(b"data: {\"a\":1}\n\nda");
        kept.add(b"ta: [DONE]\n\ndata: {\"cut");
        let (answer, why) = kept.answer();
        assert_eq!(why, None);
        assert_eq!(
            answer.unwrap().events,
            ["data: {\"a\":1}\n\n", "data: [DONE]\n\n"],
            "each whole event, the cut one left out"
        );
        let mut over = Kept::new(true);
        over.add(&vec![b'x'; MAX_ANSWER]);
        over.add(b"y");
        let (answer, why) = over.answer();
        assert!(answer.is_none());
        assert!(why.unwrap().contains("over 8388608 bytes"));
        let (answer, why) = Kept::new(false).answer();
        assert_eq!(
            (answer, why),
            (None, None),
            "nothing kept when nobody keeps it"
        );
    }
}
