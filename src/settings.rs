//! Read model of a Claude Code settings file, shared by install, uninstall
//! and doctor: strict parsing (Claude Code rejects comments, trailing commas
//! and anything else that is not JSON, and then skips the whole file, `env`
//! included), positions for every error, and the list of hook registrations
//! with their places in the file. Editing lives in `install`; this only reads.

use std::fmt;
use std::path::{Path, PathBuf};

use jsonc_parser::ast;
use jsonc_parser::common::Ranged;
use serde_json::Value;

mod schema;

/// Hook events Claude Code knows: the list compiled into the client
/// (version 2.1.332). A name outside it is reported, but not as certainly
/// fatal: a newer client may know more.
pub const KNOWN_EVENTS: &[&str] = &[
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PostToolBatch",
    "Notification",
    "UserPromptSubmit",
    "UserPromptExpansion",
    "SessionStart",
    "SessionEnd",
    "Stop",
    "StopFailure",
    "SubagentStart",
    "SubagentStop",
    "PreCompact",
    "PostCompact",
    "PreModelSwitch",
    "PostModelSwitch",
    "PermissionRequest",
    "PermissionDenied",
    "Setup",
    "TeammateIdle",
    "TaskCreated",
    "TaskCompleted",
    "Elicitation",
    "ElicitationResult",
    "ConfigChange",
    "WorktreeCreate",
    "WorktreeRemove",
    "InstructionsLoaded",
    "CwdChanged",
    "FileChanged",
    "DirectoryAdded",
    "MessageDisplay",
    "PreSkillShellCommand",
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
    /// The bytes are not UTF-8 at all (the client reads such a file as
    /// text and gets something else); otherwise, not strict JSON.
    pub not_utf8: bool,
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
    /// Exec form (client 2.1.139+): `command` is the program itself, run
    /// with these arguments and no shell.
    pub args: Option<Vec<String>>,
    pub shell: Option<String>,
    pub timeout: Option<f64>,
    /// 1-based line of the handler object in the file.
    pub line: usize,
    /// The client ignores this handler (its group, its event or the
    /// handler itself is malformed, or the event is unknown): listed for
    /// gk's editors, never a registration that runs.
    pub dropped: bool,
}

impl HookEntry {
    /// What this handler runs, as one command string: `command` itself, or
    /// for the exec form the program and arguments each in single quotes
    /// (literal, like exec: no variable expansion), so the shell-form logic
    /// of `hookcmd` identifies both forms alike.
    pub fn run_command(&self) -> Option<String> {
        let command = self.command.as_ref()?;
        Some(match &self.args {
            Some(args) => crate::hookcmd::exec_spelling(command, args),
            None => command.clone(),
        })
    }
}

/// What kind of schema issue a [`SchemaIssue`] is. Every decision about an
/// issue (what the client does with the file, may gk edit it, how doctor
/// ranks it) is made from this and [`SchemaIssue::effect`], never from
/// the wording of its reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IssueKind {
    /// A setting the client's schema knows, of the wrong type or with a
    /// value it does not accept (`"model": 5`, `"env": [...]`, an unknown
    /// `permissions.defaultMode`): the client skips the whole file.
    KeyType,
    /// A setting the client drops alone when it is malformed
    /// (`extraKnownMarketplaces` not an object, a rule in
    /// `permissions.allow` that is not a string): the rest loads.
    FieldIgnored,
    /// `hooks` is not an object: the client ignores every hook of the file
    /// (and skips the whole file when it is a non-empty array: see
    /// [`effect_of`]).
    HooksNotObject,
    /// An event name the pinned client does not know (a wrongly cased one
    /// too): it ignores that event and runs the others.
    UnknownEvent,
    /// A group's `matcher` that is not a string.
    MatcherNotString,
    /// The shape of the hooks is broken under some event: the event not an
    /// array, a group not an object, a group's `hooks` not an array, a
    /// handler not an object.
    Shape,
    /// A handler the client cannot run (no `type`, an unknown `type`, a
    /// command hook without a string `command`, a `timeout` that is not a
    /// number, `args` not strings) or a group without a `hooks` array.
    Handler,
    /// A key that appears twice in one object: the client reads the last
    /// and loads the file.
    DuplicateKey,
}

