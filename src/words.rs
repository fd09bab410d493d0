//! Counting words: the one plural rule every front uses (the event log,
//! the dashboard, stop sentences), so that no screen says "1 retries";
//! and quoting a model's words back to it cut where a word ends.

/// `n` and `word`, the word in the plural unless `n` is one: `1 retry`,
/// `2 retries`, `3 dispatches`.
pub(crate) fn plural(n: u64, word: &str) -> String {
    if n == 1 {
        return format!("1 {word}");
    }
    let stem = word.strip_suffix('y');
    match stem {
        Some(stem) if !stem.ends_with(['a', 'e', 'i', 'o', 'u']) => format!("{n} {stem}ies"),
        _ if word.ends_with(['s', 'x']) || word.ends_with("ch") || word.ends_with("sh") => {
            format!("{n} {word}es")
        }
        _ => format!("{n} {word}s"),
    }
}

/// At most `max` characters of `text`, to quote back to a model: when
/// cut, cut where a word ends (never inside one: a model asked again
/// copies what it is shown, and once copied a cut "with ea…"), and
/// marked with how long the whole was. A text of one word longer than
/// `max` is cut at `max`.
pub(crate) fn excerpt(text: &str, max: usize) -> String {
    let Some((limit, _)) = text.char_indices().nth(max) else {
        return text.to_string();
    };
    let in_word = |c: char| c.is_alphanumeric() || c == '_';
    let head = &text[..limit];
    let next_in_word = text[limit..].chars().next().is_some_and(in_word);
    let cut = if next_in_word {
        match head.rfind(|c: char| !in_word(c)) {
            Some(end) => &head[..end],
            None => head,
        }
    } else {
        head
    };
    let cut = cut.trim_end();
    format!("{cut}… ({} characters in all)", text.chars().count())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_excerpt_ends_where_a_word_ends() {
        assert_eq!(excerpt("short", 10), "short");
        let schema = r#"{"type":"object","description":"Your answer, with each field."}"#;
        let cut = excerpt(schema, 52);
        assert_eq!(
            cut,
            r#"{"type":"object","description":"Your answer, with… (63 characters in all)"#
        );
        assert!(!cut.contains("with ea"), "{cut}");
        // Cut right after a word: the word is kept whole.
        assert_eq!(
            excerpt("one two three", 7),
            "one two… (13 characters in all)"
        );
        // One long word: cut where the limit falls.
        assert_eq!(excerpt(&"é".repeat(30), 5), "ééééé… (30 characters in all)");
    }

    #[test]
    fn plurals_follow_english() {
        assert_eq!(plural(1, "retry"), "1 retry");
        assert_eq!(plural(2, "retry"), "2 retries");
        assert_eq!(plural(0, "attempt"), "0 attempts");
        assert_eq!(plural(1, "attempt"), "1 attempt");
        assert_eq!(plural(3, "dispatch"), "3 dispatches");
        assert_eq!(plural(2, "day"), "2 days");
        assert_eq!(plural(4, "process"), "4 processes");
    }
}
