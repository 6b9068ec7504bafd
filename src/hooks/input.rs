//! Reading what the hooks did not write: the event on stdin, and the two
//! small files (task_state.json, gk.json) through one bounded reader. Python's `json` module accepts unpaired UTF-16 surrogate
//! escapes (`"\ud800"`), which `serde_json` refuses; so that such a document
//! is not lost, a failed parse is retried once with each unpaired surrogate
//! escape replaced by `\ufffd`.

use std::path::Path;
use std::time::SystemTime;

use serde_json::Value;

/// What reading one of the hooks' small input files gave. `mtime` is from
/// the one `stat` made before opening (the file's age needs nothing more).
#[derive(Debug)]
pub enum FileRead {
    Bytes {
        bytes: Vec<u8>,
        mtime: Option<SystemTime>,
    },
    /// A named pipe, socket or device: never opened (a pipe would block the
    /// hook until someone writes to it; /dev/zero never ends).
    NotRegular { mtime: Option<SystemTime> },
    /// Longer than the cap: not read on every prompt.
    TooLarge { mtime: Option<SystemTime> },
    Failed {
        error: std::io::Error,
        mtime: Option<SystemTime>,
    },
}

/// Read at most `max` bytes of `path`, a regular file (a folder is opened
/// too, so that reading it fails as Python's `open` does).
pub fn read_bounded(path: &Path, max: u64) -> FileRead {
    use std::io::Read;
    let mtime = match std::fs::metadata(path) {
        Ok(meta) if !meta.is_file() && !meta.is_dir() => {
            return FileRead::NotRegular {
                mtime: meta.modified().ok(),
            }
        }
        Ok(meta) => meta.modified().ok(),
        Err(error) => return FileRead::Failed { error, mtime: None },
    };
    let mut bytes = Vec::new();
    let read = std::fs::File::open(path).and_then(|f| f.take(max + 1).read_to_end(&mut bytes));
    match read {
        Err(error) => FileRead::Failed { error, mtime },
        Ok(_) if bytes.len() as u64 > max => FileRead::TooLarge { mtime },
        Ok(_) => FileRead::Bytes { bytes, mtime },
    }
}

/// As [`read_bounded`], but a symbolic link is not followed: it reads as
/// `NotRegular`. For the task records, whose folder Claude can write: a
/// link planted there must not make a hook read a file outside it.
pub fn read_bounded_no_link(path: &Path, max: u64) -> FileRead {
    // `read_link` succeeds only on a link (one system call, read-only).
    if std::fs::read_link(path).is_ok() {
        return FileRead::NotRegular { mtime: None };
    }
    read_bounded(path, max)
}

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
