//! The few pieces of Python string semantics the v5 hooks depend on, written
//! out by hand so gk gives the same answers as the Python reference without
//! compiling a regex on every prompt (the keywords' `(?<![a-z0-9])kw(?![a-z0-9])`
//! is `keywords.rs`).
//!
//! - `is_py_space`: the characters `str.split()` and the regex `\s` treat as
//!   whitespace (wider than Rust's `char::is_whitespace`: it also counts
//!   the separators U+001C..U+001F).
//! - `strip_check_prefix`: `^\s*\[\s*check\s*\]\s*` with IGNORECASE, where
//!   Python also lets the Kelvin sign U+212A stand for `k`.
//! - `py_str` / `truthy`: how `str()` and `bool()` see a JSON value read from
//!   task_state.json (the reference formats whatever it finds there).

use serde_json::Value;

/// True for the characters CPython's `str.isspace()` accepts, which is also
/// the set its `\s` and `str.split()` use.
pub fn is_py_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n'
            | '\u{0b}'
            | '\u{0c}'
            | '\r'
            | '\u{1c}'..='\u{1f}'
            | ' '
            | '\u{85}'
            | '\u{a0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200a}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202f}'
            | '\u{205f}'
            | '\u{3000}'
    )
}

/// `len(text.split())`.
pub fn word_count(text: &str) -> usize {
    let mut count = 0;
    let mut in_word = false;
    for c in text.chars() {
        if is_py_space(c) {
            in_word = false;
        } else if !in_word {
            in_word = true;
            count += 1;
        }
    }
    count
}

/// If `prompt` starts with the `[check]` prefix, the rest of the prompt after
/// it (and after the whitespace that follows it); otherwise `None`.
pub fn strip_check_prefix(prompt: &str) -> Option<&str> {
    let rest = prompt.trim_start_matches(is_py_space);
    let rest = rest.strip_prefix('[')?;
    let rest = rest.trim_start_matches(is_py_space);
    let mut chars = rest.chars();
    for want in ['c', 'h', 'e', 'c', 'k'] {
        let got = chars.next()?;
        let same = got.to_ascii_lowercase() == want || (want == 'k' && got == '\u{212a}');
        if !same {
            return None;
        }
    }
    let rest = chars.as_str().trim_start_matches(is_py_space);
    let rest = rest.strip_prefix(']')?;
    Some(rest.trim_start_matches(is_py_space))
}

/// Python's `bool()` of a JSON value.
pub fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

/// Python's `str()` of a JSON value (what an f-string prints).
pub fn py_str(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => {
            let mut out = String::new();
            push_repr(&mut out, other);
            out
        }
    }
}

fn push_repr(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.push_str("None"),
        Value::Bool(true) => out.push_str("True"),
        Value::Bool(false) => out.push_str("False"),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                out.push_str(&i.to_string());
            } else if let Some(u) = n.as_u64() {
                out.push_str(&u.to_string());
            } else {
                out.push_str(&py_float_repr(n.as_f64().unwrap_or(f64::NAN)));
            }
        }
        Value::String(s) => push_str_repr(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                push_repr(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (k, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                push_str_repr(out, k);
                out.push_str(": ");
                push_repr(out, item);
            }
            out.push('}');
        }
    }
}

