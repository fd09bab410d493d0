//! Fitting text into cells: cleaning, truncating and padding by display
//! width, so wide characters and emoji never push a grid out of line.

use crate::sanitize::clean;
use unicode_width::UnicodeWidthChar;

/// `text` cleaned and cut to at most `width` columns, with `…` when cut.
pub(crate) fn fit(text: &str, width: usize) -> String {
    let text = clean(text);
    let mut out = String::new();
    let mut used = 0;
    let total: usize = text.chars().map(|c| c.width().unwrap_or(0)).sum();
    if total <= width {
        return text.into_owned();
    }
    let budget = width.saturating_sub(1);
    for c in text.chars() {
        let w = c.width().unwrap_or(0);
        if used + w > budget {
            break;
        }
        out.push(c);
        used += w;
    }
    if width > 0 {
        out.push('…');
    }
    out
}

/// The end of `text`, cleaned, in at most `width` columns: `…` and its
/// last characters when it is longer. Text being written is read at its
/// end.
pub(crate) fn tail(text: &str, width: usize) -> String {
    let text = clean(text);
    let total: usize = text.chars().map(|c| c.width().unwrap_or(0)).sum();
    if total <= width {
        return text.into_owned();
    }
    if width == 0 {
        return String::new();
    }
    let mut kept = Vec::new();
    let mut used = 0;
    for c in text.chars().rev() {
        let w = c.width().unwrap_or(0);
        if used + w > width - 1 {
            break;
        }
        kept.push(c);
        used += w;
    }
    std::iter::once('…').chain(kept.into_iter().rev()).collect()
}

/// `text` fitted to `width` and padded with spaces to exactly `width`.
pub(crate) fn pad(text: &str, width: usize) -> String {
    let mut out = fit(text, width);
    let used: usize = out.chars().map(|c| c.width().unwrap_or(0)).sum();
    out.extend(std::iter::repeat_n(' ', width.saturating_sub(used)));
    out
}

/// The flags, as `(name, on)`, whose state differs from `scenario`'s
/// defaults, as `+name` (turned on) or `-name` (turned off): how runs of
/// one scenario are told apart in the tabs and the picker.
pub(crate) fn flag_changes<'a>(
    flags: impl IntoIterator<Item = (&'a str, bool)>,
    scenario: &crate::scenario::Scenario,
) -> Vec<String> {
    flags
        .into_iter()
        .filter(|(name, on)| scenario.flags.get(*name).is_some_and(|d| d.default != *on))
        .map(|(name, on)| format!("{}{name}", if on { "+" } else { "-" }))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fits_by_display_width() {
        assert_eq!(fit("demand_analyst", 8), "demand_…");
        assert_eq!(fit("short", 8), "short");
        assert_eq!(fit("日本語テキスト", 5), "日本…");
        assert_eq!(pad("go", 5), "go   ");
        assert_eq!(pad("日本語", 5), "日本…");
        assert_eq!(fit("x\u{1b}[2Jy", 10), "xy");
        assert_eq!(fit("anything", 0), "");
        assert_eq!(tail("demand_analyst", 8), "…analyst");
        assert_eq!(tail("short", 8), "short");
        assert_eq!(tail("日本語テキスト", 5), "…スト");
        assert_eq!(tail("x\u{1b}[2Jy", 10), "xy");
        assert_eq!(tail("anything", 0), "");
    }
}