/// What the pinned client (2.1.332) does with a file because of an issue:
/// measured shape by shape (tests/fixtures/settings-shapes/, recorded in
/// its verdicts.tsv).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Effect {
    /// Nothing: the file loads as if the issue were not there.
    Loads,
    /// That part alone is ignored (an entry, a group, an event, a field);
    /// the rest of the file is in effect.
    DropsPart,
    /// The whole file is skipped: none of its hooks, permissions or env.
    SkipsFile,
}

/// The events whose malformed parts make the client skip the whole file:
/// "a PreToolUse/PermissionRequest hook that cannot be loaded may be what
/// guards the permissions declared beside it".
pub const GUARD_EVENTS: &[&str] = &["PreToolUse", "PermissionRequest"];

/// The client's rule, in one place: what an issue of `kind` under `event`
/// does to the file.
pub fn effect_of(kind: IssueKind, event: Option<&str>) -> Effect {
    let guards = event.is_some_and(|e| GUARD_EVENTS.contains(&e));
    match kind {
        IssueKind::KeyType => Effect::SkipsFile,
        IssueKind::DuplicateKey => Effect::Loads,
        IssueKind::FieldIgnored | IssueKind::HooksNotObject | IssueKind::UnknownEvent => {
            Effect::DropsPart
        }
        IssueKind::MatcherNotString | IssueKind::Shape | IssueKind::Handler if guards => {
            Effect::SkipsFile
        }
        IssueKind::MatcherNotString | IssueKind::Shape | IssueKind::Handler => Effect::DropsPart,
    }
}

/// Something in an otherwise parseable file that the client does not take
/// as it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaIssue {
    /// Where, as a dotted path (`hooks.Stop[0].matcher`).
    pub at: String,
    pub kind: IssueKind,
    /// What the client does about it ([`effect_of`], except for a
    /// non-empty `hooks` array, which skips the file).
    pub effect: Effect,
    /// The hook event the issue is under (`None` above `hooks.<event>`).
    pub event: Option<String>,
    pub line: usize,
    pub column: usize,
    pub reason: String,
}

impl SchemaIssue {
    /// Claude Code skips the whole file for this, `env` included.
    pub fn rejects_file(&self) -> bool {
        self.effect == Effect::SkipsFile
    }

    /// Claude Code ignores this part and loads the rest.
    pub fn drops_part(&self) -> bool {
        self.effect == Effect::DropsPart
    }

    pub fn is_unknown_event(&self) -> bool {
        self.kind == IssueKind::UnknownEvent
    }

    pub fn is_duplicate_key(&self) -> bool {
        self.kind == IssueKind::DuplicateKey
    }

    /// The part is about hooks (under `hooks`), not another setting.
    pub fn is_hooks(&self) -> bool {
        self.at == "hooks" || self.at.starts_with("hooks.")
    }

    /// The one answer to "may gk's editors change this file?", asked by
    /// the editors themselves (install, uninstall, `gk enable`/`disable`)
    /// and by doctor before it offers `--fix`: never a file the client
    /// skips (gk's hooks would never run there); not when `hooks` or a key
    /// inside it appears twice (gk's editor would read the first copy, the
    /// client reads the last), nor when `hooks` is not an object or one of
    /// gk's own events is not an array of groups (an edit would have to
    /// guess what was meant). A part the client drops elsewhere, a key
    /// repeated outside `hooks`, an unknown event: gk edits around them.
    pub fn blocks_edit(&self) -> bool {
        if self.rejects_file() {
            return true;
        }
        match self.kind {
            IssueKind::DuplicateKey => self.is_hooks(),
            IssueKind::HooksNotObject => true,
            IssueKind::Shape => self.event.as_deref().is_some_and(|e| {
                crate::hookcmd::HookKind::ALL
                    .into_iter()
                    .any(|k| k.event() == e)
            }),
            _ => false,
        }
    }
}

