//! Reading what the hooks did not write: the event on stdin (below), and
//! the two small files (task_state.json, gk.json) through the crate's one
//! bounded reader, [`crate::bounded`] (opened without blocking, checked on
//! the open handle, read up to a cap). Python's `json` module accepts unpaired UTF-16 surrogate
//! escapes (`"\ud800"`), which `serde_json` refuses; so that such a document
//! is not lost, a failed parse is retried once with each unpaired surrogate
//! escape replaced by `\ufffd`.

use std::io::Read;

use serde_json::{Map, Value};

/// The most of stdin the prompt hook keeps: far more than any prompt a
/// person sends (Claude Code's event is the prompt plus a few short
/// fields), and small enough that parsing it, lower-casing the prompt and
/// matching keywords stay well inside a tight memory limit.
pub const MAX_EVENT_BYTES: usize = 16 << 20;

/// How much of stdin is read at most, kept or not: past the kept part it is
/// drained (so Claude Code's write never meets a closed pipe), but not for
/// ever: an endless stream (`yes |`, a device) ends the hook here.
pub const MAX_STDIN_BYTES: u64 = 1 << 30;

/// What the hook read of stdin.
#[derive(Debug, Default)]
pub struct Input {
    /// The first bytes, at most the `keep` asked for.
    pub bytes: Vec<u8>,
    /// Everything stdin held was kept (nothing was drained unkept).
    pub complete: bool,
}

/// Read `r` to its end (at most [`MAX_STDIN_BYTES`]), keeping the first
/// `keep` bytes; the rest is read in small chunks and dropped, so memory
/// stays at `keep` however long the input is. A read error ends the input.
pub fn read_input(mut r: impl Read, keep: usize) -> Input {
    // The kept part goes straight into the buffer, which grows with what
    // arrives: an event of a few hundred bytes costs no large zeroed
    // buffer (a fresh 64 KiB one was a tenth of the prompt hook's
    // instructions and 16 page faults).
    let mut bytes = Vec::new();
    let limit = (keep as u64).min(MAX_STDIN_BYTES);
    if (&mut r).take(limit).read_to_end(&mut bytes).is_err() {
        // A read error ends the input.
        return Input {
            bytes,
            complete: true,
        };
    }
    let mut total = bytes.len() as u64;
    let mut complete = total < MAX_STDIN_BYTES;
    if bytes.len() < keep && complete {
        // The end came before the kept part was full.
        return Input { bytes, complete };
    }
    // Past the kept part (rare): drained in large reads, nothing kept.
    let mut chunk = vec![0u8; 64 << 10];
    while total < MAX_STDIN_BYTES {
        let n = match r.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        total += n as u64;
        complete = false;
    }
    Input { bytes, complete }
}

/// `bytes` as text, each invalid sequence replaced by U+FFFD as
/// `String::from_utf8_lossy` does, but at most `max` bytes of text (cut at
/// a character), and whether some was left out. An invalid byte becomes
/// three bytes of text, so a kept part of such bytes would triple, and
/// every copy the parse makes after it with it. Valid UTF-8 within `max`
/// is borrowed, not copied.
pub fn lossy_within(bytes: &[u8], max: usize) -> (std::borrow::Cow<'_, str>, bool) {
    if let Ok(text) = std::str::from_utf8(bytes) {
        if text.len() <= max {
            return (std::borrow::Cow::Borrowed(text), false);
        }
    }
    let whole: usize = bytes
        .utf8_chunks()
        .map(|c| c.valid().len() + if c.invalid().is_empty() { 0 } else { 3 })
        .sum();
    let mut out = String::with_capacity(whole.min(max));
    for chunk in bytes.utf8_chunks() {
        let valid = chunk.valid();
        if out.len() + valid.len() > max {
            let mut end = max - out.len();
            while !valid.is_char_boundary(end) {
                end -= 1;
            }
            out.push_str(&valid[..end]);
            return (std::borrow::Cow::Owned(out), true);
        }
        out.push_str(valid);
        if !chunk.invalid().is_empty() {
            if out.len() + 3 > max {
                return (std::borrow::Cow::Owned(out), true);
            }
            out.push('\u{FFFD}');
        }
    }
    (std::borrow::Cow::Owned(out), false)
}

