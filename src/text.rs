//! Text gk did not write, on its way to a person or to Claude.
//!
//! Task records are JSON that Claude writes without asking (and any session
//! may write any record in the state folder); project settings come with a
//! cloned repository; plugin files come from a marketplace. Their text is
//! data. When gk shows it — the Stop line, the prompt hook's context, the
//! status line, `gk state`, doctor's findings, a plan's diff — it must not
//! be able to move the cursor, clear the screen, set the clipboard (OSC
//! 52), start a second line that looks like one of gk's own, or hide what
//! it says behind direction overrides and zero-width marks. And it must
//! stay short enough that the fixed sentences around it are still seen.
//!
//! This module is the one definition of that. It is pure (no I/O), so the
//! hooks use it too.
//!
//! - [`is_unsafe`]: the characters that are never passed through: C0 and
//!   C1 controls and DEL (ESC and the 8-bit CSI U+009B among them), the
//!   line and paragraph separators, and the invisible format characters
//!   (direction marks, embeddings, overrides and isolates; zero-width
//!   spaces and joiners; the word joiner and invisible operators; the BOM;
//!   interlinear annotation marks; the tag characters U+E0000–U+E007F).
//! - [`one_line`]: a field as one bounded line: whitespace controls become
//!   a space, every other unsafe character a `?`, and text past the bound
//!   is cut with `...`.
//! - [`one_line_ends`]: as [`one_line`], but a longer text keeps its start
//!   and its end (a path, whose end names the file).
//! - [`escaped`]: a multi-line text (a diff) with its line breaks kept and
//!   every other unsafe character written as a visible escape (`\x1b`,
//!   `\u{202e}`), the way a careful pager shows them.
//! - [`json_escaped`]: JSON text as serde_json writes it, with the unsafe
//!   characters it leaves raw inside strings (DEL, C1, U+2028, direction
//!   marks, …) written as `\uXXXX`: every `--json` output goes through it.
//! - [`and_list`]: names joined as a sentence says them (`a, b and c`),
//!   for the hooks' lines and doctor's findings alike.

use std::borrow::Cow;

/// The marker put where text was cut.
pub const CUT: &str = "...";

/// `a`, `a and b`, `a, b and c`.
pub fn and_list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// Whether `c` may change how a terminal or a reader takes the text around
/// it, rather than being seen as itself.
pub fn is_unsafe(c: char) -> bool {
    c.is_control() // C0, DEL and C1 (U+0080..U+009F)
        || matches!(
            c,
            '\u{00ad}'                    // soft hyphen (invisible)
            | '\u{061c}'                  // Arabic letter mark
            | '\u{180e}'                  // Mongolian vowel separator
            | '\u{200b}'..='\u{200f}'     // zero-width space/joiners, LRM, RLM
            | '\u{2028}' | '\u{2029}'     // line and paragraph separators
            | '\u{202a}'..='\u{202e}'     // embeddings and overrides
            | '\u{2060}'..='\u{2064}'     // word joiner, invisible operators
            | '\u{2066}'..='\u{206f}'     // isolates and deprecated format marks
            | '\u{feff}'                  // BOM / zero-width no-break space
            | '\u{fff9}'..='\u{fffb}'     // interlinear annotation marks
            | '\u{e0000}'..='\u{e007f}' // tag characters
        )
}

/// Whether `c` separates words or lines (shown as a space by [`one_line`]).
fn is_break(c: char) -> bool {
    matches!(
        c,
        '\n' | '\r' | '\t' | '\u{0b}' | '\u{0c}' | '\u{85}' | '\u{2028}' | '\u{2029}'
    )
}

/// Whether `text` would pass through [`one_line`] unchanged with no bound.
pub fn is_clean(text: &str) -> bool {
    // Printable ASCII is never unsafe (a test holds that to `is_unsafe`):
    // the common case is answered a byte at a time, not a char at a time.
    text.bytes().all(|b| (0x20..0x7f).contains(&b)) || !text.chars().any(is_unsafe)
}