/// The client's verdict on one parsed file, from its issues: the first
/// issue that skips it, else the parts it drops (in file order).
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict<'i> {
    Loads,
    DropsParts(Vec<&'i SchemaIssue>),
    Skipped(&'i SchemaIssue),
}

pub fn verdict(issues: &[SchemaIssue]) -> Verdict<'_> {
    if let Some(i) = issues.iter().find(|i| i.rejects_file()) {
        return Verdict::Skipped(i);
    }
    let dropped: Vec<&SchemaIssue> = issues.iter().filter(|i| i.drops_part()).collect();
    if dropped.is_empty() {
        Verdict::Loads
    } else {
        Verdict::DropsParts(dropped)
    }
}

/// Parse `text` (read from `path`) strictly. A BOM is accepted and reported
/// in [`Settings::bom`]; an empty or whitespace-only text is an error here
/// (callers that treat "empty" as "create" check that first).
pub fn parse(path: &Path, text: &str) -> Result<Settings, ParseError> {
    let (bom, body) = match text.strip_prefix('\u{feff}') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let err = |line: usize, column: usize, reason: String| ParseError {
        path: path.to_path_buf(),
        line,
        column,
        reason,
        not_utf8: false,
    };
    if body.trim().is_empty() {
        return Err(err(1, 1, "the file is empty".to_string()));
    }
    let read = as_the_client_reads(body);
    let value: Value = serde_json::from_str(&read).map_err(|e| {
        let reason = e.to_string();
        // serde_json appends " at line L column C"; keep only the reason.
        let reason = match reason.rfind(" at line ") {
            Some(i) => reason[..i].to_string(),
            None => reason,
        };
        let (line, column) = (e.line().max(1), e.column().max(1));
        // serde_json points at the bracket after a trailing comma; the
        // comma is what to correct.
        let (line, column) = if reason == "trailing comma" {
            comma_before(body, line, column).unwrap_or((line, column))
        } else {
            (line, column)
        };
        err(line, column, format!("not valid JSON: {reason}"))
    })?;
    if !value.is_object() {
        let offset = body.len() - body.trim_start().len();
        let (line, column) = line_col(body, offset);
        return Err(err(
            line,
            column,
            "the top level must be a JSON object".to_string(),
        ));
    }
    Ok(Settings {
        path: path.to_path_buf(),
        text: text.to_string(),
        bom,
        value,
    })
}

/// Values nested deeper than this are read as a placeholder (see
/// [`as_the_client_reads`]); nothing gk reads sits deeper than a handler's
/// `args` (depth 7), and both JSON readers gk uses stop at 128.
pub const READ_DEPTH: usize = 64;

