//! The Task State Convention's text, `assets/CLAUDE-section.md`: install
//! pastes it into CLAUDE.md (`crate::edit::claude_md`), and the session
//! check hands it to Claude when gk runs as a plugin, which cannot edit
//! CLAUDE.md ([`super::plugin`]). Here, below both, so both read one copy.

/// The section as shipped; `{{STATE_FILE}}` is replaced at install time.
pub const SECTION_TEMPLATE: &str = include_str!("../../assets/CLAUDE-section.md");

/// How every begin marker of gk's block in CLAUDE.md starts.
pub const BEGIN_MARKER_START: &str = "<!-- gk:begin";

/// The heading of the section the Python hooks' instructions used.
pub const LEGACY_HEADING: &str = "## Task State Convention (Gatekeeper Hooks)";

/// The section text for this machine, with the real state file path.
pub fn section_for(state_file: &str) -> String {
    SECTION_TEMPLATE.replace("{{STATE_FILE}}", state_file)
}
