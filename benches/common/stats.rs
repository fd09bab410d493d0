//! Order statistics of a bench's samples (milliseconds or MiB), and the
//! word a bar's check prints.

pub fn verdict(holds: bool) -> &'static str {
    if holds { "holds" } else { "MISSED" }
}

pub fn sorted(values: &[f64]) -> Vec<f64> {
    let mut values = values.to_vec();
    values.sort_by(f64::total_cmp);
    values
}

pub fn median(values: &[f64]) -> f64 {
    quantile(values, 0.5)
}

/// The sample below which a fraction `q` of `values` lies.
pub fn quantile(values: &[f64], q: f64) -> f64 {
    let values = sorted(values);
    let at = ((values.len() as f64 * q) as usize).min(values.len() - 1);
    values[at]
}

pub fn quartiles(values: &[f64]) -> (f64, f64) {
    (quantile(values, 0.25), quantile(values, 0.75))
}

pub fn least(values: &[f64]) -> f64 {
    values.iter().copied().fold(f64::INFINITY, f64::min)
}

pub fn most(values: &[f64]) -> f64 {
    values.iter().copied().fold(f64::NEG_INFINITY, f64::max)
}

/// The medians of three consecutive groups of `values` (rounds in their
/// order): how far apart they lie is the figure's spread.
pub fn group_medians(values: &[f64]) -> Vec<f64> {
    let third = (values.len() / 3).max(1);
    values.chunks(third).take(3).map(median).collect()
}