/// `body` as gk's JSON readers can take it, for JSON the client's parser
/// (`JSON.parse`) accepts and theirs refuse — measured on client 2.1.332,
/// see docs/maintainers/claude-code-facts.md: a number past the range of a
/// double (`1e400`, Infinity to the client), a lone surrogate escape
/// (`"\ud83d"`), and nesting deeper than 127 levels. The result has the
/// same length and the same line breaks, so every offset, line and column
/// found in it is a place in the file as it is on disk; and it reads the
/// same for everything gk looks at:
/// - a number that overflows becomes `1e308` (or `-1e308`), padded with
///   spaces (a finite number of the same sign: it is still a number);
/// - a lone surrogate escape becomes `\ufffd` (six bytes for six);
/// - a value that opens deeper than [`READ_DEPTH`] becomes `0` followed by
///   spaces, its line breaks kept (still not a string, for the one check
///   that looks at a value's type, `matcher`).
///
/// Anything else — text that is not JSON at all — is passed over as it
/// is, for the parser to report. One pass, linear in the text; borrowed
/// when nothing needs changing (every file gk writes).
pub fn as_the_client_reads(body: &str) -> std::borrow::Cow<'_, str> {
    let b = body.as_bytes();
    let mut out: Option<Vec<u8>> = None;
    let put = |out: &mut Option<Vec<u8>>, at: usize, with: &[u8]| {
        out.get_or_insert_with(|| b.to_vec())[at..at + with.len()].copy_from_slice(with);
    };
    let mut depth = 0usize;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => i = string_end(b, i),
            b'[' | b'{' if depth >= READ_DEPTH => {
                let start = i;
                let end = value_end(b, i);
                let buf = out.get_or_insert_with(|| b.to_vec());
                for (k, byte) in buf[start..end].iter_mut().enumerate() {
                    if k == 0 {
                        *byte = b'0';
                    } else if *byte != b'\n' && *byte != b'\r' {
                        *byte = b' ';
                    }
                }
                i = end;
            }
            b'[' | b'{' => {
                depth += 1;
                i += 1;
            }
            b']' | b'}' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                while i < b.len() && matches!(b[i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                {
                    i += 1;
                }
                let token = &body[start..i];
                if token.parse::<f64>().is_ok_and(f64::is_infinite) {
                    let with: &[u8] = if token.starts_with('-') {
                        b"-1e308"
                    } else {
                        b"1e308"
                    };
                    if with.len() <= token.len() {
                        let mut padded = with.to_vec();
                        padded.resize(token.len(), b' ');
                        put(&mut out, start, &padded);
                    }
                }
            }
            _ => i += 1,
        }
    }
    // Only ASCII was replaced, and only whole characters (a number, or
    // every byte but line breaks of a span that starts and ends on ASCII
    // brackets — a multi-byte character inside it turns into as many
    // spaces), so the bytes are still UTF-8.
    let read = match out.map(String::from_utf8) {
        Some(Ok(text)) => std::borrow::Cow::Owned(text),
        _ => std::borrow::Cow::Borrowed(body),
    };
    match repair_lone_surrogates(&read) {
        Some(repaired) => std::borrow::Cow::Owned(repaired),
        None => read,
    }
}

/// The offset just past the string that opens at `b[start]` (or the end of
/// the text, if it never closes), escapes skipped.
fn string_end(b: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while i < b.len() && b[i] != b'"' {
        i += if b[i] == b'\\' { 2 } else { 1 };
    }
    i + 1
}

fn hex4(b: &[u8]) -> Option<u16> {
    let s = std::str::from_utf8(b.get(..4)?).ok()?;
    u16::from_str_radix(s, 16).ok()
}

/// `text` with every `\uXXXX` escape that is an unpaired surrogate replaced
/// by `\ufffd` (six bytes for six, so places stay where they were); `None`
/// when there is none. `JSON.parse` keeps such a string, serde_json and
/// jsonc-parser refuse it.
pub fn repair_lone_surrogates(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let mut out: Vec<u8> = Vec::new();
    let mut copied = 0;
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        if b.get(i + 1) != Some(&b'u') {
            i += 2;
            continue;
        }
        let Some(unit) = hex4(&b[i + 2..]) else {
            i += 2;
            continue;
        };
        let is_high = (0xD800..=0xDBFF).contains(&unit);
        let is_low = (0xDC00..=0xDFFF).contains(&unit);
        if is_high
            && b.get(i + 6) == Some(&b'\\')
            && b.get(i + 7) == Some(&b'u')
            && hex4(&b[(i + 8).min(b.len())..]).is_some_and(|n| (0xDC00..=0xDFFF).contains(&n))
        {
            i += 12;
            continue;
        }
        if is_high || is_low {
            out.extend_from_slice(&b[copied..i]);
            out.extend_from_slice(b"\\ufffd");
            copied = i + 6;
        }
        i += 6;
    }
    if copied == 0 {
        return None;
    }
    out.extend_from_slice(&b[copied..]);
    String::from_utf8(out).ok()
}