/// The top-level members of a JSON object whose text was cut off: each
/// member read whole, and a string member cut by the end read up to the
/// cut (its name returned too). `None` when the text does not start as an
/// object. Linear, and no recursion however deep the values nest (a value
/// nested deeper than the JSON reader allows is left out).
pub fn members_of_prefix(text: &str) -> Option<(Map<String, Value>, Option<String>)> {
    let b = text.as_bytes();
    let skip_ws = |mut i: usize| {
        while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r') {
            i += 1;
        }
        i
    };
    let mut map = Map::new();
    let mut i = skip_ws(0);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    i += 1;
    loop {
        i = skip_ws(i);
        match b.get(i) {
            None | Some(b'}') => return Some((map, None)),
            Some(b',') => {
                i += 1;
                continue;
            }
            Some(b'"') => {}
            Some(_) => return Some((map, None)),
        }
        let Some(key_end) = string_end(b, i) else {
            return Some((map, None));
        };
        let Ok(key) = serde_json::from_str::<String>(&text[i..key_end]) else {
            return Some((map, None));
        };
        i = skip_ws(key_end);
        if b.get(i) != Some(&b':') {
            return Some((map, None));
        }
        i = skip_ws(i + 1);
        let Some(&first) = b.get(i) else {
            return Some((map, None));
        };
        let end = if first == b'"' {
            string_end(b, i)
        } else {
            value_end(b, i)
        };
        match end {
            Some(end) => {
                if let Ok(v) = parse_lenient(&text[i..end]) {
                    map.insert(key, v);
                }
                i = end;
            }
            None if first == b'"' => {
                let cut = cut_string(&text[i + 1..]);
                // One copy of its exact size: the cut string is most of
                // what was read.
                let mut quoted = String::with_capacity(cut.len() + 2);
                quoted.push('"');
                quoted.push_str(cut);
                quoted.push('"');
                if let Ok(v) = parse_lenient(&quoted) {
                    map.insert(key.clone(), v);
                }
                return Some((map, Some(key)));
            }
            None => return Some((map, None)),
        }
    }
}

/// The index after the closing quote of the JSON string starting at `i`.
fn string_end(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 2,
            b'"' => return Some(j + 1),
            _ => j += 1,
        }
    }
    None
}

/// The index after the JSON value (not a string) starting at `i`: a
/// number or literal up to its delimiter, or an array or object up to its
/// matching bracket (strings inside skipped). `None` when the text ends first.
fn value_end(b: &[u8], i: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut j = i;
    while j < b.len() {
        match b[j] {
            b'"' => {
                j = string_end(b, j)?;
                continue;
            }
            b'[' | b'{' => depth += 1,
            b']' | b'}' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    return Some(j + 1);
                }
            }
            b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r' if depth == 0 => return Some(j),
            _ => {}
        }
        j += 1;
    }
    None
}

/// The body of a JSON string that was cut off, without a trailing escape
/// that the cut left incomplete (`\`, `\u00`).
fn cut_string(body: &str) -> &str {
    let b = body.as_bytes();
    let mut j = 0;
    let mut safe = 0;
    while j < b.len() {
        if b[j] == b'\\' {
            let len = if b.get(j + 1) == Some(&b'u') { 6 } else { 2 };
            if j + len > b.len() {
                break;
            }
            j += len;
        } else {
            j += 1;
        }
        safe = j;
    }
    // Escapes are ASCII; a cut inside a multi-byte character moves back to
    // the character's start.
    let mut cut = safe;
    while !body.is_char_boundary(cut) {
        cut -= 1;
    }
    &body[..cut]
}

/// The most values (numbers, strings, arrays, objects, …) one parse keeps.
/// Each costs a `Value` (32 bytes) or more, so 16 MiB of `0,0,0,…` would
/// take over 250 MiB, past the memory a hook is held to; a real event has
/// a few dozen values, a task record a few hundred.
pub const MAX_VALUES: usize = 1 << 20;

