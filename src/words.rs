//! Counting words: the one plural rule every front uses (the event log,
//! the dashboard, stop sentences), so that no screen says "1 retries".

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

#[cfg(test)]
mod tests {
    use super::*;

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