/// Python's `repr()` of a str, for the characters a state file can hold
/// (control characters escaped; other characters kept).
fn push_str_repr(out: &mut String, s: &str) {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if !py_printable(c) => {
                let n = c as u32;
                if n < 0x100 {
                    out.push_str(&format!("\\x{n:02x}"));
                } else if n < 0x10000 {
                    out.push_str(&format!("\\u{n:04x}"));
                } else {
                    out.push_str(&format!("\\U{n:08x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push(quote);
}

/// Python's `str.isprintable()` for one character, without Unicode tables:
/// control, format, separator (other than the space), surrogate and
/// private-use characters are not printable. Unassigned code points, which
/// Python also escapes, are kept.
fn py_printable(c: char) -> bool {
    let n = c as u32;
    !(n < 0x20
        || (0x7f..=0xa0).contains(&n)
        || n == 0xad
        || (0x600..=0x605).contains(&n)
        || n == 0x61c
        || n == 0x6dd
        || n == 0x70f
        || (0x890..=0x891).contains(&n)
        || n == 0x8e2
        || n == 0x1680
        || n == 0x180e
        || (0x2000..=0x200f).contains(&n)
        || (0x2028..=0x202f).contains(&n)
        || (0x205f..=0x2064).contains(&n)
        || (0x2066..=0x206f).contains(&n)
        || n == 0x3000
        || (0xe000..=0xf8ff).contains(&n)
        || n == 0xfeff
        || (0xfff9..=0xfffb).contains(&n)
        || n == 0x110bd
        || n == 0x110cd
        || (0x13430..=0x13438).contains(&n)
        || (0x1bca0..=0x1bca3).contains(&n)
        || (0x1d173..=0x1d17a).contains(&n)
        || (0xe0001..=0xe007f).contains(&n)
        || n >= 0xf0000)
}

/// Python's `repr()` of a float: shortest round-trip digits, positional
/// between 1e-4 and 1e16, otherwise `d.ddde+XX`.
pub fn py_float_repr(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf".into() } else { "-inf".into() };
    }
    // `{:e}` gives the shortest round-trip digits: "-1.2345e-7".
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    if (-4..16).contains(&exp) {
        let point = exp + 1; // digits before the decimal point
        let mut s = String::from(sign);
        if point <= 0 {
            s.push_str("0.");
            s.push_str(&"0".repeat((-point) as usize));
            s.push_str(&digits);
        } else if point as usize >= digits.len() {
            s.push_str(&digits);
            s.push_str(&"0".repeat(point as usize - digits.len()));
            s.push_str(".0");
        } else {
            s.push_str(&digits[..point as usize]);
            s.push('.');
            s.push_str(&digits[point as usize..]);
        }
        s
    } else {
        let mut s = String::from(sign);
        s.push_str(&digits[..1]);
        if digits.len() > 1 {
            s.push('.');
            s.push_str(&digits[1..]);
        }
        s.push('e');
        s.push(if exp < 0 { '-' } else { '+' });
        s.push_str(&format!("{:02}", exp.abs()));
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn split_counts_python_whitespace() {
        assert_eq!(word_count("  a b\tc\n"), 3);
        assert_eq!(word_count("a\u{1c}b\u{85}c\u{a0}d\u{3000}e"), 5);
        // U+180E and U+200B are not whitespace to Python.
        assert_eq!(word_count("a\u{180e}b\u{200b}c"), 1);
        assert_eq!(word_count(""), 0);
    }

    #[test]
    fn check_prefix_variants() {
        assert_eq!(strip_check_prefix("[check] go"), Some("go"));
        assert_eq!(strip_check_prefix(" [ CHECK ]   ok"), Some("ok"));
        assert_eq!(
            strip_check_prefix("\u{a0}[\u{2003}cHeC\u{212a}]x"),
            Some("x")
        );
        assert_eq!(strip_check_prefix("[check]"), Some(""));
        assert_eq!(strip_check_prefix("x [check] y"), None);
        assert_eq!(strip_check_prefix("[checks] y"), None);
        assert_eq!(strip_check_prefix("[chek] y"), None);
        assert_eq!(strip_check_prefix("(check) y"), None);
        // Only one prefix is stripped.
        assert_eq!(strip_check_prefix("[check][check] y"), Some("[check] y"));
    }

    #[test]
    fn python_str_of_json_values() {
        assert_eq!(py_str(&json!(null)), "None");
        assert_eq!(py_str(&json!(true)), "True");
        assert_eq!(py_str(&json!(5)), "5");
        assert_eq!(py_str(&json!(1.5)), "1.5");
        assert_eq!(py_str(&json!(1e20)), "1e+20");
        assert_eq!(py_str(&json!(100.0)), "100.0");
        assert_eq!(py_str(&json!(0.00001)), "1e-05");
        assert_eq!(py_str(&json!(["a", 1, null])), "['a', 1, None]");
        assert_eq!(py_str(&json!({"k": "it's"})), "{'k': \"it's\"}");
        assert_eq!(
            py_str(&json!(["a\u{1}\u{ad}\u{2028}\u{3000}é 😀\u{f0000}"])),
            "['a\\x01\\xad\\u2028\\u3000é 😀\\U000f0000']"
        );
    }

    #[test]
    fn python_truthiness() {
        for v in [
            json!(null),
            json!(false),
            json!(0),
            json!(0.0),
            json!(""),
            json!([]),
            json!({}),
        ] {
            assert!(!truthy(&v), "{v}");
        }
        for v in [
            json!(true),
            json!(1),
            json!("x"),
            json!([0]),
            json!({"a": 0}),
        ] {
            assert!(truthy(&v), "{v}");
        }
    }
}