/// The offset just past the array or object that opens at `b[start]` (or
/// the end of the text, if it never closes), strings skipped.
fn value_end(b: &[u8], start: usize) -> usize {
    let mut depth = 0usize;
    let mut i = start;
    while i < b.len() {
        match b[i] {
            b'"' => {
                i = string_end(b, i);
                continue;
            }
            b'[' | b'{' => depth += 1,
            b']' | b'}' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    b.len()
}

/// The line and column of the `,` that only whitespace separates from the
/// character at `line`:`column` (serde_json's 1-based position, columns in
/// bytes), if there is one.
fn comma_before(body: &str, line: usize, column: usize) -> Option<(usize, usize)> {
    let start: usize = body
        .split_inclusive('\n')
        .take(line - 1)
        .map(str::len)
        .sum();
    let at = (start + column - 1).min(body.len());
    let before = body.get(..at)?.trim_end();
    before
        .ends_with(',')
        .then(|| line_col(body, before.len() - 1))
}

/// Every hook handler in the file, in file order, and every schema issue
/// found on the way (`hooks` not an object, an event not an array, a group
/// not an object, `hooks` of a group not an array, a matcher not a string,
/// a handler without `type`, a command handler without a string `command`,
/// an unknown event name, a key that appears twice in one object).
pub fn hook_entries(settings: &Settings) -> (Vec<HookEntry>, Vec<SchemaIssue>) {
    let mut entries = Vec::new();
    let issues = Vec::new();
    let text = settings.text.as_str();
    let body_offset = if settings.bom {
        '\u{feff}'.len_utf8()
    } else {
        0
    };
    let body = &text[body_offset..];
    let read = as_the_client_reads(body);
    let Ok(parsed) = jsonc_parser::parse_to_ast(&read, &Default::default(), &strict_options())
    else {
        // `parse` already accepted the text as strict JSON; the AST parser
        // disagreeing would be a bug in one of them. Report nothing rather
        // than guess.
        return (entries, issues);
    };
    let index = LineIndex::new(text);
    let pos = |offset: usize| index.line_col(body_offset + offset);
    let mut issues = Issues {
        list: issues,
        pos: &pos,
        event: None,
    };
    let Some(ast::Value::Object(root)) = parsed.value else {
        return (entries, issues.list);
    };
    issues.duplicates(&root, "");
    schema::check_top(&root, &mut issues);
    let Some(hooks) = last_prop(&root, "hooks") else {
        return (entries, issues.list);
    };
    let ast::Value::Object(hooks) = hooks else {
        // Measured: a non-empty array skips the file (it may hold a
        // PreToolUse guard); `[]`, `null`, a string or a number only drop
        // the field.
        let effect = match hooks {
            ast::Value::Array(a) if !a.elements.is_empty() => Effect::SkipsFile,
            _ => Effect::DropsPart,
        };
        issues.add_with(
            "hooks".into(),
            hooks.start(),
            "`hooks` must be an object of events",
            IssueKind::HooksNotObject,
            effect,
        );
        return (entries, issues.list);
    };
    issues.duplicates(hooks, "hooks.");
    // JSON.parse keeps the last of duplicate keys.
    let last_of: std::collections::HashMap<&str, usize> = hooks
        .properties
        .iter()
        .enumerate()
        .map(|(i, p)| (p.name.as_str(), i))
        .collect();
    for (i, prop) in hooks.properties.iter().enumerate() {
        if last_of.get(prop.name.as_str()) == Some(&i) {
            event_entries(prop, &mut issues, &mut entries);
        }
    }
    (entries, issues.list)
}

/// One event of `hooks` (`prop`): its name must be known and its value an
/// array of groups; the handlers of each group go to `entries`.
fn event_entries(
    prop: &ast::ObjectProp<'_>,
    issues: &mut Issues<'_>,
    entries: &mut Vec<HookEntry>,
) {
    let event = prop.name.as_str().to_string();
    let at_event = format!("hooks.{event}");
    issues.event = Some(event.clone());
    let unknown = !KNOWN_EVENTS.contains(&event.as_str());
    if unknown {
        issues.add(
            at_event.clone(),
            prop.name.start(),
            &format!("unknown hook event `{event}`"),
            IssueKind::UnknownEvent,
        );
    }
    let ast::Value::Array(groups) = &prop.value else {
        issues.add(
            at_event,
            prop.value.start(),
            "an event must be an array of groups",
            IssueKind::Shape,
        );
        return;
    };
    for (g, group) in groups.elements.iter().enumerate() {
        group_entries(&event, &at_event, (g, unknown), group, issues, entries);
    }
}

/// Group `g` of `event`: an object with an optional string `matcher` and a
/// `hooks` array, whose handlers go to `entries`.
fn group_entries(
    event: &str,
    at_event: &str,
    (g, dropped): (usize, bool),
    group: &ast::Value<'_>,
    issues: &mut Issues<'_>,
    entries: &mut Vec<HookEntry>,
) {
    let at_group = format!("{at_event}[{g}]");
    let ast::Value::Object(group) = group else {
        issues.add(
            at_group,
            group.start(),
            "a group must be an object",
            IssueKind::Shape,
        );
        return;
    };
    issues.duplicates(group, &format!("{at_group}."));
    let matcher = last_prop(group, "matcher");
    let mut dropped = dropped;
    if let Some(m) = matcher {
        if !matches!(m, ast::Value::StringLit(_)) {
            // Measured: the client ignores the whole group, its hooks too.
            dropped = true;
            issues.add(
                format!("{at_group}.matcher"),
                m.start(),
                "`matcher` must be a string",
                IssueKind::MatcherNotString,
            );
        }
    }
    let matcher_value = matcher.map(ast_to_json);
    let Some(handlers) = last_prop(group, "hooks") else {
        issues.add(
            at_group,
            group.start(),
            "a group needs a `hooks` array",
            IssueKind::Handler,
        );
        return;
    };
    let ast::Value::Array(handlers) = handlers else {
        issues.add(
            format!("{at_group}.hooks"),
            handlers.start(),
            "`hooks` of a group must be an array",
            IssueKind::Shape,
        );
        return;
    };
    let place = GroupPlace {
        event,
        group: g,
        matcher: matcher_value,
        dropped,
    };
    for (h, handler) in handlers.elements.iter().enumerate() {
        let at_handler = format!("{at_group}.hooks[{h}]");
        if let Some(entry) = handler_entry(&place, h, &at_handler, handler, issues) {
            entries.push(entry);
        }
    }
}

/// Where a group sits, for the entries of its handlers.
struct GroupPlace<'s> {
    event: &'s str,
    group: usize,
    matcher: Option<Value>,
    /// The client ignores the group (or its event).
    dropped: bool,
}

/// Handler `h` of a group, at `at_handler`: an object with a string `type`,
/// and for a command hook a string `command` (or `args`). `None` if it is
/// not an object.
fn handler_entry(
    place: &GroupPlace<'_>,
    h: usize,
    at_handler: &str,
    handler: &ast::Value<'_>,
    issues: &mut Issues<'_>,
) -> Option<HookEntry> {
    let ast::Value::Object(obj) = handler else {
        issues.add(
            at_handler.to_string(),
            handler.start(),
            "a hook handler must be an object",
            IssueKind::Shape,
        );
        return None;
    };
    issues.duplicates(obj, &format!("{at_handler}."));
    let before = issues.list.len();
    let string_of = |key: &str| match last_prop(obj, key) {
        Some(ast::Value::StringLit(s)) => Some(s.value.to_string()),
        _ => None,
    };
    let hook_type = string_of("type");
    let command = string_of("command");
    let mut bad = |reason: &str| {
        issues.add(
            at_handler.to_string(),
            obj.start(),
            reason,
            IssueKind::Handler,
        )
    };
    match (last_prop(obj, "type"), hook_type.as_deref()) {
        (None, _) => bad("a hook handler needs a string `type`"),
        (Some(_), None) => bad("a hook handler's `type` must be a string"),
        (_, Some(t)) if !HANDLER_TYPES.contains(&t) => bad(&format!(
            "unknown hook type `{}` (the client knows {})",
            crate::text::one_line(t, 40),
            HANDLER_TYPES.join(", ")
        )),
        (_, Some("command")) => {
            if command.is_none() {
                bad("a command hook needs a string `command`");
            }
            // Measured: each of these, of the wrong type, drops the entry.
            for (key, ok, want) in [
                ("timeout", is_number as fn(&ast::Value) -> bool, "a number"),
                ("statusMessage", is_string, "a string"),
                ("async", is_bool, "true or false"),
                ("shell", is_shell, "\"bash\" or \"powershell\""),
            ] {
                if last_prop(obj, key).is_some_and(|v| !ok(v)) {
                    bad(&format!("`{key}` of a command hook must be {want}"));
                }
            }
        }
        (_, Some("prompt")) if string_of("prompt").is_none() => {
            bad("a prompt hook needs a string `prompt`")
        }
        _ => {}
    }
    let timeout = match last_prop(obj, "timeout") {
        Some(ast::Value::NumberLit(n)) => n.value.parse::<f64>().ok(),
        _ => None,
    };
    let args = handler_args(at_handler, obj, issues);
    let dropped = place.dropped
        || issues.list[before..]
            .iter()
            .any(|i| i.kind == IssueKind::Handler);
    Some(HookEntry {
        event: place.event.to_string(),
        group: place.group,
        index: h,
        matcher: place.matcher.clone(),
        hook_type,
        command,
        args,
        shell: string_of("shell"),
        timeout,
        line: (issues.pos)(obj.start()).0,
        dropped,
    })
}

/// The handler types the pinned client knows (2.1.332's own list).
pub const HANDLER_TYPES: &[&str] = &["command", "prompt", "agent", "http", "mcp_tool"];

fn is_number(v: &ast::Value) -> bool {
    matches!(v, ast::Value::NumberLit(_))
}

fn is_string(v: &ast::Value) -> bool {
    matches!(v, ast::Value::StringLit(_))
}

fn is_bool(v: &ast::Value) -> bool {
    matches!(v, ast::Value::BooleanLit(_))
}

fn is_shell(v: &ast::Value) -> bool {
    matches!(v, ast::Value::StringLit(s) if s.value == "bash" || s.value == "powershell")
}

/// A handler's `args`, if it has them and they are all strings; anything
/// else under `args` is an issue.
fn handler_args(
    at_handler: &str,
    obj: &ast::Object<'_>,
    issues: &mut Issues<'_>,
) -> Option<Vec<String>> {
    match last_prop(obj, "args") {
        None => None,
        Some(ast::Value::Array(a)) => {
            let strings: Option<Vec<String>> = a
                .elements
                .iter()
                .map(|v| match v {
                    ast::Value::StringLit(s) => Some(s.value.to_string()),
                    _ => None,
                })
                .collect();
            if strings.is_none() {
                issues.add(
                    format!("{at_handler}.args"),
                    a.range.start,
                    "`args` must be an array of strings",
                    IssueKind::Handler,
                );
            }
            strings
        }
        Some(other) => {
            issues.add(
                format!("{at_handler}.args"),
                other.start(),
                "`args` must be an array of strings",
                IssueKind::Handler,
            );
            None
        }
    }
}

/// The schema issues of one file as they are found, placed by line and column.
struct Issues<'a> {
    list: Vec<SchemaIssue>,
    pos: &'a dyn Fn(usize) -> (usize, usize),
    /// The event being walked (see [`SchemaIssue::event`]).
    event: Option<String>,
}

