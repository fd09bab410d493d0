//! What the endpoint answers a call: its status, content type, whether
//! the client must not try again, and its body, whole or piece by piece.

use super::{Over, Refused};
use std::sync::{Mutex, PoisonError};
use tokio::sync::mpsc;

/// Pieces of a stream in flight to a slow client; the upstream is read
/// no faster than the client takes them.
pub(super) const PIECES_IN_FLIGHT: usize = 16;

/// What the endpoint answers.
#[derive(Debug)]
pub(crate) struct Served {
    pub(crate) status: u16,
    pub(crate) content_type: String,
    /// `x-should-retry: false` on a budget's 429: OpenAI's clients would
    /// otherwise try again.
    pub(crate) final_refusal: bool,
    pub(crate) body: ServedBody,
}

#[derive(Debug)]
pub(crate) enum ServedBody {
    Whole(Vec<u8>),
    /// Pieces as the upstream sent them; an `Err` is a stream the
    /// upstream cut, which the client must see broken, not ended.
    Stream(mpsc::Receiver<Result<Vec<u8>, String>>),
}

impl Served {
    pub(crate) fn refusal(refused: &Refused) -> Self {
        Served::json(refused.status, refused.body())
    }

    pub(super) fn over(over: &Over) -> Self {
        Served {
            final_refusal: true,
            ..Served::json(429, over.body())
        }
    }

    pub(super) fn json(status: u16, body: Vec<u8>) -> Self {
        Served {
            status,
            content_type: "application/json".to_string(),
            final_refusal: false,
            body: ServedBody::Whole(body),
        }
    }
}

/// The lock's guard, a poisoned lock taken as it stands.
pub(super) fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
