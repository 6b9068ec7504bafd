//! JSON output written the way Python's `json.dumps` writes it by default:
//! `", "` and `": "` separators, keys in the order given, and every character
//! outside printable ASCII escaped as `\uXXXX` (surrogate pairs above the
//! BMP). ASCII-only output is what keeps the messages intact under any
//! Windows code page.

/// Append `s` as a JSON string literal, escaped as `json.dumps` does.
pub fn push_json_str(out: &mut String, s: &str) {
    out.reserve(s.len() + 2);
    out.push('"');
    let mut rest = s;
    loop {
        // The longest run written as it is (printable ASCII but `"` and
        // `\`), copied at once; it ends at a character's first byte.
        let plain = rest
            .bytes()
            .position(|b| !(b' '..=b'~').contains(&b) || b == b'"' || b == b'\\')
            .unwrap_or(rest.len());
        out.push_str(&rest[..plain]);
        rest = &rest[plain..];
        let Some(c) = rest.chars().next() else {
            break;
        };
        rest = &rest[c.len_utf8()..];
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0c}' => out.push_str("\\f"),
            _ => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    push_u_escape(out, *unit);
                }
            }
        }
    }
    out.push('"');
}

/// JSON text with every non-ASCII character written as `\uXXXX`. Valid for
/// any serialized JSON: such characters can only occur inside strings,
/// where the escape means the same character.
pub fn ascii_only(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                push_u_escape(&mut out, *unit);
            }
        }
    }
    out
}

fn push_u_escape(out: &mut String, unit: u16) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push_str("\\u");
    for shift in [12, 8, 4, 0] {
        out.push(HEX[((unit >> shift) & 0xf) as usize] as char);
    }
}

/// The UserPromptSubmit answer, newline-terminated.
pub fn prompt_output(system_message: &str, additional_context: &str) -> String {
    let mut out = String::with_capacity(system_message.len() + additional_context.len() + 128);
    // An empty message (per session, nothing worth showing) is left out.
    if !system_message.is_empty() {
        out.push_str("{\"systemMessage\": ");
        push_json_str(&mut out, system_message);
        out.push_str(", ");
    } else {
        out.push('{');
    }
    out.push_str(
        "\"hookSpecificOutput\": {\"hookEventName\": \"UserPromptSubmit\", \"additionalContext\": ",
    );
    push_json_str(&mut out, additional_context);
    out.push_str("}}\n");
    out
}

/// The Stop answer: `systemMessage` only (anything else makes Claude go on).
pub fn stop_output(system_message: &str) -> String {
    let mut out = String::with_capacity(system_message.len() + 24);
    out.push_str("{\"systemMessage\": ");
    push_json_str(&mut out, system_message);
    out.push_str("}\n");
    out
}

/// The SessionStart answer: `systemMessage` for the user and, when given,
/// `additionalContext` for Claude; `None` when there is neither.
pub fn session_output(
    system_message: Option<&str>,
    additional_context: Option<&str>,
) -> Option<String> {
    let mut out = String::from("{");
    if let Some(m) = system_message {
        out.push_str("\"systemMessage\": ");
        push_json_str(&mut out, m);
    }
    if let Some(c) = additional_context {
        if system_message.is_some() {
            out.push_str(", ");
        }
        out.push_str(
            "\"hookSpecificOutput\": {\"hookEventName\": \"SessionStart\", \"additionalContext\": ",
        );
        push_json_str(&mut out, c);
        out.push('}');
    }
    if out.len() == 1 {
        return None;
    }
    out.push_str("}\n");
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(s: &str) -> String {
        let mut out = String::new();
        push_json_str(&mut out, s);
        out
    }

    #[test]
    fn escapes_like_json_dumps() {
        assert_eq!(lit("a\"b\\c"), r#""a\"b\\c""#);
        assert_eq!(
            lit("\n\r\t\u{8}\u{c}\u{1}\u{7f}"),
            r#""\n\r\t\b\f\u0001\u007f""#
        );
        assert_eq!(lit("café"), r#""caf\u00e9""#);
        assert_eq!(lit("😀"), r#""\ud83d\ude00""#);
        assert_eq!(lit("/"), r#""/""#);
    }

    #[test]
    fn plain_runs_and_escapes_alternate_in_any_order() {
        assert_eq!(lit(""), r#""""#);
        assert_eq!(lit("plain text only"), r#""plain text only""#);
        assert_eq!(
            lit("\"quoted\" é at the end é"),
            r#""\"quoted\" \u00e9 at the end \u00e9""#
        );
        assert_eq!(lit("é😀x\\\n"), r#""\u00e9\ud83d\ude00x\\\n""#);
        // Every printable ASCII byte but `"` and `\` is written as it is.
        let printable: String = (b' '..=b'~').map(char::from).collect();
        let want: String = printable.replace('\\', r"\\").replace('"', r#"\""#);
        assert_eq!(lit(&printable), format!("\"{want}\""));
        // A JSON parser reads the same text back.
        let mixed = "line 1\n\tcaf\u{e9} \u{1f600}\u{7f}\"end\"";
        let back: String = serde_json::from_str(&lit(mixed)).unwrap();
        assert_eq!(back, mixed);
    }

    #[test]
    fn outputs_parse_back() {
        let p = prompt_output("a\nb", "ctx é");
        let v: serde_json::Value = serde_json::from_str(&p).unwrap();
        assert_eq!(v["systemMessage"], "a\nb");
        assert_eq!(v["hookSpecificOutput"]["additionalContext"], "ctx é");
        assert!(p.is_ascii() && p.ends_with("}\n"));
        let a = ascii_only("{\"k\": \"é😀\"}");
        assert_eq!(a, r#"{"k": "\u00e9\ud83d\ude00"}"#);
        let back: serde_json::Value = serde_json::from_str(&a).unwrap();
        assert_eq!(back["k"], "é😀");
        let s = stop_output("x");
        assert_eq!(s, "{\"systemMessage\": \"x\"}\n");
        assert_eq!(session_output(Some("x"), None).unwrap(), s);
        assert_eq!(session_output(None, None), None);
        let both: serde_json::Value =
            serde_json::from_str(&session_output(Some("m"), Some("c")).unwrap()).unwrap();
        assert_eq!(both["systemMessage"], "m");
        assert_eq!(both["hookSpecificOutput"]["hookEventName"], "SessionStart");
        assert_eq!(both["hookSpecificOutput"]["additionalContext"], "c");
    }
}
