//! The Task State Convention in the user's `CLAUDE.md`: without it Claude
//! never writes `task_state.json` and the state signal is dead. gk pastes
//! `assets/CLAUDE-section.md` between two marker comments so the block can
//! be found again, replaced by a newer version, and removed by uninstall.
//!
//! [`insert_section`] and [`remove_section`] are pure and inverse: the
//! user's own text is kept byte for byte and a CRLF file stays CRLF. The
//! Python-era section (same purpose, heading
//! `## Task State Convention (Gatekeeper Hooks)`, no markers) is replaced
//! by the marked block, up to the next heading of the same or a higher level
//! or through the section's known last line, whichever comes first. Lines
//! inside fenced code blocks are never taken for markers or headings.

use std::path::Path;

use crate::error::{Error, Result};

#[cfg(test)]
use crate::hooks::convention::section_for;
use crate::hooks::convention::LEGACY_HEADING;

pub const BEGIN_MARKER: &str =
    "<!-- gk:begin (added by gk install; gk uninstall removes everything up to gk:end) -->";

/// The begin marker of a CLAUDE.md that install created: the only kind of
/// CLAUDE.md that uninstall deletes (when nothing but the block is in it).
/// A file that was there before install, even an empty one, is only ever
/// edited. Kept as it is when the block is replaced by a newer one.
pub const CREATED_BEGIN_MARKER: &str = "<!-- gk:begin (gk install created this file; gk uninstall removes everything up to gk:end, and the file if nothing else is left) -->";
pub const END_MARKER: &str = "<!-- gk:end -->";

/// The file's line ending: CRLF when more of its lines end in CRLF than in
/// a bare LF, else LF. A majority, not "any CRLF": gk's own joins can put a
/// `\n` after a lone `\r` the user left at the end, and that one CRLF must
/// not turn a file's block from LF to CRLF between two runs. The block
/// itself only adds endings of the kind chosen, so the choice is stable.
fn newline_of(text: &str) -> &'static str {
    let lf = text.matches('\n').count();
    let crlf = text.matches("\r\n").count();
    if crlf > lf - crlf {
        "\r\n"
    } else {
        "\n"
    }
}

/// The marked block in the file's own line endings, without a final newline.
fn block(section: &str, nl: &str) -> String {
    block_with(BEGIN_MARKER, section, nl)
}

fn block_with(begin: &str, section: &str, nl: &str) -> String {
    let body: Vec<&str> = section.trim_end_matches(['\n', '\r']).lines().collect();
    let mut out = String::from(begin);
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
    let lines = prose_lines(text);
    let begin = lines
        .iter()
        .find(|(_, l)| l.starts_with(crate::hooks::convention::BEGIN_MARKER_START))?
        .0;
    let end_line = lines
        .iter()
        .find(|(at, l)| *at > begin && l.starts_with(END_MARKER))?
        .0;
    Some((begin, end_line + END_MARKER.len()))
}

