//! The Task State Convention in the user's `CLAUDE.md`: without it Claude
//! never writes `task_state.json` and the state signal is dead. gk pastes
//! `assets/CLAUDE-section.md` between two marker comments so the block can
//! be found again, replaced by a newer version, and removed by uninstall.
//!
//! [`insert_section`] and [`remove_section`] are pure and inverse: the
//! user's own text is kept byte for byte and a CRLF file stays CRLF. The
//! Python-era section (same purpose, heading
//! `## Task State Convention (Gatekeeper Hooks)`, no markers) is replaced
//! by the marked block, up to the next heading of the same or a higher level.

use std::path::Path;

use crate::error::{Error, Result};

/// The section as shipped; `{{STATE_FILE}}` is replaced at install time.
pub const SECTION_TEMPLATE: &str = include_str!("../../assets/CLAUDE-section.md");

pub const BEGIN_MARKER: &str =
    "<!-- gk:begin (added by gk install; gk uninstall removes everything up to gk:end) -->";
pub const END_MARKER: &str = "<!-- gk:end -->";

/// The heading of the section the Python hooks' instructions used.
pub const LEGACY_HEADING: &str = "## Task State Convention (Gatekeeper Hooks)";

/// The section text for this machine, with the real state file path.
pub fn section_for(state_file: &str) -> String {
    SECTION_TEMPLATE.replace("{{STATE_FILE}}", state_file)
}

fn newline_of(text: &str) -> &'static str {
    if text.contains("\r\n") {
        "\r\n"
    } else {
        "\n"
    }
}

/// The marked block in the file's own line endings, without a final newline.
fn block(section: &str, nl: &str) -> String {
    let body: Vec<&str> = section.trim_end_matches(['\n', '\r']).lines().collect();
    let mut out = String::from(BEGIN_MARKER);
    for line in body {
        out.push_str(nl);
        out.push_str(line.trim_end_matches('\r'));
    }
    out.push_str(nl);
    out.push_str(END_MARKER);
    out
}

/// Byte range of the marked block: from the begin marker's line start to
/// the end of the end marker (its newline not included).
fn marked_range(text: &str) -> Option<(usize, usize)> {
    let begin = find_line_starting(text, "<!-- gk:begin", 0)?;
    let end_line = find_line_starting(text, END_MARKER, begin)?;
    Some((begin, end_line + END_MARKER.len()))
}

/// Offset of the first line at or after `from` that starts with `prefix`.
fn find_line_starting(text: &str, prefix: &str, from: usize) -> Option<usize> {
    let mut start = from;
    loop {
        if text[start..].starts_with(prefix) && (start == 0 || text.as_bytes()[start - 1] == b'\n')
        {
            return Some(start);
        }
        let next = text[start..].find('\n')?;
        start += next + 1;
        if start >= text.len() {
            return None;
        }
    }
}

/// The legacy section: its heading line up to the next `#` or `##` heading
/// (trailing blank lines left outside).
fn legacy_range(text: &str) -> Option<(usize, usize)> {
    let mut offset = 0;
    let mut start = None;
    let mut end = text.len();
    for line in text.split_inclusive('\n') {
        let content = line.trim_end_matches(['\n', '\r']);
        match start {
            None if content.trim_end() == LEGACY_HEADING => start = Some(offset),
            Some(_) if is_heading_up_to_level2(content) => {
                end = offset;
                break;
            }
            _ => {}
        }
        offset += line.len();
    }
    let start = start?;
    // Leave blank lines before the next heading where they are.
    let mut cut = end;
    let section = &text[start..end];
    let trimmed = section.trim_end_matches(['\n', '\r', ' ', '\t']);
    if end < text.len() || trimmed.len() < section.len() {
        cut = start + trimmed.len();
    }
    Some((start, cut))
}

fn is_heading_up_to_level2(line: &str) -> bool {
    line.starts_with("# ") || line.starts_with("## ") || line == "#" || line == "##"
}

/// Line numbers (1-based) of lines starting with `prefix`.
fn marker_lines(text: &str, prefix: &str) -> Vec<usize> {
    text.split('\n')
        .enumerate()
        .filter(|(_, l)| l.starts_with(prefix))
        .map(|(i, _)| i + 1)
        .collect()
}

/// Refuse a file whose markers do not form exactly one block (or none):
/// guessing where a damaged block ends could delete the user's own text.
fn check_markers(path: &Path, text: &str) -> Result<()> {
    let begins = marker_lines(text, "<!-- gk:begin");
    let ends = marker_lines(text, END_MARKER);
    let problem = match (begins.as_slice(), ends.as_slice()) {
        ([], []) => return Ok(()),
        ([b], [e]) if b < e => return Ok(()),
        ([b, ..], []) => Some((*b, "a gk:begin marker without gk:end")),
        ([], [e, ..]) => Some((*e, "a gk:end marker without gk:begin")),
        ([b], [e]) if e < b => Some((*e, "gk:end comes before gk:begin")),
        ([_, b, ..], _) => Some((*b, "a second gk block")),
        (_, [_, e, ..]) => Some((*e, "a second gk:end marker")),
        _ => None,
    };
    let (line, what) = problem.unwrap_or((1, "gk markers out of order"));
    Err(Error::new(format!(
        "{}:{line}: {what}; put the gk block right by hand (nothing written)",
        path.display()
    )))
}

/// Put the marked block into `text`: replace an older gk block, else the
/// Python-era section, else append it after a blank line. `path` is only
/// named in errors (damaged markers).
pub fn insert_section(path: &Path, text: &str, section: &str) -> Result<String> {
    check_markers(path, text)?;
    Ok(insert_checked(text, section))
}

