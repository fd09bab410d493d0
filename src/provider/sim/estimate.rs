//! The simulated model's token counts. No tokenizer runs: a call's tokens
//! are estimated from the length of its text, one token for every four
//! characters, rounded up (the usual rule of thumb for English): the
//! request's payload as compact JSON in, the answer out (a JSON answer as
//! compact JSON). The same call always counts the same, so a run's usage
//! is as reproducible as its result.

use crate::bus::TokenUsage;
use crate::provider::{ModelOutput, ModelRequest};
use serde_json::Value;

/// Characters a token stands for.
const CHARS_PER_TOKEN: u64 = 4;

pub(crate) fn estimate(request: &ModelRequest, output: &ModelOutput) -> TokenUsage {
    let out = match output {
        ModelOutput::Text(text) => text.chars().count() as u64,
        ModelOutput::Json(value) => json_chars(value),
    };
    TokenUsage {
        input: tokens(json_chars(&request.payload)),
        output: tokens(out),
        cost_usd: None,
        estimated: true,
    }
}

fn tokens(chars: u64) -> u64 {
    chars.div_ceil(CHARS_PER_TOKEN)
}

/// Characters of `value` written as compact JSON, counted as it is
/// written rather than held.
fn json_chars(value: &Value) -> u64 {
    struct Counter(u64);
    impl std::io::Write for Counter {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            // Every byte but a UTF-8 continuation byte starts a character.
            let starts = bytes.iter().filter(|b| (**b & 0xC0) != 0x80).count();
            self.0 += starts as u64;
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter(0);
    // Writing to a counter cannot fail.
    let _ = serde_json::to_writer(&mut counter, value);
    counter.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::Purpose;
    use serde_json::json;

    #[test]
    fn four_characters_make_a_token_rounded_up() {
        let request = ModelRequest {
            purpose: Purpose::Plan,
            payload: json!({"goal": "é"}),
        };
        // {"goal":"é"} is 12 characters; "Ready." is 6.
        let usage = estimate(&request, &ModelOutput::Text("Ready.".into()));
        assert_eq!((usage.input, usage.output, usage.estimated), (3, 2, true));
        let usage = estimate(&request, &ModelOutput::Json(json!({"a": 1})));
        assert_eq!(usage.output, 2, "{{\"a\":1}} is 7 characters");
        assert_eq!(
            estimate(&request, &ModelOutput::Text(String::new())).output,
            0
        );
        assert_eq!(usage.cost_usd, None, "the gateway prices it");
    }
}
