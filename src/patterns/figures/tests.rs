//! The declarations hold together: one order keeps every pattern's, and
//! a sweep reads only counts its pattern keeps.

use super::*;
use crate::bus::figures::ANSWER;

/// Whether `order` lists `names` in their order.
fn keeps(order: &[&str], names: &[&str]) -> bool {
    let places: Vec<Option<usize>> = names
        .iter()
        .map(|name| order.iter().position(|o| o == name))
        .collect();
    places.iter().all(Option::is_some) && places.windows(2).all(|w| w[0] < w[1])
}

#[test]
fn one_summary_order_keeps_every_pattern_s_own() {
    let (values, counts) = summary_order();
    for pattern in PATTERNS {
        let figures = figures_of(*pattern);
        let own: Vec<&str> = figures.summary.iter().map(|v| v.name).collect();
        assert!(keeps(values, &own), "{pattern}: {own:?} in {values:?}");
        assert!(
            own.contains(&ANSWER.name),
            "{pattern} declares where its answer goes"
        );
        let own: Vec<&str> = figures.counts.iter().map(|c| c.name).collect();
        assert!(keeps(counts, &own), "{pattern}: {own:?} in {counts:?}");
    }
}

#[test]
fn a_sweep_reads_counts_its_pattern_keeps_and_names_each_measure_once() {
    for pattern in PATTERNS {
        let figures = figures_of(*pattern);
        for swept in figures.swept {
            if swept.read == Read::Count {
                assert!(
                    figures.counts.iter().any(|c| c.name == swept.name),
                    "{pattern} sweeps {} but keeps no such count",
                    swept.name
                );
            }
        }
        let mut names: Vec<&str> = figures.swept.iter().map(|s| s.name).collect();
        names.dedup();
        assert_eq!(names.len(), figures.swept.len(), "{pattern}");
    }
}

#[test]
fn lists_merge_keeping_each_one_s_order() {
    let merged = merged([vec!["b", "c"], vec!["a", "b"], vec!["c", "d"]]);
    assert_eq!(merged, ["a", "b", "c", "d"]);
    assert!(keeps(&merged, &["a", "b"]) && keeps(&merged, &["c", "d"]));
    assert!(!keeps(&merged, &["d", "a"]));
}

#[test]
fn each_patterns_compare_rules_report_the_figures_it_declares() {
    for pattern in PATTERNS {
        assert_eq!(
            crate::patterns::compare_rules(*pattern).figures(),
            figures_of(*pattern),
            "{pattern}"
        );
    }
}
