//! The one sanitiser (`gk::testing::text`) on any text and any bound: `one_line`
//! and `one_line_ends` give one line with no unsafe character and at most
//! the bound of characters (the bound taken as at least 4, resp. 5), and
//! the text itself when it is clean and short; `escaped` keeps exactly the
//! line breaks (`\n`) of the text and nothing else unsafe, `escaped_line`
//! not even those, and equals `escaped` with them written out; `json_escaped`
//! of serde_json's output leaves nothing unsafe but its line breaks and
//! reads back as the same value.
//!
//! Input: two bytes of bound (little endian), then the text (UTF-8).
#![no_main]

use gk::testing::text::{
    escaped, escaped_line, is_clean, is_unsafe, json_escaped, one_line, one_line_ends,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.len() < 2 {
        return;
    }
    let bound = usize::from(u16::from_le_bytes([data[0], data[1]]));
    let Ok(text) = std::str::from_utf8(&data[2..]) else {
        return;
    };
    let chars = text.chars().count();

    let line = one_line(text, bound);
    assert!(
        is_clean(&line),
        "one_line left an unsafe character: {line:?}"
    );
    assert!(!line.contains('\n'));
    assert!(
        line.chars().count() <= bound.max(4),
        "{} > {bound}",
        line.chars().count()
    );
    if is_clean(text) && chars <= bound.max(4) {
        assert_eq!(line, text);
    }

    let ends = one_line_ends(text, bound);
    assert!(
        is_clean(&ends),
        "one_line_ends left an unsafe character: {ends:?}"
    );
    assert!(ends.chars().count() <= bound.max(5));

    let shown = escaped(text);
    assert_eq!(
        shown.matches('\n').count(),
        text.matches('\n').count(),
        "escaped changed the line breaks"
    );
    assert!(
        !shown.chars().any(|c| c != '\n' && is_unsafe(c)),
        "{shown:?}"
    );
    let one = escaped_line(text);
    assert!(
        is_clean(&one),
        "escaped_line left an unsafe character: {one:?}"
    );
    assert_eq!(one, shown.replace('\n', "\\n"));

    let value = serde_json::json!({ "text": text, "list": [text] });
    let json = serde_json::to_string_pretty(&value).unwrap();
    let safe = json_escaped(&json);
    assert!(!safe.chars().any(|c| c != '\n' && is_unsafe(c)), "{safe:?}");
    let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
    assert_eq!(back, value);
});
