//! `gk hook session` started by a plugin (gk's own, from this repository's
//! marketplace): the client sets `CLAUDE_PLUGIN_ROOT` in the environment
//! of every plugin hook, SessionStart included (measured, 2.1.332), and
//! never for a hook from a settings file. Two things differ then, each
//! from one small bounded read:
//!
//! - (its hooks are read with every enabled plugin's, by
//!   `crate::registry::plugins`, so the session check counts them);
//! - a plugin cannot edit CLAUDE.md, so when CLAUDE.md holds no Task State
//!   Convention the check hands it to Claude as the SessionStart
//!   `additionalContext` ([`convention_context`]): it arrives verbatim in
//!   the model's first message (measured: up to 10,000 characters inline;
//!   the convention is about 2,400).
//!
//! Read only, through the bounded reader; nothing here writes or spawns
//! (the tests, which write files, are in `crate::setup::plugin`).

use super::convention;
use crate::paths::ClaudePaths;

/// The variable the client sets for a plugin's hooks: the plugin's folder.
pub const PLUGIN_ROOT_VAR: &str = "CLAUDE_PLUGIN_ROOT";

/// The most of CLAUDE.md read looking for the convention; past it the
/// convention is taken to be there (nothing is added).
pub(crate) const MAX_CLAUDE_MD: u64 = 1 << 20;

/// The convention as install would paste it into CLAUDE.md, when
/// `<claude dir>/CLAUDE.md` is absent or holds neither gk's block nor the
/// Python hooks' section.
pub fn convention_context(paths: &ClaudePaths) -> Option<String> {
    match crate::bounded::read(&paths.claude_md(), MAX_CLAUDE_MD) {
        Err(crate::bounded::ReadError::NotFound) => {}
        Ok(file) if !has_convention(&String::from_utf8_lossy(&file.bytes)) => {}
        _ => return None,
    }
    Some(convention::section_for(&super::prompt::written_path(
        &paths.state_file(),
    )))
}

/// Whether a CLAUDE.md text holds the convention: a line starting gk's
/// begin marker, or the Python hooks' heading.
fn has_convention(text: &str) -> bool {
    text.lines().any(|l| {
        l.starts_with(convention::BEGIN_MARKER_START) || l.trim_end() == convention::LEGACY_HEADING
    })
}
