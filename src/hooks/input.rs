//! Reading what the hooks did not write: the event on stdin (below), and
//! the two small files (task_state.json, gk.json) through the crate's one
//! bounded reader, [`crate::bounded`] (opened without blocking, checked on
//! the open handle, read up to a cap). Python's `json` module accepts unpaired UTF-16 surrogate
//! escapes (`"\ud800"`), which `serde_json` refuses; so that such a document
//! is not lost, a failed parse is retried once with each unpaired surrogate
//! escape replaced by `\ufffd`.

use serde_json::Value;

/// Parse `text` as JSON, tolerating unpaired surrogate escapes.
pub fn parse_lenient(text: &str) -> Result<Value, serde_json::Error> {
    match serde_json::from_str(text) {
        Ok(v) => Ok(v),
        Err(first) => match repair_lone_surrogates(text) {
            Some(repaired) => serde_json::from_str(&repaired).map_err(|_| first),
            None => Err(first),
        },
    }
}

fn hex4(b: &[u8]) -> Option<u16> {
    if b.len() < 4 {
        return None;
    }
    let s = std::str::from_utf8(&b[..4]).ok()?;
    u16::from_str_radix(s, 16).ok()
}

/// `text` with every `\uXXXX` escape that is an unpaired surrogate replaced
/// by `\ufffd`; `None` when there is none.
fn repair_lone_surrogates(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let mut out: Vec<u8> = Vec::new();
    let mut copied = 0;
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        if b.get(i + 1) != Some(&b'u') {
            i += 2;
            continue;
        }
        let Some(unit) = hex4(&b[i + 2..]) else {
            i += 2;
            continue;
        };
        let is_high = (0xD800..=0xDBFF).contains(&unit);
        let is_low = (0xDC00..=0xDFFF).contains(&unit);
        if is_high
            && b.get(i + 6) == Some(&b'\\')
            && b.get(i + 7) == Some(&b'u')
            && hex4(&b[(i + 8).min(b.len())..]).is_some_and(|n| (0xDC00..=0xDFFF).contains(&n))
        {
            i += 12;
            continue;
        }
        if is_high || is_low {
            out.extend_from_slice(&b[copied..i]);
            out.extend_from_slice(b"\\ufffd");
            copied = i + 6;
        }
        i += 6;
    }
    if copied == 0 {
        return None;
    }
    out.extend_from_slice(&b[copied..]);
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lone_surrogates_become_replacement_chars() {
        let v = parse_lenient(r#"{"p": "a\ud800b", "q": "\udc00", "r": "\ud83d\ude00"}"#).unwrap();
        assert_eq!(v["p"], "a\u{fffd}b");
        assert_eq!(v["q"], "\u{fffd}");
        assert_eq!(v["r"], "😀");
    }

    #[test]
    fn escaped_backslash_is_not_an_escape() {
        let v = parse_lenient(r#"{"p": "\\ud800"}"#).unwrap();
        assert_eq!(v["p"], "\\ud800");
    }

    #[test]
    fn real_errors_stay_errors() {
        assert!(parse_lenient("{").is_err());
        assert!(parse_lenient(r#"{"p": "\ud800"#).is_err());
    }
}