impl Issues<'_> {
    fn add(&mut self, at: String, offset: usize, reason: &str, kind: IssueKind) {
        let effect = effect_of(kind, self.event.as_deref());
        self.add_with(at, offset, reason, kind, effect);
    }

    fn add_with(
        &mut self,
        at: String,
        offset: usize,
        reason: &str,
        kind: IssueKind,
        effect: Effect,
    ) {
        let (line, column) = (self.pos)(offset);
        self.list.push(SchemaIssue {
            at,
            kind,
            effect,
            event: self.event.clone(),
            line,
            column,
            reason: reason.to_string(),
        });
    }

    /// Every key that appears again in `obj`, at its second place.
    fn duplicates(&mut self, obj: &ast::Object, prefix: &str) {
        let mut seen = std::collections::HashSet::new();
        for p in &obj.properties {
            let name = p.name.as_str();
            if !seen.insert(name) {
                self.add(
                    format!("{prefix}{name}"),
                    p.range.start,
                    &format!("`{prefix}{name}` appears twice; Claude Code reads the last one"),
                    IssueKind::DuplicateKey,
                );
            }
        }
    }
}

/// jsonc-parser options that accept exactly strict JSON (what Claude Code
/// accepts): no comments, trailing commas, loose names or number forms.
pub fn strict_options() -> jsonc_parser::ParseOptions {
    jsonc_parser::ParseOptions {
        allow_comments: false,
        allow_loose_object_property_names: false,
        allow_trailing_commas: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    }
}