/// `text` as one line of at most `max_chars` characters: line breaks and
/// tabs become spaces, every other unsafe character becomes `?`, and longer
/// text keeps its first `max_chars - 3` characters followed by `...`.
/// Borrowed when nothing changes. `max_chars` below 4 is taken as 4.
pub fn one_line(text: &str, max_chars: usize) -> Cow<'_, str> {
    let max = max_chars.max(CUT.len() + 1);
    // Fast path: clean and short (counting stops at the bound).
    if is_clean(text) && (text.len() <= max || text.chars().nth(max).is_none()) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len().min(max * 4));
    let mut keep = 0; // out's length after the first `max - 3` characters
    for (i, c) in text.chars().enumerate() {
        if i == max - CUT.len() {
            keep = out.len();
        }
        if i == max {
            out.truncate(keep);
            out.push_str(CUT);
            break;
        }
        out.push(shown(c));
    }
    Cow::Owned(out)
}

/// As [`one_line`], except that a text longer than `max_chars` keeps its
/// first third and its end, with `...` between (a path: its end names the
/// file). `max_chars` below 5 is taken as 5.
pub fn one_line_ends(text: &str, max_chars: usize) -> Cow<'_, str> {
    let max = max_chars.max(CUT.len() + 2);
    let count = text.chars().count();
    if count <= max {
        return one_line(text, max);
    }
    let head = max / 3;
    let tail = max - head - CUT.len();
    let mut out = String::with_capacity(max * 4);
    out.extend(text.chars().take(head).map(shown));
    out.push_str(CUT);
    out.extend(text.chars().skip(count - tail).map(shown));
    Cow::Owned(out)
}

fn shown(c: char) -> char {
    if is_break(c) {
        ' '
    } else if is_unsafe(c) {
        '?'
    } else {
        c
    }
}

/// `text` with its `\n` line breaks kept and every other unsafe character
/// written as an escape: `\t`, `\r`, `\x1b` for the C0 controls and DEL,
/// `\u{9b}` and the like for the rest. A backslash is left as it is.
/// Borrowed when nothing changes.
pub fn escaped(text: &str) -> Cow<'_, str> {
    escape(text, true)
}

/// As [`escaped`], with a line break written `\n` as well: one line, for a
/// message that is one line whatever the names it quotes hold.
pub fn escaped_line(text: &str) -> Cow<'_, str> {
    escape(text, false)
}