/// Every line outside fenced code blocks, as (offset of its start, content
/// without the line ending). A marker or heading shown inside a ``` or ~~~
/// block is the user's example, not something gk put there.
///
/// A fence that is never closed hides nothing: otherwise a file ending in an
/// open ``` would hide the block gk appends after it, and every install
/// would append another (and uninstall remove none). Linear: whether a
/// fence closes is read from the longest closing run after each line.
pub fn prose_lines(text: &str) -> Vec<(usize, &str)> {
    struct Line<'a> {
        start: usize,
        content: &'a str,
        /// Fence character and run length when the line could open a fence.
        opens: Option<(char, usize)>,
        /// Fence character and run length when the line could close one.
        closes: Option<(char, usize)>,
    }
    let mut lines = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let mut start = offset;
        offset += line.len();
        let mut content = line.trim_end_matches(['\n', '\r']);
        if let Some(rest) = content.strip_prefix('\u{feff}').filter(|_| start == 0) {
            // A BOM is not part of the first line's text.
            content = rest;
            start = '\u{feff}'.len_utf8();
        }
        let indent = content.len() - content.trim_start_matches(' ').len();
        let rest = &content[indent..];
        let run = |c: char| rest.chars().take_while(|x| *x == c).count();
        let fence_char = ['`', '~'].into_iter().find(|&c| run(c) >= 3);
        let opens = fence_char.filter(|_| indent <= 3).map(|c| (c, run(c)));
        let closes = opens.filter(|&(c, n)| rest[n * c.len_utf8()..].trim().is_empty());
        lines.push(Line {
            start,
            content,
            opens,
            closes,
        });
    }
    // The longest closing run of each fence character after line i.
    let mut longest_after = vec![(0usize, 0usize); lines.len() + 1];
    for i in (0..lines.len()).rev() {
        let (mut backticks, mut tildes) = longest_after[i + 1];
        match lines[i].closes {
            Some(('`', n)) => backticks = backticks.max(n),
            Some((_, n)) => tildes = tildes.max(n),
            None => {}
        }
        longest_after[i] = (backticks, tildes);
    }
    let mut out = Vec::new();
    let mut fence: Option<(char, usize)> = None;
    for (i, line) in lines.iter().enumerate() {
        match fence {
            None => match line.opens {
                Some((c, n)) => {
                    let (backticks, tildes) = longest_after[i + 1];
                    let closed_later = if c == '`' { backticks } else { tildes } >= n;
                    if closed_later {
                        fence = Some((c, n));
                    } else {
                        out.push((line.start, line.content));
                    }
                }
                None => out.push((line.start, line.content)),
            },
            Some((c, n)) => {
                if line.closes.is_some_and(|(cc, m)| cc == c && m >= n) {
                    fence = None;
                }
            }
        }
    }
    out
}

/// The legacy section: its heading line up to the next `#` or `##` heading,
/// or through the line naming `prompt_gatekeeper_model_switcher.md` (the
/// section's last line as the seed shipped it) when that comes first, so
/// text the user wrote after it stays. Fenced code blocks are skipped.
/// Trailing blank lines are left outside.
fn legacy_range(text: &str) -> Option<(usize, usize)> {
    let lines = prose_lines(text);
    let at = lines
        .iter()
        .position(|(_, l)| l.trim_end() == LEGACY_HEADING)?;
    let start = lines[at].0;
    let mut end = text.len();
    for (offset, content) in &lines[at + 1..] {
        if is_heading_up_to_level2(content) {
            end = *offset;
            break;
        }
        if content.contains(LEGACY_LAST_LINE) {
            end = offset + content.len();
            end += text[end..].find('\n').map_or(text.len() - end, |i| i + 1);
            break;
        }
    }
    // Leave blank lines before the next heading where they are.
    let mut cut = end;
    let section = &text[start..end];
    let trimmed = section.trim_end_matches(['\n', '\r', ' ', '\t']);
    if end < text.len() || trimmed.len() < section.len() {
        cut = start + trimmed.len();
    }
    Some((start, cut))
}

/// What the last line of the Python-era section names.
const LEGACY_LAST_LINE: &str = "prompt_gatekeeper_model_switcher.md";

fn is_heading_up_to_level2(line: &str) -> bool {
    line.starts_with("# ") || line.starts_with("## ") || line == "#" || line == "##"
}