/// The value of the last property named `name` (JSON.parse keeps the last).
fn last_prop<'a, 'b>(obj: &'b ast::Object<'a>, name: &str) -> Option<&'b ast::Value<'a>> {
    obj.properties
        .iter()
        .rev()
        .find(|p| p.name.as_str() == name)
        .map(|p| &p.value)
}

fn ast_to_json(value: &ast::Value<'_>) -> Value {
    match value {
        ast::Value::StringLit(s) => Value::String(s.value.to_string()),
        ast::Value::NumberLit(n) => serde_json::from_str(n.value).unwrap_or(Value::Null),
        ast::Value::BooleanLit(b) => Value::Bool(b.value),
        ast::Value::NullKeyword(_) => Value::Null,
        ast::Value::Array(a) => Value::Array(a.elements.iter().map(ast_to_json).collect()),
        ast::Value::Object(o) => {
            let mut map = serde_json::Map::new();
            for p in &o.properties {
                map.insert(p.name.as_str().to_string(), ast_to_json(&p.value));
            }
            Value::Object(map)
        }
    }
}

/// Line and column of many offsets in one text, each found without
/// rescanning the text from its start (what [`line_col`] does, fine for one
/// error message but quadratic for every entry of a large file): the line
/// starts, and the number of characters before every 1 KiB mark.
pub struct LineIndex<'a> {
    line_starts: Vec<usize>,
    chars_at_mark: Vec<usize>,
    bytes: &'a [u8],
}

