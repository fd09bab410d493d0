//! `conclave sweep --headless --nats URL`: the same checks and the same
//! document as a local sweep, with the runs done by workers. It prints
//! what it learned of the workers on stderr and never prints a run twice.
//! A sweep that lost its server prints the document of the runs it
//! gathered and names the ones missing.

use super::executor::{Gathered, RemoteSweepError, Until, run_nats};
use super::outage;
use crate::exit::Exit;
use crate::output;
use crate::sweep::{SweepArgs, Tally, prepare};
use crate::words::plural;
use std::sync::atomic::AtomicBool;

/// Run the sweep on the workers of the server at `url` and print its
/// document on stdout.
pub fn sweep_headless(args: SweepArgs, url: &str) -> Exit {
    let sweep = match prepare(args) {
        Ok(sweep) => sweep,
        Err(message) => {
            output::message(&message);
            return Exit::BadInput;
        }
    };
    let bound = match outage::bound(|name| std::env::var(name).ok()) {
        Ok(bound) => bound,
        Err(message) => {
            output::message(&format!("conclave: {message}"));
            return Exit::BadInput;
        }
    };
    let mut tally = Tally::new(&sweep.plan);
    output::message(&format!(
        "conclave: {} of {} go to the workers of {} (start them with `conclave worker --nats {}`)",
        runs_text(tally.total()),
        sweep.source,
        crate::nats::shown_url(url),
        crate::nats::shown_url(url),
    ));
    let bar = progress_bar(tally.total());
    let never = AtomicBool::new(false);
    let ran = run_nats(
        url,
        &sweep.scenario,
        Some(&sweep.source),
        sweep.plan.jobs().collect(),
        &sweep.setup,
        Until {
            cancel: &never,
            outage: bound,
        },
        |result| {
            if tally.add(result) {
                bar.inc(1);
            }
        },
    );
    bar.finish_and_clear();
    match ran {
        Ok(gathered) => {
            output::message(&summary(tally.done(), &gathered));
            output::document(&sweep.document(&tally));
            Exit::Ok
        }
        Err(error @ RemoteSweepError::ServerLost { .. }) => {
            output::message(&format!("conclave: {error}"));
            let missing: Vec<String> = sweep
                .plan
                .jobs()
                .filter(|job| !tally.has(&job.id))
                .map(|job| job.id)
                .collect();
            output::message(&missing_text(tally.done(), &missing));
            output::document(&sweep.document(&tally));
            error.exit()
        }
        Err(error) => {
            output::message(&format!("conclave: {error}"));
            error.exit()
        }
    }
}

/// How many of the LISTED first missing runs are named.
const LISTED: usize = 20;

/// "the document holds 12 runs; 388 missing: c0-s13, c0-s14, … and 368
/// more", or every missing run when there are few.
fn missing_text(done: usize, missing: &[String]) -> String {
    let mut named = missing
        .iter()
        .take(LISTED)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if missing.len() > LISTED {
        named.push_str(&format!(" and {} more", missing.len() - LISTED));
    }
    format!(
        "conclave: the document below holds the {} gathered; {} missing: {named}",
        runs_text(done),
        missing.len()
    )
}

/// One line on where the runs went: how many workers, how many jobs ran
/// again because their worker stopped, how many results were repeats.
fn summary(runs: usize, gathered: &Gathered) -> String {
    let workers = gathered.workers.len();
    format!(
        "conclave: {} by {}; {} ran again after their worker stopped; {} dropped",
        runs_text(runs),
        plural(workers as u64, "worker"),
        gathered.redelivered,
        plural(gathered.duplicates as u64, "repeated result"),
    )
}

/// "1 run", "400 runs".
fn runs_text(n: usize) -> String {
    plural(n as u64, "run")
}

/// A bar on stderr, drawn only when stderr is a terminal.
fn progress_bar(total: usize) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(total as u64),
        indicatif::ProgressDrawTarget::stderr(),
    );
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{bar:40} {pos}/{len} runs on workers  {elapsed_precise}",
    ) {
        bar.set_style(style);
    }
    bar
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lost_sweep_names_the_runs_it_misses() {
        let few: Vec<String> = ["c0-s2", "c1-s2"].map(String::from).to_vec();
        assert_eq!(
            missing_text(3, &few),
            "conclave: the document below holds the 3 runs gathered; 2 missing: c0-s2, c1-s2"
        );
        let many: Vec<String> = (1..=25).map(|seed| format!("c0-s{seed}")).collect();
        let said = missing_text(0, &many);
        assert!(said.contains("25 missing: c0-s1, c0-s2,"), "{said}");
        assert!(said.ends_with("c0-s20 and 5 more"), "{said}");
    }

    #[test]
    fn the_summary_says_where_the_runs_went() {
        let gathered = Gathered {
            redelivered: 2,
            duplicates: 1,
            workers: ["a".to_string(), "b".to_string()].into(),
        };
        assert_eq!(
            summary(400, &gathered),
            "conclave: 400 runs by 2 workers; 2 ran again after their worker stopped; 1 repeated result dropped"
        );
    }
}
