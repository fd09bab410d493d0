//! What the probe's answers say: a line per request as it is answered,
//! then the mode `auto` settles on (walked down by the run's own policy),
//! what was refused, and the profile when asked for.

use super::{Answer, Asked, PROBE_TOKENS, began, ignored, not_ok};
use crate::exit::Exit;
use crate::output;
use crate::provider::contract::Finish;
use crate::provider::openai::profile::{EndpointProfile, PROFILE_VERSION, Refusable, output_mode};
use crate::provider::openai::{OpenAiConfig, OpenAiError, recordable};
use crate::provider::output::{Feature, Mode, OutputPolicy};
use crate::scenario::OutputMode;
use std::collections::BTreeMap;

/// The request's line: accepted, refused (what, with the endpoint's
/// words) or no answer (why), and how long it took.
pub(super) fn print(answer: &Answer) {
    let millis = answer.took.as_millis();
    let ignored = ignored(answer);
    let verdict = match &answer.result {
        Ok(completion) if completion.cut_after.is_some() => format!(
            "accepted, but the answer ran past its token limit and Conclave cut it after {} pieces, {millis} ms",
            completion.cut_after.unwrap_or_default()
        ),
        // Tokens estimated on an answer Conclave did not cut: none came.
        Ok(completion)
            if answer.asked == Asked::Stream
                && completion.usage.is_none_or(|usage| usage.estimated) =>
        {
            format!("accepted, but no usage came with the stream, {millis} ms")
        }
        Ok(_) if answer.asked == Asked::Stream => format!("accepted, usage counted, {millis} ms"),
        Ok(_) if ignored.is_some() => format!(
            "accepted but {}, {millis} ms; the limit goes out as max_tokens",
            ignored.unwrap_or_default()
        ),
        Ok(completion)
            if completion.finish == Finish::Length && answer.asked != Asked::TokenLimit =>
        {
            format!(
                "accepted, {millis} ms; but the answer was cut at its limit of {PROBE_TOKENS} tokens before it was complete: it began {}",
                began(completion)
            )
        }
        Ok(_) => match not_ok(answer) {
            Some(began) => format!(
                "accepted, {millis} ms; but the answer is not {{\"ok\": true}}: it began {began}"
            ),
            None => format!("accepted, {millis} ms"),
        },
        Err(OpenAiError::Ignored { feature, said, .. }) => {
            format!("ignored {}, {millis} ms: {said}", feature.as_str())
        }
        Err(OpenAiError::Unsupported {
            status,
            feature,
            said,
        }) => format!(
            "refused {}, HTTP {status}, {millis} ms: {said}",
            feature.as_str()
        ),
        // The same request whole is accepted (it went before): the
        // stream's options are what the endpoint refuses.
        Err(OpenAiError::BadRequest { status, message }) if answer.asked == Asked::Stream => {
            format!("refused stream_options, HTTP {status}, {millis} ms{message}")
        }
        Err(e) => format!("no answer, {millis} ms: {e}"),
    };
    let line = format!("{}: {verdict}", answer.asked.label());
    output::line(&crate::secrets::scrub(&line));
}

/// What the answers say, a run's way: each refusal by name, and the mode
/// `auto` walks down to, by the run's own policy.
struct Learned {
    refused: BTreeMap<Refusable, String>,
    settled: Result<Mode, String>,
    /// Requests that got no answer the probe can read.
    unanswered: usize,
}

fn learned(answers: &[Answer]) -> Learned {
    let mut refused = BTreeMap::new();
    let mut unanswered = 0;
    let accepted = |asked: Asked| answers.iter().any(|a| a.asked == asked && a.result.is_ok());
    for answer in answers {
        match &answer.result {
            Ok(_) => {
                if let Some(words) = ignored(answer) {
                    refused.insert(Refusable::MaxCompletionTokens, words);
                }
            }
            Err(OpenAiError::Unsupported { feature, said, .. }) => {
                refused.insert(refusable(*feature), said.clone());
            }
            Err(OpenAiError::Ignored { feature, said, .. }) => {
                refused.insert(refusable(*feature), format!("ignored: {said}"));
            }
            // The same request whole was accepted: what the endpoint
            // refuses is the stream's options.
            Err(OpenAiError::BadRequest { message, .. })
                if answer.asked == Asked::Stream && accepted(Asked::Mode(Mode::Prompted)) =>
            {
                let said = message.trim_start_matches(": ").to_string();
                refused.insert(Refusable::StreamOptions, said);
            }
            Err(_) => unanswered += 1,
        }
    }
    Learned {
        refused,
        settled: settles(answers),
        unanswered,
    }
}

