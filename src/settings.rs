//! Read model of a Claude Code settings file, shared by install, uninstall
//! and doctor: strict parsing (Claude Code rejects comments, trailing commas
//! and anything else that is not JSON, and then skips the whole file, `env`
//! included), positions for every error, and the list of hook registrations
//! with their places in the file. Editing lives in `install`; this only reads.
//!
//! INTERFACE FIRST: bodies are being filled in on main; signatures are stable.

use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// Hook events Claude Code knows (an unknown name is a schema error).
pub const KNOWN_EVENTS: &[&str] = &[
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "Notification",
    "UserPromptSubmit",
    "Stop",
    "SubagentStart",
    "SubagentStop",
    "PreCompact",
    "PostCompact",
    "SessionStart",
    "SessionEnd",
    "PermissionRequest",
    "Setup",
    "TeammateIdle",
    "TaskCompleted",
    "ConfigChange",
    "WorktreeCreate",
    "WorktreeRemove",
    "InstructionsLoaded",
    "Elicitation",
    "ElicitationResult",
    "StopFailure",
];

/// A settings file that parsed as strict JSON with an object at the root.
#[derive(Debug, Clone)]
pub struct Settings {
    pub path: PathBuf,
    /// The text as read, BOM included if there was one.
    pub text: String,
    /// The file starts with a UTF-8 BOM (some Claude Code versions reject it).
    pub bom: bool,
    pub value: Value,
}

/// Why a settings file cannot be used, with its place (1-based line and column).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub path: PathBuf,
    pub line: usize,
    pub column: usize,
    pub reason: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.path.display(),
            self.line,
            self.column,
            self.reason
        )
    }
}

/// One `{"type": …, "command": …}` handler inside `hooks.<event>[group].hooks[index]`.
#[derive(Debug, Clone, PartialEq)]
pub struct HookEntry {
    pub event: String,
    pub group: usize,
    pub index: usize,
    /// The group's `matcher`, if present (any JSON type; a non-string is a schema issue).
    pub matcher: Option<Value>,
    pub hook_type: Option<String>,
    pub command: Option<String>,
    pub shell: Option<String>,
    pub timeout: Option<f64>,
    /// 1-based line of the handler object in the file.
    pub line: usize,
}

/// Something Claude Code would reject in an otherwise parseable file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaIssue {
    /// Where, as a dotted path (`hooks.Stop[0].matcher`).
    pub at: String,
    pub line: usize,
    pub column: usize,
    pub reason: String,
}

/// Parse `text` (read from `path`) strictly. A BOM is accepted and reported
/// in [`Settings::bom`]; an empty or whitespace-only text is an error here
/// (callers that treat "empty" as "create" check that first).
pub fn parse(path: &Path, text: &str) -> Result<Settings, ParseError> {
    let _ = (path, text);
    todo!("settings::parse")
}

/// Every hook handler in the file, in file order, and every schema issue
/// found on the way (`hooks` not an object, an event not an array, a group
/// not an object, `hooks` of a group not an array, a matcher not a string,
/// a handler without `type`, a command handler without a string `command`,
/// an unknown event name).
pub fn hook_entries(settings: &Settings) -> (Vec<HookEntry>, Vec<SchemaIssue>) {
    let _ = settings;
    todo!("settings::hook_entries")
}

/// 1-based (line, column) of byte `offset` in `text` (column counts chars).
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}
