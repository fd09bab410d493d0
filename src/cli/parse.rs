//! The parsers that turn an argument into a value, or into a usage error
//! (exit 2) before anything runs.

use conclave::scenario::PriceTable;
use std::path::PathBuf;

/// `--base-url` is checked as it is parsed, so that a malformed one is
/// refused before any dashboard or run starts.
pub(crate) fn parse_base_url(text: &str) -> Result<String, String> {
    use conclave::provider::openai;
    openai::base_url(text).map_err(|problem| format!("{}; {problem}", openai::BASE_URL_EXPECTED))
}

/// `--max-cost USD`: a number of US dollars, 0 or more.
pub(crate) fn parse_dollars(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(dollars) if dollars.is_finite() && dollars >= 0.0 => Ok(dollars),
        _ => Err(format!(
            "expected a number of US dollars, 0 or more (as 0.50), found {text:?}"
        )),
    }
}

pub(crate) fn parse_seeds(text: &str) -> Result<std::ops::RangeInclusive<u64>, String> {
    conclave::sweep::parse_seeds(text).map_err(|e| e.to_string())
}

pub(crate) fn parse_flag_values(text: &str) -> Result<(String, Vec<bool>), String> {
    conclave::sweep::parse_flag_values(text).map_err(|e| e.to_string())
}

/// `--parallel N`: a number of threads, 1 or more and at most
/// [`MAX_PARALLEL`](conclave::sweep::MAX_PARALLEL).
pub(crate) fn parse_threads(text: &str) -> Result<usize, String> {
    use conclave::sweep::MAX_PARALLEL;
    match text.parse::<usize>() {
        Ok(n) if (1..=MAX_PARALLEL).contains(&n) => Ok(n),
        _ => Err(format!(
            "expected a number of threads, 1 or more and at most {MAX_PARALLEL}, found {text:?}"
        )),
    }
}

pub(crate) fn parse_flag(text: &str) -> Result<(String, bool), String> {
    let (name, state) = text
        .split_once('=')
        .ok_or_else(|| format!("expected NAME=on or NAME=off, found {text:?}"))?;
    let on = match state {
        "on" | "true" | "1" => true,
        "off" | "false" | "0" => false,
        other => return Err(format!("expected on or off after {name}=, found {other:?}")),
    };
    if name.is_empty() {
        return Err("expected a flag name before =".into());
    }
    Ok((name.to_string(), on))
}

/// A pricing file, read and checked as it is parsed: a bad one is refused
/// (exit 2) with its errors placed in the file, before anything runs.
pub(crate) fn pricing_file(text: &str) -> Result<PriceTable, String> {
    conclave::scenario::load_prices(std::path::Path::new(text)).map_err(|e| e.to_string())
}

/// A folder the user named, refused at once (exit 2) when it is not one,
/// rather than when the first prompt is needed or never (with the sim).
pub(crate) fn existing_folder(text: &str) -> Result<PathBuf, String> {
    let path = PathBuf::from(text);
    match std::fs::metadata(&path) {
        Ok(meta) if meta.is_dir() => Ok(path),
        Ok(_) => Err(format!("{text} is not a folder")),
        Err(e) => Err(format!("cannot open the folder {text}: {e}")),
    }
}