fn insert_checked(text: &str, section: &str) -> String {
    let nl = newline_of(text);
    let new_block = block(section, nl);
    if let Some((a, b)) = marked_range(text) {
        return format!("{}{new_block}{}", &text[..a], &text[b..]);
    }
    if let Some((a, b)) = legacy_range(text) {
        return format!("{}{new_block}{}", &text[..a], &text[b..]);
    }
    if text.is_empty() {
        return format!("{new_block}{nl}");
    }
    if text.ends_with('\n') {
        format!("{text}{nl}{new_block}{nl}")
    } else {
        // No final newline: none is added after the block either, so
        // removing it gives the original bytes back.
        format!("{text}{nl}{nl}{new_block}")
    }
}

/// Take the marked block out again (the inverse of an append by
/// [`insert_section`]). Text without a block is returned unchanged.
pub fn remove_section(path: &Path, text: &str) -> Result<String> {
    check_markers(path, text)?;
    Ok(remove_checked(text))
}

fn remove_checked(text: &str) -> String {
    let Some((a, b)) = marked_range(text) else {
        return text.to_string();
    };
    let nl = newline_of(text);
    let before = &text[..a];
    let after = &text[b..];
    if after.is_empty() {
        // Appended to a file without a final newline: drop the blank line too.
        let before = before.strip_suffix(&format!("{nl}{nl}")).unwrap_or(before);
        return before.to_string();
    }
    let after = after.strip_prefix(nl).unwrap_or(after);
    if after.is_empty() {
        if before.is_empty() {
            return String::new();
        }
        // Appended after a blank line: drop that blank line.
        let before = before
            .strip_suffix(nl)
            .filter(|b| b.ends_with('\n'))
            .unwrap_or(before);
        return before.to_string();
    }
    // In the middle of the file: also drop one of two blank lines left meeting.
    if before.ends_with(&format!("{nl}{nl}")) && after.starts_with(nl) {
        return format!("{before}{}", &after[nl.len()..]);
    }
    format!("{before}{after}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ins(text: &str, section: &str) -> String {
        insert_section(Path::new("CLAUDE.md"), text, section).unwrap()
    }

    fn rem(text: &str) -> String {
        remove_section(Path::new("CLAUDE.md"), text).unwrap()
    }

    #[test]
    fn damaged_markers_are_refused_with_the_line() {
        let p = Path::new("/c/CLAUDE.md");
        let only_begin = format!("# A\n{BEGIN_MARKER}\ntext\n");
        let err = insert_section(p, &only_begin, S).unwrap_err();
        assert!(
            err.message()
                .starts_with("/c/CLAUDE.md:2: a gk:begin marker without gk:end"),
            "{err}"
        );
        assert!(remove_section(p, &only_begin).is_err());
        let two = format!("{BEGIN_MARKER}\n{END_MARKER}\n{BEGIN_MARKER}\n{END_MARKER}\n");
        assert!(remove_section(p, &two)
            .unwrap_err()
            .message()
            .contains(":3: a second gk block"));
        let reversed = format!("{END_MARKER}\n{BEGIN_MARKER}\n");
        assert!(insert_section(p, &reversed, S).is_err());
    }

    const S: &str = "## Task State Convention (gk hooks)\n\nline one\nline two\n";

    #[test]
    fn append_and_remove_round_trip_in_every_ending() {
        for text in [
            "",
            "# Mine\n",
            "# Mine\n\nsome text",
            "# Mine\r\n\r\nwindows text\r\n",
            "no newline",
        ] {
            let with = ins(text, S);
            assert!(with.contains(BEGIN_MARKER));
            assert_eq!(rem(&with), text, "{text:?} -> {with:?}");
            assert_eq!(ins(&with, S), with, "idempotent for {text:?}");
        }
    }

    #[test]
    fn crlf_file_gets_crlf_block() {
        let with = ins("# Mine\r\n", S);
        assert!(!with.replace("\r\n", "").contains('\n'), "{with:?}");
    }

    #[test]
    fn older_block_is_replaced_in_place() {
        let old = format!("# A\n\n{BEGIN_MARKER}\nold text\n{END_MARKER}\n\n# B\n");
        let new = ins(&old, S);
        assert!(new.starts_with("# A\n\n<!-- gk:begin"));
        assert!(
            new.ends_with(&format!("line two\n{END_MARKER}\n\n# B\n")),
            "{new}"
        );
        assert!(!new.contains("old text"));
        assert_eq!(rem(&new), "# A\n\n# B\n");
    }

    #[test]
    fn legacy_section_is_replaced_up_to_next_heading() {
        let old = "# Rules\n\nmine\n\n## Task State Convention (Gatekeeper Hooks)\nTwo global hooks (`gatekeeper.py` ...)\n### Sub\nmore\n\n## After\nkeep me\n";
        let new = ins(old, S);
        assert!(new.starts_with("# Rules\n\nmine\n\n<!-- gk:begin"), "{new}");
        assert!(
            new.ends_with(&format!("{END_MARKER}\n\n## After\nkeep me\n")),
            "{new}"
        );
        assert!(!new.contains("gatekeeper.py"));
        assert!(!new.contains("### Sub"));
    }

    #[test]
    fn legacy_section_at_end_of_file() {
        let old = "# Rules\n\n## Task State Convention (Gatekeeper Hooks)\nold\n";
        let new = ins(old, S);
        assert_eq!(new, format!("# Rules\n\n{}\n", block(S, "\n")));
    }

    #[test]
    fn state_path_is_substituted() {
        let s = section_for("/home/u/.claude/hooks/task_state.json");
        assert!(s.contains("    /home/u/.claude/hooks/task_state.json\n"));
        assert!(!s.contains("{{"));
    }
}
