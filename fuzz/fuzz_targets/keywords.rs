//! The keyword automaton (`hooks::KeywordSet`) against the rule it
//! implements, and `hooks::find_all` (keyword by keyword for short
//! texts, the automaton past its bound) against the same rule: a keyword is found where it occurs with
//! no `[a-z0-9]` byte right before or after it.
//!
//! Input: keywords and then the text, separated by NUL bytes (the last
//! part is the text).
#![no_main]

use gk::testing::hooks::{find_all, KeywordSet};
use libfuzzer_sys::fuzz_target;

fn word(b: u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit()
}

fn naive(keyword: &str, text: &str) -> bool {
    let (t, k) = (text.as_bytes(), keyword.as_bytes());
    t.len() >= k.len()
        && (0..=t.len() - k.len()).any(|s| {
            &t[s..s + k.len()] == k
                && (s == 0 || !word(t[s - 1]))
                && (s + k.len() == t.len() || !word(t[s + k.len()]))
        })
}

fuzz_target!(|data: &[u8]| {
    let Ok(all) = std::str::from_utf8(data) else {
        return;
    };
    let mut parts: Vec<&str> = all.split('\0').collect();
    let text = parts.pop().unwrap_or("");
    parts.retain(|k| !k.is_empty());
    let got = KeywordSet::new(parts.iter().copied()).find(text);
    let want: Vec<bool> = parts.iter().map(|k| naive(k, text)).collect();
    assert_eq!(got, want, "keywords {parts:?} in {text:?}");
    let direct = find_all(&parts, text);
    assert_eq!(
        direct, want,
        "keywords {parts:?} in {text:?}, keyword by keyword"
    );
});