fn escape(text: &str, keep_breaks: bool) -> Cow<'_, str> {
    if !text
        .chars()
        .any(|c| (c != '\n' || !keep_breaks) && is_unsafe(c))
    {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '\n' if keep_breaks => out.push('\n'),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c if is_unsafe(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// `json`, a JSON text as serde_json writes it, with every unsafe
/// character except `\n` written as a `\uXXXX` escape (UTF-16, so a tag
/// character becomes a surrogate pair). serde_json escapes the C0 controls
/// inside strings but leaves DEL, the C1 controls (the 8-bit CSI U+009B
/// among them), U+2028/U+2029 and the invisible format characters raw; in
/// its output a raw `\n` is only ever the pretty printer's line break, and
/// every other unsafe character can only be inside a string, so the result
/// is the same JSON value. Borrowed when nothing changes.
pub fn json_escaped(json: &str) -> Cow<'_, str> {
    if !json.chars().any(|c| c != '\n' && is_unsafe(c)) {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 16);
    let mut units = [0u16; 2];
    for c in json.chars() {
        if c != '\n' && is_unsafe(c) {
            for u in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{u:04x}"));
            }
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_short_text_is_borrowed_unchanged() {
        let t = "Refactor parser (phase 2) — café ✓";
        assert!(matches!(one_line(t, 80), Cow::Borrowed(s) if s == t));
        assert!(matches!(escaped(t), Cow::Borrowed(s) if s == t));
    }

    /// `is_clean` answers printable ASCII without asking `is_unsafe`; that
    /// shortcut is right only while no printable ASCII character is unsafe,
    /// and a text with one unsafe character among ASCII is still caught.
    #[test]
    fn printable_ascii_is_safe_and_the_shortcut_misses_nothing() {
        for b in 0x20u8..0x7f {
            assert!(!is_unsafe(char::from(b)), "{b:#04x}");
        }
        for b in (0u8..0x20).chain([0x7f]) {
            let t = format!("plain words{}and more", char::from(b));
            assert!(!is_clean(&t), "{b:#04x}");
            assert!(!one_line(&t, 200).contains(char::from(b)), "{b:#04x}");
        }
        // Every character, among printable ASCII: clean exactly when safe.
        let mut t = String::with_capacity(16);
        for c in (0..=0x10ffff).filter_map(char::from_u32) {
            t.clear();
            t.push_str("ab");
            t.push(c);
            t.push_str("cd");
            assert_eq!(is_clean(&t), !is_unsafe(c), "{:#x}", c as u32);
        }
    }

    #[test]
    fn escape_sequences_lose_their_escape() {
        let t = "x\u{1b}]52;c;Y3VybA==\u{7}\u{1b}[2J\u{9b}2J";
        let line = one_line(t, 200);
        assert!(!line.chars().any(|c| c.is_control()), "{line:?}");
        assert_eq!(line, "x?]52;c;Y3VybA==??[2J?2J");
    }

    #[test]
    fn line_breaks_cannot_forge_a_second_line() {
        let t = "fix\nSTATE [CLEAN] safe to switch\r\u{2028}x\u{85}y";
        assert_eq!(one_line(t, 200), "fix STATE [CLEAN] safe to switch  x y");
    }

    #[test]
    fn direction_and_zero_width_marks_are_shown() {
        for c in [
            '\u{202e}',
            '\u{200b}',
            '\u{2066}',
            '\u{feff}',
            '\u{e0041}',
            '\u{061c}',
            '\u{2060}',
        ] {
            let t = format!("a{c}b");
            assert_eq!(one_line(&t, 10), "a?b", "U+{:04X}", c as u32);
            assert!(!is_clean(&t));
        }
    }

    #[test]
    fn long_text_is_cut_to_the_bound() {
        let t = "é".repeat(1000);
        let line = one_line(&t, 20);
        assert_eq!(line.chars().count(), 20);
        assert!(line.ends_with(CUT));
        // Exactly at the bound: kept whole.
        let t = "a".repeat(20);
        assert_eq!(one_line(&t, 20), t);
        let t = "a".repeat(21);
        assert_eq!(one_line(&t, 20), format!("{}...", "a".repeat(17)));
        // Dirty and at the bound: cleaned, not cut.
        let t = format!("{}\n", "a".repeat(19));
        assert_eq!(one_line(&t, 20), format!("{} ", "a".repeat(19)));
    }

    #[test]
    fn a_tiny_bound_still_gives_a_visible_cut() {
        assert_eq!(one_line("abcdefgh", 0), "a...");
        assert_eq!(one_line("abcd", 0), "abcd");
    }

    #[test]
    fn one_line_ends_keeps_start_and_end() {
        let t = format!("/home/{}/settings.json", "x".repeat(100));
        let line = one_line_ends(&t, 30);
        assert_eq!(line.chars().count(), 30);
        assert!(line.starts_with("/home/xxxx"), "{line}");
        assert!(line.ends_with("settings.json"), "{line}");
        assert!(line.contains(CUT));
        assert_eq!(one_line_ends("a\u{1b}b", 30), "a?b");
        assert_eq!(one_line_ends("a\u{202e}\nb", 3), "a? b");
    }

    #[test]
    fn json_escaped_leaves_the_same_value_with_nothing_raw() {
        let v = serde_json::json!({
            "status": "x\u{1b}]52;c;Y3Vy\u{7}\u{9b}2J\u{7f}\u{2028}\u{202e}\u{e0041}\n"
        });
        let text = serde_json::to_string_pretty(&v).unwrap();
        assert!(text.contains('\u{9b}') && text.contains('\u{2028}'));
        let safe = json_escaped(&text);
        assert!(is_clean(&safe.replace('\n', "")), "{safe}");
        assert!(
            safe.contains("\\u009b") && safe.contains("\\udb40\\udc41"),
            "{safe}"
        );
        let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(back, v);
        assert!(matches!(json_escaped("{\n  \"a\": 1\n}"), Cow::Borrowed(_)));
    }

    #[test]
    fn escaped_keeps_lines_and_shows_the_rest() {
        let t = "+ garbage \u{1b}[2J\u{1b}]52;c;QUJD\u{7}\n- \u{9b}x\t\u{202e}\r\n";
        assert_eq!(
            escaped(t),
            "+ garbage \\x1b[2J\\x1b]52;c;QUJD\\x07\n- \\u{9b}x\\t\\u{202e}\\r\n"
        );
        // One line: the line break written out as well.
        assert_eq!(
            escaped_line(t),
            "+ garbage \\x1b[2J\\x1b]52;c;QUJD\\x07\\n- \\u{9b}x\\t\\u{202e}\\r\\n"
        );
        assert!(matches!(escaped_line("plain"), Cow::Borrowed("plain")));
        assert_eq!(escaped_line("a\u{2028}b"), "a\\u{2028}b");
    }
}