fn refusable(feature: Feature) -> Refusable {
    match feature {
        Feature::JsonSchema => Refusable::JsonSchema,
        Feature::Tools => Refusable::Tools,
        Feature::ResponseFormat => Refusable::ResponseFormat,
        Feature::Temperature => Refusable::Temperature,
        Feature::MaxCompletionTokens => Refusable::MaxCompletionTokens,
    }
}

/// The mode `auto` settles on: from `native` down, one refusal by name
/// at a time, as a run's policy moves; else where it would stop.
fn settles(answers: &[Answer]) -> Result<Mode, String> {
    let policy = OutputPolicy::new(OutputMode::Auto, None);
    loop {
        let mode = policy.now().mode;
        // Tool mode holds only when a turn's several functions are called
        // too: the first of its answers that failed, else the one asked.
        let asked_in = |a: &&Answer| {
            a.asked == Asked::Mode(mode) || (mode == Mode::Tool && a.asked == Asked::Required)
        };
        let mut asked = answers.iter().filter(asked_in);
        let first = asked.clone().next();
        let answer = asked
            .find(|a| a.result.is_err())
            .or(first)
            .ok_or_else(|| format!("{} was not asked", mode.as_str()))?;
        match &answer.result {
            Ok(_) => return Ok(mode),
            Err(
                OpenAiError::Unsupported { feature, said, .. }
                | OpenAiError::Ignored { feature, said, .. },
            ) => match policy.adapt(*feature, said) {
                Some(adapted) if adapted.first => continue,
                _ => return Err(format!("{} was refused: {said}", mode.as_str())),
            },
            Err(e) => return Err(format!("{} got no answer: {e}", mode.as_str())),
        }
    }
}

/// The summary lines, the profile when asked for, and the exit status:
/// 0 when every request was answered and `auto` settles on a mode, 3 when
/// not (no profile is then written).
pub(super) fn report(
    config: &OpenAiConfig,
    answers: &[Answer],
    write: Option<&std::path::Path>,
) -> Exit {
    let learned = learned(answers);
    let settled = match &learned.settled {
        Ok(mode) => mode.as_str().to_string(),
        Err(why) => format!("none, a run in auto would stop: {why}"),
    };
    output::line(&crate::secrets::scrub(&format!(
        "auto settles on: {settled}"
    )));
    let refused: Vec<&str> = learned.refused.keys().map(|r| r.as_str()).collect();
    let refused = if refused.is_empty() {
        "nothing".to_string()
    } else {
        refused.join(", ")
    };
    output::line(&format!("refused: {refused}"));
    let Ok(mode) = learned.settled else {
        return incomplete(write, "auto settles on no mode");
    };
    if learned.unanswered > 0 {
        let why = format!(
            "{} of {} requests got no answer",
            learned.unanswered,
            answers.len()
        );
        return incomplete(write, &why);
    }
    let Some(path) = write else {
        return Exit::Ok;
    };
    let profile = EndpointProfile {
        endpoint_profile: PROFILE_VERSION,
        base_url: recordable(&config.base_url),
        model: config.model.clone(),
        output: output_mode(mode),
        refused: learned.refused,
        stream_usage: stream_usage(answers),
    };
    let text = crate::secrets::scrub(&profile.to_json()).into_owned();
    match std::fs::write(path, text) {
        Ok(()) => {
            output::line(&format!("profile written to {}", path.display()));
            Exit::Ok
        }
        Err(e) => {
            let path = path.display();
            output::message(&format!(
                "conclave: --write {path}: cannot write the profile: {e}"
            ));
            Exit::BadInput
        }
    }
}

/// Whether the stream the probe asked for brought its usage: not when the
/// usage is an estimate of an answer Conclave did not cut (none came); no
/// telling when the stream got no answer, or was cut.
fn stream_usage(answers: &[Answer]) -> Option<bool> {
    let stream = answers.iter().find(|a| a.asked == Asked::Stream)?;
    match &stream.result {
        Ok(completion) if completion.cut_after.is_none() => {
            Some(completion.usage.is_some_and(|usage| !usage.estimated))
        }
        _ => None,
    }
}

/// Exit 3, saying why and that no profile was written.
fn incomplete(write: Option<&std::path::Path>, why: &str) -> Exit {
    let written = match write {
        Some(path) => format!("; no profile written to {}", path.display()),
        None => String::new(),
    };
    output::message(&format!(
        "conclave: the probe is incomplete: {why}{written}"
    ));
    Exit::Stopped
}
