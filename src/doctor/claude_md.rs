//! The Task State Convention block in `<claude dir>/CLAUDE.md`: without it
//! Claude never writes task_state.json and the state signal is dead. Doctor
//! checks the block is there once and matches what this gk would paste; the
//! user's own text around it is none of its business.

use std::path::Path;

use super::finding::{Finding, Group, Remedy, Severity, FIX_COMMAND};

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
    Duplicated(usize),
    /// Why it differs from what this gk writes.
    Outdated(String),
}

/// Pure: judge the CLAUDE.md text (`None` when the file does not exist).
pub fn assess(text: Option<&str>, spec: &SectionSpec) -> SectionState {
    let Some(original) = text else {
        return SectionState::Missing;
    };
    let text = original.replace("\r\n", "\n");
    let lines: Vec<&str> = text.lines().collect();
    let begins: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].trim_start().starts_with(spec.begin))
        .collect();
    let ends: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].trim_start().starts_with(spec.end))
        .collect();
    let inside = |i: usize| {
        begins
            .iter()
            .any(|&b| b < i && ends.iter().any(|&e| e > i && e > b))
    };
    let legacy = (0..lines.len())
        .filter(|&i| lines[i].trim() == spec.legacy_heading && !inside(i))
        .count();
    let count = begins.len() + legacy;
    match count {
        0 => SectionState::Missing,
        1 if legacy == 1 => SectionState::Outdated(
            "it is the Python-era section (gatekeeper.py, no gk markers)".to_string(),
        ),
        1 => {
            let b = begins[0];
            if !ends.iter().any(|&e| e > b) {
                return SectionState::Outdated("its begin marker has no end marker".to_string());
            }
            match &spec.expected {
                // Up to date exactly when pasting the current block again
                // would change nothing.
                Some(section)
                    if crate::install::claude_md::insert_section(original, section) != original =>
                {
                    SectionState::Outdated("it differs from the block this gk writes".to_string())
                }
                _ => SectionState::Ok,
            }
        }
        n => SectionState::Duplicated(n),
    }
}

pub fn finding(state: &SectionState, path: &Path) -> Option<Finding> {
    let shown = path.display();
    let f = match state {
        SectionState::Ok => return None,
        SectionState::Missing => Finding::new(
            "claude-md-section-missing",
            Severity::Warning,
            Group::ClaudeMd,
            format!("{shown} has no Task State Convention block; Claude will not keep task_state.json up to date"),
        ),
        SectionState::Duplicated(n) => Finding::new(
            "claude-md-section-duplicated",
            Severity::Warning,
            Group::ClaudeMd,
            format!("{shown} has the Task State Convention {n} times; Claude reads every copy"),
        ),
        SectionState::Outdated(why) => Finding::new(
            "claude-md-section-outdated",
            Severity::Warning,
            Group::ClaudeMd,
            format!("the Task State Convention block in {shown} is outdated: {why}"),
        ),
    };
    Some(
        f.at(path, None)
            .fix(format!(
                "{FIX_COMMAND} (writes the current block; your own text stays as it is)"
            ))
            .remedy(Remedy::ClaudeMd),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::install::claude_md::{insert_section, BEGIN_MARKER, END_MARKER};

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
        let written = insert_section("# Mine\r\n", SECTION);
        assert!(written.contains("\r\n<!-- gk:end"));
        assert_eq!(assess(Some(&written), &s), SectionState::Ok);
        let old = format!("{BEGIN_MARKER}\nold\n{END_MARKER}\n");
        assert!(matches!(assess(Some(&old), &s), SectionState::Outdated(_)));
        assert!(matches!(
            assess(Some(&format!("{BEGIN_MARKER}\nold\n")), &s),
            SectionState::Outdated(_)
        ));
        assert!(matches!(
            assess(
                Some("## Task State Convention (Gatekeeper Hooks)\nTwo global hooks (`gatekeeper.py`…\n"),
                &s
            ),
            SectionState::Outdated(_)
        ));
        let once = insert_section("", SECTION);
        assert_eq!(
            assess(Some(&format!("{once}\n{once}")), &s),
            SectionState::Duplicated(2)
        );
        assert_eq!(
            assess(
                Some(&format!(
                    "## Task State Convention (Gatekeeper Hooks)\nx\n\n{once}"
                )),
                &s
            ),
            SectionState::Duplicated(2)
        );
    }
}
