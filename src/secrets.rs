//! The one secret scrubber. Every string that leaves the process (events and
//! so recordings and the screen, results and errors on stdout and stderr,
//! prompts sent back to a model) passes here. A secret is registered the
//! moment Conclave reads it (the API key, a secret header value); from then
//! on it is masked whole, and so is any run of [`WINDOW`] or more of its
//! consecutive characters, so that a partial echo (`Bearer *** <last 12>`)
//! is caught too. A secret shorter than [`WINDOW`] is masked whole only.
//! With nothing registered (the sim) scrubbing is one atomic load; otherwise
//! it is linear in the text. It never logs or returns a secret.

mod find;
mod stream;

pub(crate) use stream::StreamScrubber;

use serde_json::Value;
use std::borrow::Cow;
use std::ops::Range;
use std::sync::RwLock;
use std::sync::atomic::{AtomicBool, Ordering};

/// What a masked run of secret characters becomes.
pub(crate) const MASK: &str = "[redacted]";

/// The shortest run of a secret's characters that is masked on its own.
pub(crate) const WINDOW: usize = 8;

static ACTIVE: AtomicBool = AtomicBool::new(false);
static REGISTRY: RwLock<Scrubber> = RwLock::new(Scrubber::new());

/// Mask `secret` (and its runs of [`WINDOW`] characters) from now on in
/// everything the process writes. Registering the same value twice, or an
/// empty one, changes nothing.
pub fn register(secret: &str) {
    if secret.is_empty() {
        return;
    }
    let mut registry = REGISTRY
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    registry.add(secret);
    ACTIVE.store(true, Ordering::Release);
}

/// Whether any secret is registered: when not, every scrub is a no-op.
pub(crate) fn is_active() -> bool {
    ACTIVE.load(Ordering::Acquire)
}

/// `text` with every registered secret, and every run of [`WINDOW`] or more
/// of a secret's consecutive characters, replaced by [`MASK`].
pub(crate) fn scrub(text: &str) -> Cow<'_, str> {
    if !is_active() {
        return Cow::Borrowed(text);
    }
    registry().scrub(text)
}

/// Scrub every string and every object key of `value` in place; whether
/// anything was masked.
pub(crate) fn scrub_json(value: &mut Value) -> bool {
    if !is_active() {
        return false;
    }
    registry().scrub_value(value)
}

/// Whether the JSON `text` may hold a registered secret in a string or a
/// key (decoded), found without building its tree; `false` whenever no
/// secret is registered.
pub(crate) fn json_holds_secret(text: &str) -> bool {
    is_active() && find::holds_secret(&registry(), text)
}

/// A model's (or a tool's) text as it enters the process: scrubbed as
/// text, and, when it is JSON, scrubbed in its decoded strings too, so that
/// a secret hidden behind escapes (`sk-\u0061bc…`) cannot come back out
/// when the text is parsed. Text without a secret comes back unchanged.
pub(crate) fn scrub_model_text(text: &str) -> Cow<'_, str> {
    if !is_active() {
        return Cow::Borrowed(text);
    }
    let registry = registry();
    if let Ok(mut value) = serde_json::from_str::<Value>(text)
        && registry.scrub_value(&mut value)
    {
        return Cow::Owned(value.to_string());
    }
    registry.scrub(text)
}

fn registry() -> std::sync::RwLockReadGuard<'static, Scrubber> {
    REGISTRY
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The secrets one scrubber masks. The process has one, behind
/// [`register`] and [`scrub`]; tests build their own.
#[derive(Debug)]
pub(crate) struct Scrubber {
    /// Every [`WINDOW`]-character run of the long secrets that is plain
    /// ASCII, packed into a `u64` (eight bytes), sorted.
    ascii: Vec<u64>,
    /// The runs that hold other characters, sorted.
    wide: Vec<String>,
    /// Secrets shorter than [`WINDOW`] characters, masked whole.
    short: Vec<String>,
    /// Whether a byte is in some run of `ascii`: a run of text holds one
    /// of them only where [`WINDOW`] bytes in a row are.
    ascii_bytes: [bool; 256],
    /// Every secret registered, to register each once.
    known: Vec<String>,
}

impl Default for Scrubber {
    fn default() -> Self {
        Scrubber::new()
    }
}

impl Scrubber {
    pub(crate) const fn new() -> Self {
        Scrubber {
            ascii: Vec::new(),
            wide: Vec::new(),
            short: Vec::new(),
            ascii_bytes: [false; 256],
            known: Vec::new(),
        }
    }

    pub(crate) fn add(&mut self, secret: &str) {
        if secret.is_empty() || self.known.iter().any(|k| k == secret) {
            return;
        }
        self.known.push(secret.to_string());
        let starts: Vec<usize> = secret.char_indices().map(|(i, _)| i).collect();
        if starts.len() < WINDOW {
            self.short.push(secret.to_string());
            return;
        }
        for (n, &start) in starts.iter().enumerate().take(starts.len() - WINDOW + 1) {
            let end = starts.get(n + WINDOW).copied().unwrap_or(secret.len());
            let window = &secret[start..end];
            match pack(window) {
                Some(packed) => {
                    self.ascii.push(packed);
                    for byte in window.bytes() {
                        self.ascii_bytes[usize::from(byte)] = true;
                    }
                }
                None => self.wide.push(window.to_string()),
            }
        }
        self.ascii.sort_unstable();
        self.ascii.dedup();
        self.wide.sort_unstable();
        self.wide.dedup();
    }

