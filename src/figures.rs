//! How token counts and dollars read on screen and in sentences: one
//! format for every front, so the header, the stop sentence and the event
//! log agree on `12.3k` and `$0.042`.

/// A count with thousands separated: `12,345`.
pub(crate) fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// A count in at most four or five characters, rounded to the nearest:
/// `950`, `3.6k` (3,588), `12.3k`, `4.6M`; a count that rounds to a
/// thousand of one unit reads in the next (`1.0M`, not `1000k`).
pub(crate) fn compact(n: u64) -> String {
    if n < 1_000 {
        return n.to_string();
    }
    const UNITS: [(f64, &str); 3] = [(1e3, "k"), (1e6, "M"), (1e9, "G")];
    for (i, (unit, suffix)) in UNITS.iter().enumerate() {
        let value = n as f64 / unit;
        let last = i + 1 == UNITS.len();
        if value < 99.95 {
            return format!("{value:.1}{suffix}");
        }
        if value < 999.5 || last {
            return format!("{value:.0}{suffix}");
        }
    }
    unreachable!("the last unit always answers")
}

/// The parts of a call's tokens an endpoint counted apart, in words:
/// ` (1.2k cached · 300 reasoning)`, or nothing when it counted neither
/// (the sim never does, so its lines read as they always have).
pub(crate) fn token_parts(cached: u64, reasoning: u64) -> String {
    let parts: Vec<String> = [(cached, "cached"), (reasoning, "reasoning")]
        .into_iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!("{} {what}", compact(n)))
        .collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!(" ({})", parts.join(" · "))
    }
}

/// US dollars without the sign: cents from a dollar up (`12.35`), three
/// significant digits below (`0.042`, `0.000123`), `0` for nothing.
pub(crate) fn dollars(amount: f64) -> String {
    if !amount.is_finite() || amount <= 0.0 {
        return "0".into();
    }
    if amount >= 1.0 {
        return format!("{amount:.2}");
    }
    let decimals = (2 - amount.log10().floor() as i32).clamp(2, 10) as usize;
    let text = format!("{amount:.decimals$}");
    let text = text.trim_end_matches('0');
    text.strip_suffix('.').unwrap_or(text).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_parts_are_said_only_when_counted() {
        assert_eq!(token_parts(0, 0), "");
        assert_eq!(token_parts(1_200, 0), " (1.2k cached)");
        assert_eq!(token_parts(0, 80), " (80 reasoning)");
        assert_eq!(token_parts(300, 80), " (300 cached · 80 reasoning)");
    }

    #[test]
    fn counts_read_as_people_write_them() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(12_345_678), "12,345,678");
        assert_eq!(compact(950), "950");
        assert_eq!(compact(12_345), "12.3k");
        assert_eq!(compact(3_588), "3.6k", "rounded, not cut");
        assert_eq!(compact(1_049), "1.0k");
        assert_eq!(compact(99_949), "99.9k");
        assert_eq!(compact(99_999), "100k");
        assert_eq!(compact(123_456), "123k");
        assert_eq!(compact(999_499), "999k");
        assert_eq!(compact(999_999), "1.0M", "into the next unit");
        assert_eq!(compact(4_560_000), "4.6M");
        assert_eq!(compact(u64::MAX), "18446744074G");
    }

    #[test]
    fn dollars_keep_three_significant_digits_below_one() {
        assert_eq!(dollars(0.042), "0.042");
        assert_eq!(dollars(0.04213), "0.0421");
        assert_eq!(dollars(0.5), "0.5");
        assert_eq!(dollars(0.000123456), "0.000123");
        assert_eq!(dollars(12.345), "12.35");
        assert_eq!(dollars(0.0), "0");
        assert_eq!(dollars(1e-12), "0");
    }
}
