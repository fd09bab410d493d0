//! The trace builder's book of open spans: opening, nesting, span events
//! and ends, and the times they are stamped with (a millisecond of the
//! run's clock plus its event's rank within it).

use super::*;

impl TraceBuilder {
    /// Open a span under `parent` at run time `t`; its number.
    pub(super) fn open_span(&mut self, parent: Option<SpanNo>, name: String, t: u64) -> SpanNo {
        let no = self.next_no;
        self.next_no += 1;
        // Never before its parent (a retried call's attempts are opened
        // when the call ends, at their own earlier times).
        let parent_rank = parent
            .and_then(|p| self.open.get(&p))
            .filter(|p| p.start_t == t)
            .map_or(0, |p| p.start_rank);
        let start_rank = self.rank(t).max(parent_rank);
        self.open.insert(
            no,
            OpenSpan {
                parent,
                name,
                start_t: t,
                attrs: Attrs::default(),
                events: Vec::new(),
                status: SpanStatus::Unset,
                done_at: None,
                last_child_end: 0,
                start_rank,
                last_child_end_ns: 0,
            },
        );
        no
    }

    /// The open span `no`. Callers only name spans they hold open.
    pub(super) fn span(&mut self, no: SpanNo) -> &mut OpenSpan {
        // A span ends once and is forgotten by every map that named it;
        // an event naming it after that falls back to the root, which
        // stays open until the run's end.
        let no = if self.open.contains_key(&no) {
            no
        } else {
            ROOT
        };
        self.open
            .get_mut(&no)
            .expect("the root is open until the end")
    }

    pub(super) fn is_open(&self, no: SpanNo) -> bool {
        self.open.contains_key(&no)
    }

    /// Whether `ancestor` is `no` or one of its open parents.
    pub(super) fn encloses(&self, ancestor: SpanNo, no: SpanNo) -> bool {
        let mut at = Some(no);
        while let Some(span) = at {
            if span == ancestor {
                return true;
            }
            at = self.open.get(&span).and_then(|s| s.parent);
        }
        false
    }

    /// Add `event` at run time `t` to span `no` (the root when `no` has
    /// ended).
    pub(super) fn event(&mut self, no: SpanNo, name: &'static str, t: u64, attrs: Attrs) {
        let at_ns = self.wall_ns(t, self.rank(t));
        self.span(no).events.push(SpanEvent { name, at_ns, attrs });
    }

    /// A content event (only with `--otlp-content`): `text` as the
    /// conventions' message parts, under `key`.
    pub(super) fn content_event(
        &mut self,
        no: SpanNo,
        t: u64,
        key: &'static str,
        role: &str,
        text: &str,
    ) {
        let messages = serde_json::json!([{
            "role": role,
            "parts": [{"type": "text", "content": crate::secrets::scrub(text)}],
        }]);
        self.event(
            no,
            n::EVENT_CONTENT,
            t,
            Attrs::default().with(key, messages.to_string()),
        );
    }

    /// End span `no` at run time `t`, its open descendants first (each at
    /// its own end, a call at its last attempt's).
    pub(super) fn end(&mut self, no: SpanNo, t: u64) {
        let children: Vec<SpanNo> = self
            .open
            .iter()
            .filter(|(_, s)| s.parent == Some(no))
            .map(|(k, _)| *k)
            .collect();
        for child in children {
            if !self.is_open(child) {
                continue;
            }
            match self.calls.last_end(child) {
                Some(call_end) => self.close_call(child, call_end.min(t)),
                None => self.end(child, t),
            }
        }
        let Some(span) = self.open.remove(&no) else {
            return;
        };
        self.ended_spans.push(no);
        self.calls.forget(no);
        let end_t = match span.done_at {
            Some(done) => done.max(span.last_child_end),
            None => t,
        }
        .max(span.start_t);
        let start_ns = self.wall_ns(span.start_t, span.start_rank);
        let end_ns = self
            .wall_ns(end_t, self.rank(end_t))
            .max(start_ns)
            .max(span.last_child_end_ns);
        if let Some(parent) = span.parent.and_then(|p| self.open.get_mut(&p)) {
            parent.last_child_end = parent.last_child_end.max(end_t);
            parent.last_child_end_ns = parent.last_child_end_ns.max(end_ns);
        }
        self.finished.push(FinishedSpan {
            no,
            parent: span.parent,
            name: span.name,
            start_ns,
            end_ns,
            attrs: span.attrs,
            events: span.events,
            status: span.status,
        });
    }

    pub(super) fn end_all(&mut self, t: u64) {
        self.end(ROOT, t);
        self.ended = true;
    }

    /// Run time `t` and `rank` nanoseconds past it, as wall-clock
    /// nanoseconds since the Unix epoch.
    pub(super) fn wall_ns(&self, t: u64, rank: u64) -> u64 {
        self.start_ms
            .saturating_add(t)
            .saturating_mul(1_000_000)
            .saturating_add(rank)
    }

    /// The nanoseconds a span or span event at run time `t` is placed
    /// past its millisecond: the current event's rank when `t` is the
    /// current event's millisecond, else none.
    pub(super) fn rank(&self, t: u64) -> u64 {
        match self.tick {
            Some((now, rank)) if now == t => rank,
            _ => 0,
        }
    }
}