    fn is_window(&self, window: &str) -> bool {
        match pack(window) {
            Some(packed) => self.ascii.binary_search(&packed).is_ok(),
            None => self
                .wide
                .binary_search_by(|w| w.as_str().cmp(window))
                .is_ok(),
        }
    }

    /// The byte ranges of `text` to mask, sorted, merged where they touch.
    fn regions(&self, text: &str) -> Vec<Range<usize>> {
        let mut hits = if !self.wide.is_empty() {
            self.window_hits_by_chars(text)
        } else if !self.ascii.is_empty() {
            self.window_hits_by_bytes(text)
        } else {
            Vec::new()
        };
        if self.short.is_empty() {
            return hits;
        }
        for secret in &self.short {
            hits.extend(
                text.match_indices(secret.as_str())
                    .map(|(at, found)| at..at + found.len()),
            );
        }
        hits.sort_by_key(|r| r.start);
        let mut merged = Vec::with_capacity(hits.len());
        for hit in hits {
            push_merged(&mut merged, hit);
        }
        merged
    }

    /// Where `text` holds a run of a long secret, character by character:
    /// for secrets beyond ASCII.
    fn window_hits_by_chars(&self, text: &str) -> Vec<Range<usize>> {
        let mut hits = Vec::new();
        // The starts of the last WINDOW + 1 characters: window `n` runs
        // from the start of character n to that of n + WINDOW.
        let mut ring = [0usize; WINDOW + 1];
        let mut seen = 0usize;
        let check = |start: usize, end: usize, hits: &mut Vec<Range<usize>>| {
            if self.is_window(&text[start..end]) {
                push_merged(hits, start..end);
            }
        };
        for (at, _) in text.char_indices() {
            ring[seen % (WINDOW + 1)] = at;
            if seen >= WINDOW {
                check(ring[(seen - WINDOW) % (WINDOW + 1)], at, &mut hits);
            }
            seen += 1;
        }
        if seen >= WINDOW {
            check(ring[(seen - WINDOW) % (WINDOW + 1)], text.len(), &mut hits);
        }
        hits
    }

    /// Where `text` holds a run of a long secret whose runs are all
    /// ASCII: the same ranges [`Self::window_hits_by_chars`] finds, as a
    /// run of ASCII characters is as many bytes. Only where [`WINDOW`]
    /// bytes in a row are of the secrets' is a run looked up, so text
    /// that is not a key costs a table lookup a byte. A run whose model
    /// answers 7 MiB of text took the debug binary 14.8 s of CPU with
    /// every run looked up character by character, 3.5 s this way (the
    /// hostile model tests' slowest case).
    fn window_hits_by_bytes(&self, text: &str) -> Vec<Range<usize>> {
        let mut hits = Vec::new();
        let bytes = text.as_bytes();
        let mut run = 0usize;
        for (at, &byte) in bytes.iter().enumerate() {
            if !self.ascii_bytes[usize::from(byte)] {
                run = 0;
                continue;
            }
            run += 1;
            if run >= WINDOW {
                let start = at + 1 - WINDOW;
                let mut window = [0u8; WINDOW];
                window.copy_from_slice(&bytes[start..=at]);
                if self
                    .ascii
                    .binary_search(&u64::from_le_bytes(window))
                    .is_ok()
                {
                    push_merged(&mut hits, start..at + 1);
                }
            }
        }
        hits
    }

    pub(crate) fn scrub<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let regions = self.regions(text);
        if regions.is_empty() {
            return Cow::Borrowed(text);
        }
        let mut out = String::with_capacity(text.len());
        let mut from = 0;
        for region in regions {
            out.push_str(&text[from..region.start]);
            out.push_str(MASK);
            from = region.end;
        }
        out.push_str(&text[from..]);
        Cow::Owned(out)
    }

    pub(crate) fn scrub_value(&self, value: &mut Value) -> bool {
        match value {
            Value::String(text) => match self.scrub(text) {
                Cow::Borrowed(_) => false,
                Cow::Owned(clean) => {
                    *text = clean;
                    true
                }
            },
            Value::Array(items) => items
                .iter_mut()
                .fold(false, |any, item| self.scrub_value(item) | any),
            Value::Object(map) => {
                let mut any = map
                    .values_mut()
                    .fold(false, |any, item| self.scrub_value(item) | any);
                if map.keys().any(|k| !self.regions(k).is_empty()) {
                    any = true;
                    *map = std::mem::take(map)
                        .into_iter()
                        .map(|(k, v)| (self.scrub(&k).into_owned(), v))
                        .collect();
                }
                any
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => false,
        }
    }
}

/// Add `hit` to `regions` (sorted by start), merging it with the last one
/// when they overlap or touch.
fn push_merged(regions: &mut Vec<Range<usize>>, hit: Range<usize>) {
    match regions.last_mut() {
        Some(last) if hit.start <= last.end => last.end = last.end.max(hit.end),
        _ => regions.push(hit),
    }
}

/// Eight ASCII bytes as one number.
fn pack(window: &str) -> Option<u64> {
    let bytes: [u8; WINDOW] = window.as_bytes().try_into().ok()?;
    window.is_ascii().then(|| u64::from_le_bytes(bytes))
}

#[cfg(test)]
mod tests;
