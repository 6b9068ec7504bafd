//! `gk hook session` started by a plugin (gk's own, from this repository's
//! marketplace): the client sets `CLAUDE_PLUGIN_ROOT` in the environment
//! of every plugin hook, SessionStart included (measured, 2.1.332), and
//! never for a hook from a settings file. Two things differ then, each
//! from one small bounded read:
//!
//! - the plugin's `hooks/hooks.json` registers gk's hooks, so the session
//!   check must not call them "not registered in any settings file"
//!   ([`registered_by`]);
//! - a plugin cannot edit CLAUDE.md, so when CLAUDE.md holds no Task State
//!   Convention the check hands it to Claude as the SessionStart
//!   `additionalContext` ([`convention_context`]): it arrives verbatim in
//!   the model's first message (measured: up to 10,000 characters inline;
//!   the convention is about 2,400).
//!
//! Read only, through the bounded reader; nothing here writes or spawns
//! (the tests, which write files, are in `crate::setup::plugin`).

use std::path::Path;

use serde_json::Value;

use super::convention;
use crate::hookcmd::{classify_under, exec_spelling, CommandContext, HookKind, Owner};
use crate::paths::ClaudePaths;

/// The variable the client sets for a plugin's hooks: the plugin's folder.
pub const PLUGIN_ROOT_VAR: &str = "CLAUDE_PLUGIN_ROOT";

/// The most of a plugin's hooks file read (gk's is under 1 KiB).
const MAX_HOOKS_FILE: u64 = 64 << 10;

/// The most of CLAUDE.md read looking for the convention; past it the
/// convention is taken to be there (nothing is added).
pub(crate) const MAX_CLAUDE_MD: u64 = 1 << 20;

/// gk's hooks that the plugin at `root` registers in `hooks/hooks.json`
/// (each under its own event), in [`HookKind::ALL`] order; none when the
/// file cannot be read or parsed.
pub fn registered_by(root: &Path, ctx: &CommandContext) -> Vec<HookKind> {
    let Ok(file) = crate::bounded::read(&root.join("hooks/hooks.json"), MAX_HOOKS_FILE) else {
        return Vec::new();
    };
    let Ok(v) = serde_json::from_slice::<Value>(&file.bytes) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    let Some(events) = v.get("hooks").and_then(Value::as_object) else {
        return found;
    };
    for (event, groups) in events {
        let handlers = groups
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|g| g.get("hooks").and_then(Value::as_array))
            .flatten();
        for h in handlers {
            let Some(command) = h.get("command").and_then(Value::as_str) else {
                continue;
            };
            let spelled = match h.get("args").and_then(Value::as_array) {
                Some(args) => {
                    let words: Vec<String> = args
                        .iter()
                        .map(|a| a.as_str().unwrap_or_default().to_string())
                        .collect();
                    exec_spelling(command, &words)
                }
                None => command.to_string(),
            };
            if let Owner::Gk(kind) = classify_under(event, &spelled, ctx) {
                if kind.event() == event && !found.contains(&kind) {
                    found.push(kind);
                }
            }
        }
    }
    found.sort();
    found
}

/// The convention as install would paste it into CLAUDE.md, when
/// `<claude dir>/CLAUDE.md` is absent or holds neither gk's block nor the
/// Python hooks' section.
pub fn convention_context(paths: &ClaudePaths) -> Option<String> {
    match crate::bounded::read(&paths.claude_md(), MAX_CLAUDE_MD) {
        Err(crate::bounded::ReadError::NotFound) => {}
        Ok(file) if !has_convention(&String::from_utf8_lossy(&file.bytes)) => {}
        _ => return None,
    }
    Some(convention::section_for(
        &paths.state_file().display().to_string(),
    ))
}

/// Whether a CLAUDE.md text holds the convention: a line starting gk's
/// begin marker, or the Python hooks' heading.
fn has_convention(text: &str) -> bool {
    text.lines().any(|l| {
        l.starts_with(convention::BEGIN_MARKER_START) || l.trim_end() == convention::LEGACY_HEADING
    })
}