/// Line numbers (1-based) of lines outside code fences starting with `prefix`.
fn marker_lines(text: &str, prefix: &str) -> Vec<usize> {
    prose_lines(text)
        .into_iter()
        .filter(|(_, l)| l.starts_with(prefix))
        .map(|(at, _)| text[..at].matches('\n').count() + 1)
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
    Err(Error::refused(format!(
        "{}:{line}: {what}; put the gk block right by hand",
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
        let begin = if created_by_install(text) {
            CREATED_BEGIN_MARKER
        } else {
            BEGIN_MARKER
        };
        let new_block = block_with(begin, section, nl);
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

/// The whole text of a CLAUDE.md that install creates (there was none):
/// the block, opened with [`CREATED_BEGIN_MARKER`], and a final newline.
pub fn new_file(section: &str) -> String {
    format!("{}\n", block_with(CREATED_BEGIN_MARKER, section, "\n"))
}

/// Was this CLAUDE.md created by install (its block opens with
/// [`CREATED_BEGIN_MARKER`])? Only such a file may be deleted by uninstall,
/// and only when removing the block leaves it empty.
pub fn created_by_install(text: &str) -> bool {
    marked_range(text).is_some_and(|(a, _)| {
        text[a..]
            .lines()
            .next()
            .is_some_and(|l| l.trim_end() == CREATED_BEGIN_MARKER)
    })
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
    // At the top of the file: drop the blank line that followed the block.
    if before.is_empty() || before == "\u{feff}" {
        return format!("{before}{}", after.strip_prefix(nl).unwrap_or(after));
    }
    // In the middle of the file: also drop one of two blank lines left meeting.
    if before.ends_with(&format!("{nl}{nl}")) && after.starts_with(nl) {
        return format!("{before}{}", &after[nl.len()..]);
    }
    format!("{before}{after}")
}

/// Keep the first marked block and take out later copies (what
/// `gk doctor --fix` does with a duplicated block before pasting the current
/// one). Markers inside fenced code blocks are the user's text and stay;
/// markers that do not pair up are refused, as by [`insert_section`]. A
/// blank line that a removal would leave doubled goes with the block.
pub fn remove_extra_blocks(path: &Path, text: &str) -> Result<String> {
    let damaged = |at: usize, what: &str| {
        let line = text[..at].matches('\n').count() + 1;
        Error::refused(format!(
            "{}:{line}: {what}; put the gk block right by hand",
            path.display()
        ))
    };
    let mut blocks: Vec<(usize, usize)> = Vec::new();
    let mut open: Option<usize> = None;
    for (at, line) in prose_lines(text) {
        if line.starts_with("<!-- gk:begin") {
            if open.is_some() {
                return Err(damaged(at, "a gk:begin marker inside a gk block"));
            }
            open = Some(at);
        } else if line.starts_with(END_MARKER) {
            let Some(begin) = open.take() else {
                return Err(damaged(at, "a gk:end marker without gk:begin"));
            };
            let end = at + line.len();
            let end = end + text[end..].find('\n').map_or(text.len() - end, |i| i + 1);
            blocks.push((begin, end));
        }
    }
    if let Some(at) = open {
        return Err(damaged(at, "a gk:begin marker without gk:end"));
    }
    let mut out = text.to_string();
    for &(start, mut end) in blocks.iter().skip(1).rev() {
        let before = &text[..start];
        if before.is_empty() || before.ends_with("\n\n") || before.ends_with("\r\n\r\n") {
            if text[end..].starts_with("\r\n") {
                end += 2;
            } else if text[end..].starts_with('\n') {
                end += 1;
            }
        }
        out.replace_range(start..end, "");
    }
    Ok(out)
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

    #[test]
    fn text_after_the_python_era_section_without_a_heading_is_kept() {
        // The section as the seed shipped it ends with the path of the
        // Python-era document; what the user wrote after it is theirs.
        let old = "# Rules\n\n## Task State Convention (Gatekeeper Hooks)\nTwo global hooks (`gatekeeper.py` ...)\nRationale, scope, decisions and full source:\n`C:\\Users\\ann\\.claude\\prompt_gatekeeper_model_switcher.md`\n\nAlways answer in French.\n---\nmy notes\n";
        let new = ins(old, S);
        assert!(!new.contains("gatekeeper.py"), "{new}");
        assert!(
            new.ends_with(&format!(
                "{END_MARKER}\n\nAlways answer in French.\n---\nmy notes\n"
            )),
            "{new}"
        );
    }

    #[test]
    fn markers_and_headings_inside_code_fences_are_the_users_text() {
        for text in [
            // A note showing what gk adds.
            format!("# Doc\n\n```\n{BEGIN_MARKER}\n{END_MARKER}\n```\n"),
            format!("# Doc\n\n~~~md\n{BEGIN_MARKER}\n~~~\nmore\n"),
            // The old section quoted as an example, then the user's own text.
            "# Doc\n\n```md\n## Task State Convention (Gatekeeper Hooks)\nfoo\n```\n\nmine\n"
                .to_string(),
        ] {
            let with = ins(&text, S);
            assert!(with.starts_with(&text), "{text:?} -> {with:?}");
            assert_eq!(rem(&with), text, "{text:?}");
            assert_eq!(ins(&with, S), with, "{text:?}");
        }
        // A code block with `# comment` lines inside the old section does
        // not end it early.
        let old = "## Task State Convention (Gatekeeper Hooks)\nold\n```sh\n# run this\n```\nold too\n\n## After\n";
        let new = ins(old, S);
        assert_eq!(new, format!("{}\n\n## After\n", block(S, "\n")));
    }

    #[test]
    fn a_bom_does_not_hide_a_section_on_the_first_line() {
        // Notepad saves UTF-8 with a BOM; the old section pasted at the top.
        let old = "\u{feff}## Task State Convention (Gatekeeper Hooks)\nold\n\n# Mine\n";
        let new = ins(old, S);
        assert_eq!(new, format!("\u{feff}{}\n\n# Mine\n", block(S, "\n")));
        assert_eq!(ins(&new, S), new);
        assert_eq!(rem(&new), "\u{feff}# Mine\n");
    }

    #[test]
    fn extra_blocks_are_removed_and_the_first_kept() {
        let p = Path::new("CLAUDE.md");
        let once = insert_section(p, "", "## S\nbody\n").unwrap();
        let text = format!("# mine\n\n{once}\nmiddle\n\n{once}\nend\n");
        let out = remove_extra_blocks(p, &text).unwrap();
        assert_eq!(out, format!("# mine\n\n{once}\nmiddle\n\nend\n"));
        // CRLF files lose the copy and keep their line endings.
        let crlf = text.replace('\n', "\r\n");
        assert_eq!(
            remove_extra_blocks(p, &crlf).unwrap(),
            out.replace('\n', "\r\n")
        );
        // Unpaired markers: refused with the line.
        let bad = format!("{BEGIN_MARKER}\n{BEGIN_MARKER}\n{END_MARKER}\n");
        assert!(remove_extra_blocks(p, &bad)
            .unwrap_err()
            .to_string()
            .starts_with("CLAUDE.md:2:"));
    }

    #[test]
    fn an_unclosed_fence_does_not_hide_the_block_gk_appended() {
        for text in [
            "My notes\n\n```sh\necho x\n",
            "My notes\n\n~~~\nopen",
            "```\n",
            "a\n```a\n```a\n````\n",
        ] {
            let with = ins(text, S);
            assert!(with.starts_with(text), "{text:?} -> {with:?}");
            assert_eq!(ins(&with, S), with, "not idempotent for {text:?}");
            assert_eq!(rem(&with), text, "{text:?}");
        }
    }

    #[test]
    fn a_lone_carriage_return_at_the_end_round_trips() {
        for text in ["My notes\r", "a\r\nb\r", "\r", "a\n\r"] {
            let with = ins(text, S);
            assert_eq!(ins(&with, S), with, "not idempotent for {text:?}");
            assert_eq!(rem(&with), text, "{text:?}");
        }
    }

    /// Texts stitched from the pieces that have broken the editor before
    /// (line endings, fences, headings, a BOM), from a fixed-seed generator:
    /// insert then remove gives the bytes back, and a second insert
    /// changes nothing.
    #[test]
    fn generated_texts_round_trip() {
        const PIECES: &[&str] = &[
            "a", " ", "\n", "\r", "\r\n", "```", "~~~", "````", "   ```", "# h", "## h",
            "\u{feff}", "x y", "\t",
        ];
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for case in 0..5000 {
            let len = (next() % 12) as usize;
            let text: String = (0..len)
                .map(|_| PIECES[(next() % PIECES.len() as u64) as usize])
                .collect();
            let Ok(with) = insert_section(Path::new("CLAUDE.md"), &text, S) else {
                continue;
            };
            assert_eq!(rem(&with), text, "case {case}: {text:?} -> {with:?}");
            assert_eq!(ins(&with, S), with, "case {case}: {text:?}");
        }
    }

    #[test]
    fn fenced_marker_examples_are_not_blocks_to_remove() {
        let p = Path::new("CLAUDE.md");
        let once = insert_section(p, "", "## S\nbody\n").unwrap();
        let example = format!("```\n{BEGIN_MARKER}\nexample\n{END_MARKER}\n```\n");
        let text = format!("{once}\n{example}\n{once}");
        let out = remove_extra_blocks(p, &text).unwrap();
        assert!(out.contains(&example), "{out}");
        assert_eq!(out.matches(END_MARKER).count(), 2, "{out}");
    }
}
