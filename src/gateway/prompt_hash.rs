//! A model call's prompt as a cassette matches it: SHA-256 of the prompt's
//! file name, its compiled-in text, the JSON payload and its rounds of
//! repair. Recordings hold these hashes, so how they are written never
//! changes.

use crate::provider::ModelRequest;
use crate::provider::prompts::Prompt;
use sha2::{Digest, Sha256};
use std::sync::{Mutex, PoisonError};

/// The prompt of a model call, hashed: its file's name, its compiled-in
/// text, the JSON payload and its rounds of repair, as lowercase hex.
pub(super) fn prompt_sha256(request: &ModelRequest) -> String {
    let mut hash = after_prompt(request.prompt);
    // Written into the hash as it is serialized: a final brief's payload
    // holds every task's result, and is not copied into a string. Its
    // characters are counted on the way, for the sim's token estimate.
    request.write_payload(Hashing(&mut hash));
    // A repair asks again after the failed answers: each one and what was
    // wrong with it is part of what was asked. A first ask hashes as it
    // always did.
    for turn in &request.repair {
        for part in [&turn.answer, &turn.error] {
            hash.update(b"\n");
            hash.update(part.as_bytes());
        }
    }
    lowercase_hex(&hash.finalize())
}

/// The hash of a prompt's file name and compiled-in text, which every
/// call asked with that prompt starts with. Kept per prompt: the text is
/// several times a member call's payload, and the scale bench's
/// `coordinator_100k` (100,000 member calls of one prompt) hashed it at
/// every call.
fn after_prompt(prompt: &Prompt) -> Sha256 {
    // A prompt's text is compiled in: where it lies and its length say
    // which it is.
    type Key = (usize, usize, usize, usize);
    static KEPT: Mutex<Vec<(Key, Sha256)>> = Mutex::new(Vec::new());
    let key = (
        prompt.file.as_ptr() as usize,
        prompt.file.len(),
        prompt.text.as_ptr() as usize,
        prompt.text.len(),
    );
    let mut kept = KEPT.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((_, hash)) = kept.iter().find(|(kept, _)| *kept == key) {
        return hash.clone();
    }
    let mut hash = Sha256::new();
    hash.update(prompt.file.as_bytes());
    hash.update(b"\n");
    hash.update(prompt.text.as_bytes());
    hash.update(b"\n");
    kept.push((key, hash.clone()));
    hash
}

/// `bytes` as lowercase hex, two digits a byte: written digit by digit, as
/// a formatted string a byte cost a model call more than its hash did.
pub(crate) fn lowercase_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut hex = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        hex.push(char::from(DIGITS[usize::from(byte >> 4)]));
        hex.push(char::from(DIGITS[usize::from(byte & 0x0f)]));
    }
    hex
}

/// Bytes written into a hash.
struct Hashing<'a>(&'a mut Sha256);

impl std::io::Write for Hashing<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.update(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rounds_of_repair_change_the_prompts_hash_and_none_leave_it_as_it_was() {
        use crate::provider::contract::RepairTurn;
        use crate::provider::prompts::Prompt;
        let request = ModelRequest::new(
            crate::provider::Purpose::unscripted("plan"),
            &Prompt::UNUSED,
            json!({"a": 1}),
        );
        // SHA-256 of "unused.md\n\n{\"a\":1}", as every recording so far has it.
        let mut hash = Sha256::new();
        hash.update(b"unused.md\n\n{\"a\":1}");
        let old: String = hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(prompt_sha256(&request), old);
        let turn = |answer: &str, error: &str| RepairTurn {
            answer: answer.into(),
            error: error.into(),
        };
        let mut once = request.clone();
        once.repair = vec![turn("{}", "missing key `verdict`")];
        let mut shifted = request.clone();
        shifted.repair = vec![turn("{}m", "issing key `verdict`")];
        let hashes = [
            prompt_sha256(&request),
            prompt_sha256(&once),
            prompt_sha256(&shifted),
        ];
        assert!(hashes[0] != hashes[1] && hashes[1] != hashes[2] && hashes[0] != hashes[2]);
    }

    #[test]
    fn a_prompts_kept_hash_gives_the_hash_of_its_whole_text_for_each_prompt() {
        use crate::provider::prompts::Prompt;
        static FIRST: Prompt = Prompt {
            file: "first.md",
            text: "You answer in JSON.",
            json: true,
        };
        static SECOND: Prompt = Prompt {
            file: "second.md",
            text: "You answer in words.",
            json: false,
        };
        let whole = |prompt: &Prompt, payload: &str| {
            let mut hash = Sha256::new();
            hash.update(format!("{}\n{}\n{payload}", prompt.file, prompt.text));
            lowercase_hex(&hash.finalize())
        };
        // Each prompt twice and in turn: the second call of each starts
        // from the hash kept for it, never from the other prompt's.
        for (prompt, payload) in [(&FIRST, 1), (&SECOND, 2), (&FIRST, 3), (&SECOND, 4)] {
            let purpose = crate::provider::Purpose::unscripted("turn:a");
            let request = ModelRequest::new(purpose, prompt, json!({"n": payload}));
            let expected = whole(prompt, &format!("{{\"n\":{payload}}}"));
            assert_eq!(prompt_sha256(&request), expected, "{}", prompt.file);
        }
    }
}