/// Parse `text` as JSON, tolerating unpaired surrogate escapes; a document
/// of more than [`MAX_VALUES`] values is refused as it is read (an error,
/// as for text that is not JSON), never built.
pub fn parse_lenient(text: &str) -> Result<Value, serde_json::Error> {
    match parse_within(text) {
        Ok(v) => Ok(v),
        Err(first) => match crate::settings::repair_lone_surrogates(text) {
            Some(repaired) => parse_within(&repaired).map_err(|_| first),
            None => Err(first),
        },
    }
}

fn parse_within(text: &str) -> Result<Value, serde_json::Error> {
    use serde::de::DeserializeSeed as _;
    let left = std::cell::Cell::new(MAX_VALUES);
    let mut de = serde_json::Deserializer::from_str(text);
    let value = Budget(&left).deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

/// A `Value` built while a budget of values lasts.
struct Budget<'a>(&'a std::cell::Cell<usize>);

impl Budget<'_> {
    fn spend<E: serde::de::Error>(&self) -> Result<(), E> {
        match self.0.get() {
            0 => Err(E::custom(format!("more than {MAX_VALUES} values"))),
            n => {
                self.0.set(n - 1);
                Ok(())
            }
        }
    }
}

impl<'de> serde::de::DeserializeSeed<'de> for Budget<'_> {
    type Value = Value;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Budget<'_> {
    type Value = Value;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Value, E> {
        self.spend()?;
        Ok(Value::Bool(v))
    }
    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Value, E> {
        self.spend()?;
        Ok(Value::from(v))
    }
    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Value, E> {
        self.spend()?;
        Ok(Value::from(v))
    }
    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Value, E> {
        self.spend()?;
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Value, E> {
        self.spend()?;
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Value, E> {
        self.spend()?;
        Ok(Value::String(v))
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<Value, E> {
        self.spend()?;
        Ok(Value::Null)
    }
    fn visit_none<E: serde::de::Error>(self) -> Result<Value, E> {
        self.visit_unit()
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        self.spend()?;
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(Budget(self.0))? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        self.spend()?;
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value_seed(Budget(self.0))?;
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_of_too_many_values_is_refused_unbuilt() {
        let many = format!(
            "{{\"session_id\": \"a\", \"x\": [{}0]}}",
            "0,".repeat(MAX_VALUES)
        );
        let err = parse_lenient(&many).unwrap_err();
        assert!(err.to_string().contains("values"), "{err}");
        // Within the budget, the same as serde_json's own parse.
        let fine = format!(
            "{{\"p\": \"\\u00e9\", \"n\": [1, -2, 3.5, true, null, {{}}], \"x\": [{}0]}}",
            "0,".repeat(1000)
        );
        assert_eq!(
            parse_lenient(&fine).unwrap(),
            serde_json::from_str::<Value>(&fine).unwrap()
        );
        // Duplicate keys: the last wins, as in serde_json's `Value`.
        assert_eq!(parse_lenient(r#"{"a": 1, "a": 2}"#).unwrap()["a"], 2);
    }

    #[test]
    fn lone_surrogates_become_replacement_chars() {
        let v = parse_lenient(r#"{"p": "a\ud800b", "q": "\udc00", "r": "\ud83d\ude00"}"#).unwrap();
        assert_eq!(v["p"], "a\u{fffd}b");
        assert_eq!(v["q"], "\u{fffd}");
        assert_eq!(v["r"], "😀");
    }

    #[test]
    fn lossy_text_is_the_standard_one_within_its_bound() {
        let samples: [&[u8]; 6] = [
            b"plain",
            b"caf\xc3\xa9",
            b"\xff\xfe a \xc3",
            b"\xe4\xb8",
            b"\xf0\x9f\x98\x80\xff",
            b"",
        ];
        for b in samples {
            let (text, cut) = lossy_within(b, 1 << 10);
            assert_eq!(text, String::from_utf8_lossy(b), "{b:?}");
            assert!(!cut, "{b:?}");
        }
        // Valid text within the bound is not copied.
        assert!(matches!(
            lossy_within(b"plain", 5).0,
            std::borrow::Cow::Borrowed(_)
        ));
        // Past the bound: a prefix of the standard text, cut at a character.
        let b: Vec<u8> = [b"ab".as_slice(), &[0xff; 10], "é".as_bytes()].concat();
        let whole = String::from_utf8_lossy(&b);
        for max in 0..whole.len() {
            let (text, cut) = lossy_within(&b, max);
            assert!(cut && text.len() <= max, "{max}: {text:?}");
            assert!(whole.starts_with(text.as_ref()), "{max}: {text:?}");
            assert!(
                text.len() + 3 > max,
                "{max}: cut more than a character: {text:?}"
            );
        }
    }

    #[test]
    fn escaped_backslash_is_not_an_escape() {
        let v = parse_lenient(r#"{"p": "\\ud800"}"#).unwrap();
        assert_eq!(v["p"], "\\ud800");
    }

    #[test]
    fn input_past_the_kept_part_is_drained_not_kept() {
        let data = vec![b'x'; 300_000];
        let got = read_input(&data[..], 100_000);
        assert_eq!(got.bytes.len(), 100_000);
        assert!(!got.complete);
        let got = read_input(&data[..], 300_000);
        assert!(got.complete && got.bytes.len() == 300_000);
        // An endless reader stops at the overall limit.
        let got = read_input(std::io::repeat(b'a'), 10);
        assert_eq!(got.bytes, b"aaaaaaaaaa");
        assert!(!got.complete);
        // A read error ends the input: what came before it is kept.
        let failing = (&b"{\"prompt\": "[..]).chain(Failing);
        let got = read_input(failing, 100);
        assert_eq!(got.bytes, b"{\"prompt\": ");
        assert!(got.complete);
    }

    struct Failing;
    impl Read for Failing {
        fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("gone"))
        }
    }

    #[test]
    fn members_of_a_cut_event() {
        let (m, cut) = members_of_prefix(
            r#"{"session_id": "s", "n": [1, {"a": "]"}], "prompt": "write the spa"#,
        )
        .unwrap();
        assert_eq!(m["session_id"], "s");
        assert_eq!(m["n"], serde_json::json!([1, {"a": "]"}]));
        assert_eq!(m["prompt"], "write the spa");
        assert_eq!(cut.as_deref(), Some("prompt"));
        // The prompt whole, the event cut later.
        let (m, cut) = members_of_prefix(r#"{"prompt": "ttl \"q\"", "cwd": "/ho"#).unwrap();
        assert_eq!(m["prompt"], "ttl \"q\"");
        assert_eq!(m["cwd"], "/ho");
        assert_eq!(cut.as_deref(), Some("cwd"));
        // Cut inside an escape or a character: that part is dropped.
        for text in [
            r#"{"prompt": "ab\"#,
            r#"{"prompt": "ab\u00"#,
            r#"{"prompt": "ab\ud83d"#,
            "{\"prompt\": \"ab\u{e9}",
        ] {
            let (m, _) = members_of_prefix(text).unwrap();
            assert!(m["prompt"].as_str().unwrap().starts_with("ab"), "{text}");
        }
        // A backslash before a multi-byte character (not JSON) is no panic.
        assert!(members_of_prefix("{\"prompt\": \"ab\\\u{e9}").is_some());
        // Deep nesting is skipped without recursion.
        let deep = format!("{{\"x\": {}", "[".repeat(1_000_000));
        let (m, cut) = members_of_prefix(&deep).unwrap();
        assert!(m.is_empty() && cut.is_none());
        assert!(members_of_prefix("[1, 2").is_none());
    }

    #[test]
    fn real_errors_stay_errors() {
        assert!(parse_lenient("{").is_err());
        assert!(parse_lenient(r#"{"p": "\ud800"#).is_err());
    }
}