const MARK: usize = 1024;

fn is_char_start(b: u8) -> bool {
    (b as i8) >= -0x40
}

impl<'a> LineIndex<'a> {
    pub fn new(text: &'a str) -> LineIndex<'a> {
        let bytes = text.as_bytes();
        let mut line_starts = vec![0];
        line_starts.extend(
            bytes
                .iter()
                .enumerate()
                .filter(|(_, b)| **b == b'\n')
                .map(|(i, _)| i + 1),
        );
        let mut chars_at_mark = Vec::with_capacity(bytes.len() / MARK + 1);
        let mut chars = 0;
        for chunk in bytes.chunks(MARK) {
            chars_at_mark.push(chars);
            chars += chunk.iter().filter(|b| is_char_start(**b)).count();
        }
        chars_at_mark.push(chars);
        LineIndex {
            line_starts,
            chars_at_mark,
            bytes,
        }
    }

    fn chars_before(&self, offset: usize) -> usize {
        let mark = offset / MARK;
        self.chars_at_mark[mark]
            + self.bytes[mark * MARK..offset]
                .iter()
                .filter(|b| is_char_start(**b))
                .count()
    }

    /// The same answer as [`line_col`] for the text this index was made of.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.bytes.len());
        let line = self.line_starts.partition_point(|&start| start <= offset);
        let start = self.line_starts[line - 1];
        (
            line,
            self.chars_before(offset) - self.chars_before(start) + 1,
        )
    }
}

/// 1-based (line, column) of byte `offset` in `text` (column counts chars).
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

#[cfg(test)]
mod tests;
