//! The Task State Convention block in `<claude dir>/CLAUDE.md`: without it
//! Claude never writes task_state.json and the state signal is dead. Doctor
//! checks the block is there once and matches what this gk would paste; the
//! user's own text around it is none of its business.

use std::path::Path;

use super::finding::{Code, Finding, Severity, FIX_COMMAND};
use crate::setup::parts::Part;

/// How the block is recognised and what it should say.
#[derive(Debug, Clone)]
pub struct SectionSpec {
    /// Prefix of the line that opens gk's block.
    pub begin: &'static str,
    /// Prefix of the line that closes it.
    pub end: &'static str,
    /// Heading of the Python-era section (pasted by hand, no markers).
    pub legacy_heading: &'static str,
    /// The section this gk would paste (between the markers), if known.
    pub expected: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SectionState {
    Ok,
    Missing,
    /// More than one copy. `legacy`: one of them is the Python-era section,
    /// which only a person can take out safely.
    Duplicated {
        count: usize,
        legacy: bool,
    },
    /// Why it differs from what this gk writes.
    Outdated(String),
    /// Markers that do not pair up: where the block ends is a guess, so
    /// nothing is edited automatically.
    Damaged(String),
    /// The file exists but cannot be read as text (a named pipe, a device,
    /// too large, not UTF-8): why.
    Unreadable(String),
}

/// Markers alternate begin, end, begin, end … (every block closed, none nested).
fn well_formed(begins: &[usize], ends: &[usize]) -> bool {
    begins.len() == ends.len()
        && begins.iter().zip(ends).all(|(b, e)| b < e)
        && begins.iter().skip(1).zip(ends).all(|(b, e)| e < b)
}

/// Pure: judge the CLAUDE.md text (`None` when the file does not exist).
pub fn assess(text: Option<&str>, spec: &SectionSpec) -> SectionState {
    let Some(original) = text else {
        return SectionState::Missing;
    };
    // Install's reading of the file: lines inside fenced code blocks are the
    // user's examples, and a BOM is not part of the first line.
    let prose = crate::edit::claude_md::prose_lines(original);
    let line_of = |at: usize| original[..at].matches('\n').count();
    let starting = |prefix: &str| -> Vec<usize> {
        prose
            .iter()
            .filter(|(_, l)| l.starts_with(prefix))
            .map(|(at, _)| line_of(*at))
            .collect()
    };
    let begins = starting(spec.begin);
    let ends = starting(spec.end);
    let inside = |i: usize| begins.iter().zip(&ends).any(|(&b, &e)| b < i && i < e);
    let legacy = prose
        .iter()
        .filter(|(at, l)| l.trim() == spec.legacy_heading && !inside(line_of(*at)))
        .count();
    if !well_formed(&begins, &ends) {
        let line = begins.iter().chain(&ends).min().map_or(1, |l| l + 1);
        return SectionState::Damaged(format!(
            "its gk:begin / gk:end markers do not pair up (from line {line})"
        ));
    }
    match begins.len() + legacy {
        0 => SectionState::Missing,
        1 if legacy == 1 => SectionState::Outdated(
            "it is the Python-era section (gatekeeper.py, no gk markers)".to_string(),
        ),
        1 => match &spec.expected {
            // Up to date exactly when pasting the current block again would
            // change nothing.
            Some(section) => {
                match crate::edit::claude_md::insert_section(
                    Path::new("CLAUDE.md"),
                    original,
                    section,
                ) {
                    Ok(new) if new == original => SectionState::Ok,
                    Ok(_) => SectionState::Outdated(
                        "it differs from the block this gk writes".to_string(),
                    ),
                    Err(e) => SectionState::Damaged(e.to_string()),
                }
            }
            None => SectionState::Ok,
        },
        count => SectionState::Duplicated {
            count,
            legacy: legacy > 0,
        },
    }
}

pub fn finding(state: &SectionState, path: &Path) -> Option<Finding> {
    let shown = path.display();
    let fixed = format!("{FIX_COMMAND} (writes the current block; your own text stays as it is)");
    let f = match state {
        SectionState::Ok => return None,
        SectionState::Missing => Finding::new(
            Code::ClaudeMdSectionMissing,
            format!("{shown} has no Task State Convention block; Claude will not keep task_state.json up to date"),
        )
        .fix(fixed)
        .fixed_by(Part::ClaudeMd),
        SectionState::Duplicated { count, legacy: false } => Finding::new(
            Code::ClaudeMdSectionDuplicated,
            format!("{shown} has the Task State Convention {count} times; Claude reads every copy"),
        )
        .fix(format!("{FIX_COMMAND} (keeps one current block; your own text stays as it is)"))
        .fixed_by(Part::ClaudeMd),
        SectionState::Duplicated { count, legacy: true } => Finding::new(
            Code::ClaudeMdSectionDuplicated,
            format!("{shown} has the Task State Convention {count} times, one of them the Python-era section; Claude reads every copy"),
        )
        .fix(format!("delete the section headed \"## Task State Convention (Gatekeeper Hooks)\" from {shown} by hand (gk keeps its marked block), then {FIX_COMMAND}")),
        SectionState::Outdated(why) => Finding::new(
            Code::ClaudeMdSectionOutdated,
            format!("the Task State Convention block in {shown} is outdated: {why}"),
        )
        .fix(fixed)
        .fixed_by(Part::ClaudeMd),
        SectionState::Damaged(why) => Finding::new(
            Code::ClaudeMdSectionOutdated,
            format!("the Task State Convention block in {shown} is damaged: {why}"),
        )
        .fix(format!("put the <!-- gk:begin … --> / <!-- gk:end --> lines of {shown} right by hand (or delete both and the text between), then {FIX_COMMAND}")),
        SectionState::Unreadable(why) => Finding::new(
            Code::ClaudeMdUnreadable,
            format!("{shown} cannot be read ({why}); gk can neither check nor edit its Task State Convention block"),
        )
        .fix(format!("make {shown} a UTF-8 text file (or move it away), then {FIX_COMMAND}")),
    };
    Some(f.at(path, None))
}

/// `claude-md-section-missing` when a plugin runs gk's session hook: that
/// hook hands Claude the convention at each session start (a plugin cannot
/// edit CLAUDE.md), so nothing is lost; the block is optional.
pub fn missing_handed_by_plugin(path: &Path, plugin: &str) -> Finding {
    let shown = path.display();
    Finding::new(
        Code::ClaudeMdSectionMissing,
        format!("{shown} has no Task State Convention block; plugin {plugin}'s session hook hands it to Claude at each session start"),
    )
    .severity(Severity::Info)
    .fix(format!("optional: `gk install` writes the block into {shown}, so Claude has it in sessions without the plugin"))
    .at(path, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::edit::claude_md::{insert_section, BEGIN_MARKER, END_MARKER};

    const SECTION: &str = "## Task State Convention (gk hooks)\nbody\n";

    fn spec() -> SectionSpec {
        SectionSpec {
            begin: "<!-- gk:begin",
            end: END_MARKER,
            legacy_heading: "## Task State Convention (Gatekeeper Hooks)",
            expected: Some(SECTION.to_string()),
        }
    }

    #[test]
    fn states() {
        let s = spec();
        assert_eq!(assess(None, &s), SectionState::Missing);
        assert_eq!(assess(Some("# Mine\n"), &s), SectionState::Missing);
        let written = insert_section(Path::new("C"), "# Mine\r\n", SECTION).unwrap();
        assert!(written.contains("\r\n<!-- gk:end"));
        assert_eq!(assess(Some(&written), &s), SectionState::Ok);
        let old = format!("{BEGIN_MARKER}\nold\n{END_MARKER}\n");
        assert!(matches!(assess(Some(&old), &s), SectionState::Outdated(_)));
        assert!(matches!(
            assess(Some(&format!("{BEGIN_MARKER}\nold\n")), &s),
            SectionState::Damaged(_)
        ));
        assert!(matches!(
            assess(
                Some("## Task State Convention (Gatekeeper Hooks)\nTwo global hooks (`gatekeeper.py`…\n"),
                &s
            ),
            SectionState::Outdated(_)
        ));
        let once = insert_section(Path::new("C"), "", SECTION).unwrap();
        assert_eq!(
            assess(Some(&format!("{once}\n{once}")), &s),
            SectionState::Duplicated {
                count: 2,
                legacy: false
            }
        );
        assert_eq!(
            assess(
                Some(&format!(
                    "## Task State Convention (Gatekeeper Hooks)\nx\n\n{once}"
                )),
                &s
            ),
            SectionState::Duplicated {
                count: 2,
                legacy: true
            }
        );
    }

    #[test]
    fn fenced_examples_and_a_bom_are_read_as_install_reads_them() {
        let s = spec();
        let once = insert_section(Path::new("C"), "# Mine\n", SECTION).unwrap();
        // The user's notes quote the markers and the old heading in a fence:
        // still one block, up to date.
        let quoted = format!(
            "{once}\n```\n{BEGIN_MARKER}\n## Task State Convention (Gatekeeper Hooks)\n{END_MARKER}\n```\n"
        );
        assert_eq!(assess(Some(&quoted), &s), SectionState::Ok);
        // Notepad's BOM before the Python-era heading on line 1.
        let bom = "\u{feff}## Task State Convention (Gatekeeper Hooks)\nold text\n";
        assert!(matches!(assess(Some(bom), &s), SectionState::Outdated(_)));
    }
}
