use super::*;
use proptest::prelude::*;
use serde_json::json;

const KEY: &str = "sk-proj-Zq4tW8mN2xR7vB1cK9pL3sD6";

fn scrubber(secrets: &[&str]) -> Scrubber {
    let mut scrubber = Scrubber::new();
    for secret in secrets {
        scrubber.add(secret);
    }
    scrubber
}

/// Every run of WINDOW characters of `secret`.
fn windows(secret: &str) -> Vec<String> {
    let chars: Vec<char> = secret.chars().collect();
    chars.windows(WINDOW).map(|w| w.iter().collect()).collect()
}

fn assert_no_fragment(text: &str, secret: &str) {
    for window in windows(secret) {
        assert!(
            !text.contains(&window),
            "{window:?} of the secret survives in {text:?}"
        );
    }
}

#[test]
fn nothing_registered_changes_nothing() {
    let scrubber = Scrubber::new();
    assert!(matches!(
        scrubber.scrub("Bearer sk-anything-at-all"),
        Cow::Borrowed(_)
    ));
    let mut value = json!({"a": ["b", {"c": "d"}]});
    assert!(!scrubber.scrub_value(&mut value));
}

#[test]
fn the_key_and_every_run_of_eight_of_its_characters_are_masked() {
    let scrubber = scrubber(&[KEY]);
    assert_eq!(
        scrubber.scrub(&format!("Authorization: Bearer {KEY}.")),
        format!("Authorization: Bearer {MASK}.")
    );
    for window in windows(KEY) {
        let text = format!("echo: <{window}> done");
        assert_eq!(scrubber.scrub(&text), format!("echo: <{MASK}> done"));
    }
    let tail: String = KEY.chars().skip(KEY.len() - 12).collect();
    let echo = format!("Bearer *** {tail}");
    assert_eq!(scrubber.scrub(&echo), format!("Bearer *** {MASK}"));
    for cut in WINDOW..KEY.len() {
        let (prefix, suffix) = (&KEY[..cut], &KEY[KEY.len() - cut..]);
        assert_no_fragment(&scrubber.scrub(&format!("x{prefix}y")), KEY);
        assert_no_fragment(&scrubber.scrub(&format!("x{suffix}y")), KEY);
    }
}

#[test]
fn shorter_runs_and_unrelated_text_stay() {
    let scrubber = scrubber(&[KEY]);
    let seven = &KEY[3..10];
    let text = format!("the word {seven} and sk-proj_other");
    assert_eq!(scrubber.scrub(&text), text);
    // Eight characters are a run: a key's common prefix is masked too.
    assert_eq!(scrubber.scrub("sk-proj-other"), format!("{MASK}other"));
}

#[test]
fn two_echoes_and_overlapping_runs_each_become_one_mask() {
    let scrubber = scrubber(&[KEY, "ghp_0123456789abcdefXYZ"]);
    let text = format!("{KEY}{KEY} and ghp_0123456789abcdef, {}", &KEY[5..20]);
    assert_eq!(scrubber.scrub(&text), format!("{MASK} and {MASK}, {MASK}"));
}

#[test]
fn a_short_secret_is_masked_whole() {
    let scrubber = scrubber(&["pa55wd"]);
    assert_eq!(
        scrubber.scrub("x=pa55wd;y=pa55"),
        format!("x={MASK};y=pa55")
    );
}

#[test]
fn secrets_beyond_ascii_are_masked_by_characters() {
    let secret = "clé-секрет-密钥-ünïcødé";
    let scrubber = scrubber(&[secret]);
    for window in windows(secret) {
        assert_eq!(scrubber.scrub(&format!("«{window}»")), format!("«{MASK}»"));
    }
    assert_no_fragment(&scrubber.scrub(&format!("a{secret}b{secret}")), secret);
}

#[test]
fn json_strings_and_keys_are_scrubbed_in_place() {
    let scrubber = scrubber(&[KEY]);
    let mut value = json!({
        "summary": format!("the header was Bearer {KEY}"),
        KEY: [1, {"nested": &KEY[4..]}],
        "confidence": 0.5,
    });
    assert!(scrubber.scrub_value(&mut value));
    assert_no_fragment(&value.to_string(), KEY);
    assert_eq!(value["confidence"], 0.5);
    assert_eq!(value[MASK][1]["nested"], MASK);
}

#[test]
fn registered_secrets_reach_model_text_even_behind_json_escapes() {
    // A key of its own: the registry is the process's.
    let key = "sk-escape-test-7h3Kq9Lm2Pz8";
    register(key);
    assert!(is_active());
    let escaped: String = key
        .chars()
        .map(|c| format!("\\u{:04x}", c as u32))
        .collect();
    let text = format!("{{\"summary\": \"key {escaped}\"}}");
    let clean = scrub_model_text(&text);
    let decoded: Value = serde_json::from_str(&clean).unwrap();
    assert_no_fragment(&decoded.to_string(), key);
    assert_eq!(decoded["summary"], format!("key {MASK}"));
    assert_eq!(scrub_model_text("no secret here"), "no secret here");
    assert_no_fragment(&scrub(&format!("Bearer {key}")), key);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn no_run_of_eight_survives_in_any_text(
        secret in "[A-Za-z0-9_-]{8,48}",
        before in "\\PC{0,40}",
        after in "\\PC{0,40}",
        from in 0usize..48,
        len in 8usize..48,
    ) {
        let scrubber = scrubber(&[&secret]);
        let from = from.min(secret.len() - WINDOW);
        let to = (from + len).min(secret.len());
        let text = format!("{before}{}{after}{}", &secret[from..to], secret);
        let clean = scrubber.scrub(&text);
        if !secret.contains("redacted") {
            assert_no_fragment(&clean, &secret);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Text made of pieces of the secrets, their neighbours in the
    /// alphabet and characters beyond ASCII: the bytes' way finds the
    /// ranges the characters' way does, hit for hit.
    #[test]
    fn runs_of_ascii_secrets_are_found_by_bytes_as_by_characters(
        secrets in proptest::collection::vec("[A-Za-z0-9_-]{8,24}", 1..3),
        pieces in proptest::collection::vec(
            (0usize..3, 0usize..24, 0usize..24, "[a-z0-9é€ -]{0,6}"), 0..12),
    ) {
        let refs: Vec<&str> = secrets.iter().map(String::as_str).collect();
        let scrubber = scrubber(&refs);
        let mut text = String::new();
        for (which, from, len, noise) in pieces {
            let secret = &secrets[which % secrets.len()];
            let from = from.min(secret.len());
            let to = (from + len).min(secret.len());
            text.push_str(&secret[from..to]);
            text.push_str(&noise);
        }
        prop_assert_eq!(
            scrubber.window_hits_by_bytes(&text),
            scrubber.window_hits_by_chars(&text),
            "{:?}", text
        );
    }
}

#[test]
fn a_secret_beyond_ascii_is_still_found_among_ascii_ones() {
    let scrubber = scrubber(&[KEY, "clé-secrète-ÆØÅ-9"]);
    assert_eq!(
        scrubber.scrub(&format!("a {KEY} b secrète-ÆØÅ c")),
        format!("a {MASK} b {MASK} c")
    );
}
