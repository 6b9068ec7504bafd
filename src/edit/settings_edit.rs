//! The two edits gk makes to a Claude Code `settings.json`, as pure
//! functions from text to text: [`add_hooks`] and [`remove_hooks`].
//!
//! Every byte outside the entries gk inserts or removes stays as it was:
//! key order, indentation (2, 4, tabs), CRLF, BOM, trailing newline, string
//! escapes, number spellings. That is done by splicing: the file is parsed
//! with `jsonc-parser` (strict options) only to learn the byte range of each
//! object, array, property and element; new entries are rendered in the
//! file's own style and inserted at one point; removals cut exactly the
//! element and one separator. Insertion and removal are each other's
//! inverse, so install followed by uninstall gives the original bytes back.
//!
//! Why not edit through `jsonc_parser::cst`: measured on 0.34, its insert
//! trims blank lines inside the container it inserts into, turns a
//! one-line file into a multi-line one, and leaves `[{…}\n]` behind when an
//! element is removed from a one-line array — each a change to bytes the
//! user wrote, and each breaks the install/uninstall round trip.
//!
//! Both functions refuse (with `path:line:column: reason`) a file that is
//! not strict JSON, whose root is not an object, whose `hooks` is not an
//! object, or where an event, a group or a group's `hooks` has the wrong
//! type. They never start from `{}` when a file does not parse. The result
//! is parsed again strictly and its hook entries checked before it is
//! returned.

use std::path::Path;

use jsonc_parser::ast::{Array, Object, Value};

use crate::error::{Error, Result};
use crate::hookcmd::{classify_under, CommandContext, HookCommand, HookKind, Owner};
use crate::settings::{self, line_col};

/// The status line Claude Code shows while the prompt hook runs.
pub const PROMPT_STATUS_MESSAGE: &str = "Gatekeeper assessing prompt...";
/// Seconds Claude Code waits for the Stop hook.
pub const STOP_TIMEOUT: i64 = 5;
/// Seconds Claude Code waits for the session check (it takes about a
/// millisecond; a settings file on a stalled network drive must not hold
/// the session's start for the client's default minute).
pub const SESSION_TIMEOUT: i64 = 5;

/// The command to register for each of gk's hooks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WantedHooks {
    pub prompt: HookCommand,
    pub stop: HookCommand,
    pub session: HookCommand,
}

impl WantedHooks {
    /// Each hook's command from `command(kind)`.
    pub fn of(command: impl Fn(HookKind) -> HookCommand) -> WantedHooks {
        WantedHooks {
            prompt: command(HookKind::Prompt),
            stop: command(HookKind::Stop),
            session: command(HookKind::Session),
        }
    }

    pub fn get(&self, kind: HookKind) -> &HookCommand {
        match kind {
            HookKind::Prompt => &self.prompt,
            HookKind::Stop => &self.stop,
            HookKind::Session => &self.session,
        }
    }
}

/// Register gk's three hooks: keep the first entry per hook that already has
/// the canonical command (under the right event, with the right `shell`),
/// remove every other entry gk owns under any spelling (and the Python v5
/// hooks), and add a canonical group where none is kept. A missing or empty
/// file becomes a new settings file holding just the hooks.
pub fn add_hooks(
    path: &Path,
    text: &str,
    wanted: &WantedHooks,
    ctx: &CommandContext,
) -> Result<String> {
    add_hooks_noting(path, text, wanted, ctx).map(|(out, _)| out)
}

/// A container of a settings file — the root object (`at` empty), `hooks`,
/// or one of gk's event arrays (`["hooks", "Stop"]`) — that was there and
/// empty before install put gk's entries in it, with the exact text that
/// was between its brackets (whitespace). Uninstall needs it to give the
/// container back instead of removing it with gk's entries: the file alone
/// cannot tell a `"hooks": {}` that was there from one install created.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct EmptyContainer {
    pub at: Vec<String>,
    pub inside: String,
}

/// [`add_hooks`], and the containers that were empty in `text` and hold
/// gk's entries in the result (what uninstall must give back).
pub fn add_hooks_noting(
    path: &Path,
    text: &str,
    wanted: &WantedHooks,
    ctx: &CommandContext,
) -> Result<(String, Vec<EmptyContainer>)> {
    let (bom, body) = split_bom(text);
    if body.trim().is_empty() {
        let style = Style::fresh();
        let hooks = J::Obj(
            HookKind::ALL
                .map(|k| (k.event().to_string(), J::Arr(vec![group(k, wanted.get(k))])))
                .to_vec(),
        );
        let rendered = render(&J::Obj(vec![("hooks".into(), hooks)]), "", &style);
        let out = format!("{bom}{rendered}\n");
        check_result(path, &out, Some(wanted), ctx, &[])?;
        return Ok((out, Vec::new()));
    }
    let before = check_input(path, text)?;

    // Phase 1: remove what gk owns, except one canonical entry per hook.
    let root = parse_strict(path, body)?;
    let owned = owned_handlers(&root, ctx);
    let mut keep = [None::<usize>; HookKind::ALL.len()];
    for (i, h) in owned.iter().enumerate() {
        if let Owner::Gk(kind) = h.owner {
            let want = wanted.get(kind);
            let slot = &mut keep[kind.index()];
            if slot.is_none()
                && h.event == kind.event()
                && h.raw_command == want.command
                && h.args == want.args
                && h.shell.as_deref() == want.shell
                && h.hook_type.as_deref() == Some("command")
            {
                *slot = Some(i);
            }
        }
    }
    let remove: Vec<&OwnedHandler> = owned
        .iter()
        .enumerate()
        .filter(|(i, _)| !keep.contains(&Some(*i)))
        .map(|(_, h)| h)
        .collect();
    let body1 = apply_edits(body, removal_edits(&root, &remove, false, &[]));

    // Phase 2: add a canonical group for each hook without a kept entry.
    let missing: Vec<HookKind> = HookKind::ALL
        .into_iter()
        .filter(|k| keep[k.index()].is_none())
        .collect();
    let body2 = if missing.is_empty() {
        body1
    } else {
        let root1 = parse_strict(path, &body1)?;
        let edits = insertion_edits(&body1, &root1, &missing, wanted);
        apply_edits(&body1, edits)
    };
    let empty_before = empty_containers(body, &root);
    let filled = if empty_before.is_empty() {
        Vec::new()
    } else {
        let now = empty_containers(&body2, &parse_strict(path, &body2)?);
        empty_before
            .into_iter()
            .filter(|c| !now.iter().any(|n| n.at == c.at))
            .collect()
    };
    let out = format!("{bom}{body2}");
    check_result(path, &out, Some(wanted), ctx, &before)?;
    Ok((out, filled))
}

/// The empty containers among those install may put entries in: `hooks`,
/// gk's event arrays, and the root object when there is whitespace between
/// its braces (an empty `{}` comes back as `{}` without being noted).
fn empty_containers(body: &str, root: &Object) -> Vec<EmptyContainer> {
    let inside = |(start, end): (usize, usize)| body[start + 1..end - 1].to_string();
    let mut out = Vec::new();
    if root.properties.is_empty() && !inside(range_of_obj(root)).is_empty() {
        out.push(EmptyContainer {
            at: Vec::new(),
            inside: inside(range_of_obj(root)),
        });
    }
    let Some(Value::Object(hooks)) = root.get("hooks").map(|p| &p.value) else {
        return out;
    };
    if hooks.properties.is_empty() {
        out.push(EmptyContainer {
            at: vec!["hooks".into()],
            inside: inside(range_of_obj(hooks)),
        });
    }
    for kind in HookKind::ALL {
        if let Some(Value::Array(arr)) = hooks.get(kind.event()).map(|p| &p.value) {
            if arr.elements.is_empty() {
                out.push(EmptyContainer {
                    at: vec!["hooks".into(), kind.event().into()],
                    inside: inside(range_of_arr(arr)),
                });
            }
        }
    }
    out
}

/// Take out every hook entry gk owns (any spelling of `gk hook …`, and the
/// Python v5 hooks), a group that holds nothing else, and an event array or
/// the `hooks` object that this leaves empty. Nothing else changes.
pub fn remove_hooks(path: &Path, text: &str, ctx: &CommandContext) -> Result<String> {
    remove_hooks_keeping(path, text, ctx, &[])
}

/// [`remove_hooks`], giving back the containers in `keep` (install found
/// them empty and filled them, see [`add_hooks_noting`]) as they were: a
/// container this removal empties is emptied back to its old bytes rather
/// than removed. An entry whose `inside` is not JSON whitespace is ignored.
pub fn remove_hooks_keeping(
    path: &Path,
    text: &str,
    ctx: &CommandContext,
    keep: &[EmptyContainer],
) -> Result<String> {
    let keep: Vec<EmptyContainer> = keep
        .iter()
        .filter(|c| {
            c.inside
                .chars()
                .all(|ch| matches!(ch, ' ' | '\t' | '\n' | '\r'))
        })
        .cloned()
        .collect();
    let (bom, body) = split_bom(text);
    if body.trim().is_empty() {
        return Ok(text.to_string());
    }
    let before = check_input(path, text)?;
    let root = parse_strict(path, body)?;
    let owned = owned_handlers(&root, ctx);
    let all: Vec<&OwnedHandler> = owned.iter().collect();
    let out = format!(
        "{bom}{}",
        apply_edits(body, removal_edits(&root, &all, true, &keep))
    );
    check_result(path, &out, None, ctx, &before)?;
    Ok(out)
}

pub(crate) fn split_bom(text: &str) -> (&str, &str) {
    match text.strip_prefix('\u{feff}') {
        Some(rest) => ("\u{feff}", rest),
        None => ("", text),
    }
}

pub(crate) fn parse_strict<'a>(path: &Path, body: &'a str) -> Result<Object<'a>> {
    let result = jsonc_parser::parse_to_ast(
        body,
        &jsonc_parser::CollectOptions::default(),
        &settings::strict_options(),
    )
    .map_err(|e| {
        Error::new(format!(
            "{}:{}:{}: not valid JSON: {}",
            path.display(),
            e.line_display(),
            e.column_display(),
            e.kind()
        ))
    })?;
    match result.value {
        Some(Value::Object(obj)) => Ok(obj),
        _ => Err(Error::new(format!(
            "{}:1:1: the top level must be a JSON object",
            path.display()
        ))),
    }
}

/// `path:line:column: reason` for byte `offset` of `body`, worded like the
/// shared read model's parse errors.
pub(crate) fn at(path: &Path, body: &str, offset: usize, reason: &str) -> Error {
    let (line, column) = line_col(body, offset);
    let err = settings::ParseError {
        path: path.to_path_buf(),
        line,
        column,
        reason: reason.to_string(),
        not_utf8: false,
    };
    Error::new(err.to_string())
}

/// Strict parse (shared read model) plus the shapes gk has to walk. Returns
/// the schema issues the file already has, so the result can be held to
/// "no new issue".
fn check_input(path: &Path, text: &str) -> Result<Vec<String>> {
    let parsed = settings::parse(path, text).map_err(|e| Error::new(e.to_string()))?;
    let (_, body) = split_bom(text);
    // The client loads this file (the shared read model took it as the
    // client's parser does), but gk's editor cannot hold all of it as it
    // is — a lone surrogate escape, nesting past the editor's depth — and
    // gk never writes back what it did not read: refuse, saying so.
    parse_strict(path, body).map_err(|e| {
        let m = e.message();
        let (place, reason) = m.split_once(": not valid JSON: ").unwrap_or((m, ""));
        Error::new(format!(
            "{place}: gk's editor cannot keep this as it is ({}); Claude Code does load the \
             file, so gk leaves it unchanged -- rewrite that value, or add gk's hooks by hand",
            reason.trim_end_matches('.')
        ))
    })?;
    let (_, issues) = settings::hook_entries(&parsed);
    // The one schema check (`SchemaIssue::blocks_edit`), as doctor asks
    // it before offering a fix: a file the client skips (a hook added to it
    // would never run), or one an edit would have to guess at.
    if let Some(i) = issues.iter().find(|i| i.blocks_edit()) {
        let why = if i.rejects_file() {
            "Claude Code skips this whole file (env included), so gk does not edit it"
        } else {
            "correct it by hand first: gk does not edit a file it would have to guess at"
        };
        let err = settings::ParseError {
            path: path.to_path_buf(),
            line: i.line,
            column: i.column,
            // A repeated key's reason names its place already.
            reason: match i.is_duplicate_key() {
                true => format!("{}; {why}", i.reason),
                false => format!("{}: {}; {why}", i.at, i.reason),
            },
            not_utf8: false,
        };
        return Err(Error::new(err.to_string()));
    }
    Ok(issues.into_iter().map(|i| i.reason).collect())
}

/// Never hand back a file Claude Code would reject: strict parse again,
/// no schema issue that was not there before, and (after add) exactly one
/// canonical entry per hook and no other entry gk owns.
fn check_result(
    path: &Path,
    out: &str,
    wanted: Option<&WantedHooks>,
    ctx: &CommandContext,
    issues_before: &[String],
) -> Result<()> {
    let internal = |what: String| {
        Error::new(format!(
            "internal check failed for {}: {what}; nothing written",
            path.display()
        ))
    };
    let parsed = settings::parse(path, out).map_err(|e| internal(e.to_string()))?;
    let (entries, issues) = settings::hook_entries(&parsed);
    let mut left: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for reason in issues_before {
        *left.entry(reason.as_str()).or_default() += 1;
    }
    for issue in &issues {
        match left.get_mut(issue.reason.as_str()) {
            Some(n) if *n > 0 => *n -= 1,
            _ => return Err(internal(format!("{} at {}", issue.reason, issue.at))),
        }
    }
    for entry in &entries {
        let Some(command) = &entry.run_command() else {
            continue;
        };
        let owner = classify_under(&entry.event, command, ctx);
        match (wanted, owner) {
            (_, Owner::Foreign) => {}
            (None, _) => return Err(internal(format!("gk entry left in {}", entry.event))),
            (Some(_), Owner::Legacy(_)) => {
                return Err(internal("Python hook left in place".to_string()))
            }
            (Some(w), Owner::Gk(kind)) => {
                let want = w.get(kind);
                if entry.event != kind.event()
                    || entry.command.as_deref() != Some(want.command.as_str())
                    || entry.args != want.args
                    || entry.shell.as_deref() != want.shell
                    || entry.hook_type.as_deref() != Some("command")
                {
                    return Err(internal(format!("unexpected gk entry `{command}`")));
                }
            }
        }
    }
    if let Some(w) = wanted {
        for kind in HookKind::ALL {
            let want = w.get(kind);
            let count = entries
                .iter()
                .filter(|e| {
                    e.command.as_deref() == Some(want.command.as_str()) && e.args == want.args
                })
                .count();
            if count != 1 {
                return Err(internal(format!(
                    "{count} entries for `{}`",
                    want.run_command()
                )));
            }
        }
    }
    Ok(())
}

pub(crate) fn value_start(v: &Value) -> usize {
    value_range(v).0
}

pub(crate) fn value_range(v: &Value) -> (usize, usize) {
    let r = match v {
        Value::StringLit(x) => x.range,
        Value::NumberLit(x) => x.range,
        Value::BooleanLit(x) => x.range,
        Value::Object(x) => x.range,
        Value::Array(x) => x.range,
        Value::NullKeyword(x) => x.range,
    };
    (r.start, r.end)
}

/// One handler gk owns, located by indices.
#[derive(Debug)]
struct OwnedHandler {
    owner: Owner,
    event: String,
    /// Index of the event property inside `hooks`.
    event_index: usize,
    group: usize,
    index: usize,
    /// The `command` field as written, and the exec form's `args`.
    raw_command: String,
    args: Option<Vec<String>>,
    shell: Option<String>,
    hook_type: Option<String>,
}

fn string_field(obj: &Object, name: &str) -> Option<String> {
    match &obj.get(name)?.value {
        Value::StringLit(s) => Some(s.value.to_string()),
        _ => None,
    }
}

/// What a handler runs as one command string (the exec form spelled by
/// `hookcmd::exec_spelling`), with its `command` and exec-form `args` as
/// written; `None` without a string `command` or with `args` that are not
/// all strings.
fn handler_run_command(handler: &Object) -> Option<(String, String, Option<Vec<String>>)> {
    let command = string_field(handler, "command")?;
    match handler.get("args").map(|p| &p.value) {
        None => Some((command.clone(), command, None)),
        Some(Value::Array(list)) => list
            .elements
            .iter()
            .map(|v| match v {
                Value::StringLit(s) => Some(s.value.to_string()),
                _ => None,
            })
            .collect::<Option<Vec<String>>>()
            .map(|args| {
                (
                    crate::hookcmd::exec_spelling(&command, &args),
                    command,
                    Some(args),
                )
            }),
        Some(_) => None,
    }
}

fn owned_handlers(root: &Object, ctx: &CommandContext) -> Vec<OwnedHandler> {
    let mut out = Vec::new();
    let Some(Value::Object(hooks)) = root.get("hooks").map(|p| &p.value) else {
        return out;
    };
    for (event_index, event) in hooks.properties.iter().enumerate() {
        let Value::Array(groups) = &event.value else {
            continue;
        };
        for (g, grp) in groups.elements.iter().enumerate() {
            let Value::Object(grp) = grp else { continue };
            let Some(Value::Array(list)) = grp.get("hooks").map(|p| &p.value) else {
                continue;
            };
            for (h, handler) in list.elements.iter().enumerate() {
                let Value::Object(handler) = handler else {
                    continue;
                };
                let Some((command, raw_command, args)) = handler_run_command(handler) else {
                    continue;
                };
                let owner = classify_under(event.name.as_str(), &command, ctx);
                if owner != Owner::Foreign {
                    out.push(OwnedHandler {
                        owner,
                        event: event.name.as_str().to_string(),
                        event_index,
                        group: g,
                        index: h,
                        raw_command,
                        args,
                        shell: string_field(handler, "shell"),
                        hook_type: string_field(handler, "type"),
                    });
                }
            }
        }
    }
    out
}

/// A replacement of `body[start..end]` by `text`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Edit {
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) text: String,
}

pub(crate) fn apply_edits(body: &str, mut edits: Vec<Edit>) -> String {
    edits.sort_by_key(|e| std::cmp::Reverse(e.start));
    // Edits never overlap by construction; if one ever did, it is skipped
    // and the result check refuses the outcome instead of panicking. The
    // kept edits are then written out front to back in one pass.
    let mut kept = Vec::with_capacity(edits.len());
    let mut limit = usize::MAX;
    for e in edits {
        if e.end > limit || e.start > e.end || e.end > body.len() {
            continue;
        }
        limit = e.start;
        kept.push(e);
    }
    let mut out =
        String::with_capacity(body.len() + kept.iter().map(|e| e.text.len()).sum::<usize>());
    let mut at = 0;
    for e in kept.iter().rev() {
        out.push_str(&body[at..e.start]);
        out.push_str(&e.text);
        at = e.end;
    }
    out.push_str(&body[at..]);
    out
}

/// Cut the items marked in `remove` out of a container (`{…}` or `[…]`
/// spanning `container`, items spanning `items`). The inverse of
/// [`insert_edit`]: a removed last item takes the separator before it with
/// it, any other removed item the separator after it; removing every item
/// leaves `{}` / `[]` with `inside` between the brackets.
pub(crate) fn cut_items(
    container: (usize, usize),
    items: &[(usize, usize)],
    remove: &[bool],
    inside: &str,
) -> Vec<Edit> {
    let n = items.len();
    if n == 0 || !remove.iter().any(|r| *r) {
        return Vec::new();
    }
    if remove.iter().all(|r| *r) {
        return vec![Edit {
            start: container.0 + 1,
            end: container.1 - 1,
            text: inside.to_string(),
        }];
    }
    let mut edits = Vec::new();
    // The trailing run of removed items goes with the separator before it.
    let mut tail_start = n;
    while tail_start > 0 && remove[tail_start - 1] {
        tail_start -= 1;
    }
    if tail_start < n {
        edits.push(Edit {
            start: items[tail_start - 1].1,
            end: items[n - 1].1,
            text: String::new(),
        });
    }
    for i in 0..tail_start {
        if remove[i] {
            edits.push(Edit {
                start: items[i].0,
                end: items[i + 1].0,
                text: String::new(),
            });
        }
    }
    edits
}

pub(crate) fn prop_range(p: &jsonc_parser::ast::ObjectProp) -> (usize, usize) {
    (p.range.start, p.range.end)
}

pub(crate) fn range_of_obj(o: &Object) -> (usize, usize) {
    (o.range.start, o.range.end)
}

pub(crate) fn range_of_arr(a: &Array) -> (usize, usize) {
    (a.range.start, a.range.end)
}

/// Edits removing `handlers`. A group all of whose handlers go is removed
/// whole. With `prune`, an event array emptied by this (and then a `hooks`
/// object emptied by this) is removed too — unless `keep` says it was
/// there, empty, before install: then it is emptied back to the bytes it
/// held (and so is the root object, when taking `hooks` out empties it).
fn removal_edits(
    root: &Object,
    handlers: &[&OwnedHandler],
    prune: bool,
    keep: &[EmptyContainer],
) -> Vec<Edit> {
    let kept = |at: &[&str]| {
        keep.iter()
            .find(|c| c.at.iter().map(String::as_str).eq(at.iter().copied()))
            .map(|c| c.inside.as_str())
    };
    let mut edits = Vec::new();
    if handlers.is_empty() {
        return edits;
    }
    let Some(hooks_prop) = root.get("hooks") else {
        return edits;
    };
    let Value::Object(hooks) = &hooks_prop.value else {
        return edits;
    };
    let mut drop_event = vec![false; hooks.properties.len()];
    let mut inner_edits = Vec::new();
    // event index → the (group, handler) places to remove there.
    let mut places: std::collections::HashMap<usize, std::collections::HashSet<(usize, usize)>> =
        std::collections::HashMap::new();
    for h in handlers {
        places
            .entry(h.event_index)
            .or_default()
            .insert((h.group, h.index));
    }
    for (ei, event) in hooks.properties.iter().enumerate() {
        let Value::Array(groups) = &event.value else {
            continue;
        };
        let Some(mine) = places.get(&ei) else {
            continue;
        };
        let mut drop_group = vec![false; groups.elements.len()];
        let mut group_edits = Vec::new();
        for (gi, grp) in groups.elements.iter().enumerate() {
            let Value::Object(grp_obj) = grp else {
                continue;
            };
            let Some(Value::Array(list)) = grp_obj.get("hooks").map(|p| &p.value) else {
                continue;
            };
            let remove: Vec<bool> = (0..list.elements.len())
                .map(|hi| mine.contains(&(gi, hi)))
                .collect();
            if !remove.iter().any(|r| *r) {
                continue;
            }
            if remove.iter().all(|r| *r) {
                drop_group[gi] = true;
            } else {
                // Only groups that stay get edits inside them.
                let items: Vec<(usize, usize)> = list.elements.iter().map(value_range).collect();
                group_edits.extend(cut_items(range_of_arr(list), &items, &remove, ""));
            }
        }
        let event_kept = kept(&["hooks", event.name.as_str()]);
        if prune && drop_group.iter().all(|d| *d) && event_kept.is_none() {
            drop_event[ei] = true;
            continue;
        }
        let items: Vec<(usize, usize)> = groups.elements.iter().map(value_range).collect();
        inner_edits.extend(cut_items(
            range_of_arr(groups),
            &items,
            &drop_group,
            event_kept.unwrap_or(""),
        ));
        inner_edits.extend(group_edits);
    }
    let hooks_kept = kept(&["hooks"]);
    if prune
        && !hooks.properties.is_empty()
        && drop_event.iter().all(|d| *d)
        && hooks_kept.is_none()
    {
        let props: Vec<(usize, usize)> = root.properties.iter().map(prop_range).collect();
        let remove: Vec<bool> = root
            .properties
            .iter()
            .map(|p| std::ptr::eq(p, hooks_prop))
            .collect();
        edits.extend(cut_items(
            range_of_obj(root),
            &props,
            &remove,
            kept(&[]).unwrap_or(""),
        ));
        return edits;
    }
    let props: Vec<(usize, usize)> = hooks.properties.iter().map(prop_range).collect();
    edits.extend(cut_items(
        range_of_obj(hooks),
        &props,
        &drop_event,
        hooks_kept.unwrap_or(""),
    ));
    // Events that are dropped whole have no edits inside them.
    edits.extend(inner_edits);
    edits
}

/// A JSON value to insert, with key order as written.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum J {
    Str(String),
    /// JSON text written as is (`true`, `false`).
    Raw(String),
    Int(i64),
    Arr(Vec<J>),
    Obj(Vec<(String, J)>),
}

/// The canonical group registering `kind` with `command`. No group gets a
/// `matcher`: UserPromptSubmit and Stop ignore it, and for SessionStart it
/// would pick the ways a session starts (`startup`, `resume`, `clear`,
/// `compact`); without one the check runs on each of them (measured: a
/// group with no matcher runs on startup and on resume), so a setup that
/// breaks during a session is reported at the next resume or clear too.
fn group(kind: HookKind, command: &HookCommand) -> J {
    let mut handler = vec![
        ("type".to_string(), J::Str("command".into())),
        ("command".to_string(), J::Str(command.command.clone())),
    ];
    if let Some(args) = &command.args {
        handler.push((
            "args".into(),
            J::Arr(args.iter().map(|a| J::Str(a.clone())).collect()),
        ));
    }
    if let Some(shell) = command.shell {
        handler.push(("shell".into(), J::Str(shell.into())));
    }
    match kind {
        HookKind::Prompt => {
            handler.push(("statusMessage".into(), J::Str(PROMPT_STATUS_MESSAGE.into())))
        }
        HookKind::Stop => handler.push(("timeout".into(), J::Int(STOP_TIMEOUT))),
        HookKind::Session => handler.push(("timeout".into(), J::Int(SESSION_TIMEOUT))),
    }
    J::Obj(vec![("hooks".into(), J::Arr(vec![J::Obj(handler)]))])
}

/// How the file is written, so inserted text looks like the rest of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Style {
    newline: &'static str,
    unit: String,
    /// One-line file: insert without newlines, with these separators.
    compact: bool,
    colon: &'static str,
    comma: &'static str,
}

impl Style {
    pub(crate) fn fresh() -> Style {
        Style {
            newline: "\n",
            unit: "  ".into(),
            compact: false,
            colon: ": ",
            comma: ",",
        }
    }

    pub(crate) fn detect(body: &str, root: &Object) -> Style {
        let newline = if body.contains("\r\n") { "\r\n" } else { "\n" };
        let root_text = &body[root.range.start..root.range.end];
        // A one-line file with content stays one line; `{}` is given the usual layout.
        let compact = !root_text.contains('\n') && !root.properties.is_empty();
        let unit = root
            .properties
            .first()
            .and_then(|p| line_indent_if_first(body, p.range.start))
            .filter(|u| !u.is_empty())
            .unwrap_or_else(|| "  ".to_string());
        let (colon, comma) = if compact {
            (
                if root_text.contains("\": ") {
                    ": "
                } else {
                    ":"
                },
                if root_text.contains(", ") { ", " } else { "," },
            )
        } else {
            (": ", ",")
        };
        Style {
            newline,
            unit,
            compact,
            colon,
            comma,
        }
    }
}

/// The whitespace before `offset` on its line, if only whitespace precedes it.
fn line_indent_if_first(body: &str, offset: usize) -> Option<String> {
    let line_start = body[..offset].rfind('\n').map_or(0, |i| i + 1);
    let prefix = &body[line_start..offset];
    prefix
        .chars()
        .all(|c| c == ' ' || c == '\t')
        .then(|| prefix.to_string())
}

/// The leading whitespace of the line holding `offset`.
fn line_indent(body: &str, offset: usize) -> String {
    let line_start = body[..offset].rfind('\n').map_or(0, |i| i + 1);
    body[line_start..offset]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect()
}

pub(crate) fn render(v: &J, indent: &str, style: &Style) -> String {
    match v {
        J::Str(s) => serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into()),
        J::Int(n) => n.to_string(),
        J::Raw(r) => r.clone(),
        J::Arr(items) if style.compact => {
            let parts: Vec<String> = items.iter().map(|i| render(i, indent, style)).collect();
            format!("[{}]", parts.join(style.comma))
        }
        J::Obj(props) if style.compact => {
            let parts: Vec<String> = props
                .iter()
                .map(|(k, v)| {
                    format!(
                        "{}{}{}",
                        render(&J::Str(k.clone()), indent, style),
                        style.colon,
                        render(v, indent, style)
                    )
                })
                .collect();
            format!("{{{}}}", parts.join(style.comma))
        }
        J::Arr(items) => {
            let inner = format!("{indent}{}", style.unit);
            let parts: Vec<String> = items
                .iter()
                .map(|i| format!("{inner}{}", render(i, &inner, style)))
                .collect();
            format!(
                "[{nl}{}{nl}{indent}]",
                parts.join(&format!(",{}", style.newline)),
                nl = style.newline
            )
        }
        J::Obj(props) => {
            let inner = format!("{indent}{}", style.unit);
            let parts: Vec<String> = props
                .iter()
                .map(|(k, v)| {
                    format!(
                        "{inner}{}: {}",
                        render(&J::Str(k.clone()), &inner, style),
                        render(v, &inner, style)
                    )
                })
                .collect();
            format!(
                "{{{nl}{}{nl}{indent}}}",
                parts.join(&format!(",{}", style.newline)),
                nl = style.newline
            )
        }
    }
}

/// Text of one new item: a property (`Some(name)`) or an array element.
fn render_item(name: Option<&str>, v: &J, indent: &str, style: &Style) -> String {
    let value = render(v, indent, style);
    match name {
        Some(n) => format!(
            "{}{}{value}",
            render(&J::Str(n.to_string()), indent, style),
            if style.compact { style.colon } else { ": " }
        ),
        None => value,
    }
}

/// Insert `new` items into the container spanning `container` (existing
/// items span `items`) before item `index` (`items.len()`: at the end).
/// Inserting before an existing item adds whole lines and touches none, so
/// the diff is pure insertion. The inverse of [`cut_items`].
pub(crate) fn insert_edit(
    body: &str,
    container: (usize, usize),
    items: &[(usize, usize)],
    index: usize,
    new: &[(Option<String>, J)],
    style: &Style,
) -> Edit {
    let container_indent = line_indent(body, container.0);
    let at_end = index >= items.len();
    if style.compact {
        let parts: Vec<String> = new
            .iter()
            .map(|(n, v)| render_item(n.as_deref(), v, "", style))
            .collect();
        let joined = parts.join(style.comma);
        return match (items.last(), at_end) {
            (None, _) => Edit {
                start: container.0 + 1,
                end: container.1 - 1,
                text: joined,
            },
            (Some(last), true) => Edit {
                start: last.1,
                end: last.1,
                text: format!("{}{joined}", style.comma),
            },
            (Some(_), false) => Edit {
                start: items[index].0,
                end: items[index].0,
                text: format!("{joined}{}", style.comma),
            },
        };
    }
    let child_indent = items
        .first()
        .and_then(|first| line_indent_if_first(body, first.0))
        .unwrap_or_else(|| format!("{container_indent}{}", style.unit));
    let rendered: Vec<String> = new
        .iter()
        .map(|(n, v)| render_item(n.as_deref(), v, &child_indent, style))
        .collect();
    let nl = style.newline;
    let sep = format!(",{nl}{child_indent}");
    match (items.last(), at_end) {
        (None, _) => Edit {
            start: container.0 + 1,
            end: container.1 - 1,
            text: format!(
                "{nl}{child_indent}{}{nl}{container_indent}",
                rendered.join(&sep)
            ),
        },
        (Some(last), true) => Edit {
            start: last.1,
            end: last.1,
            text: format!("{sep}{}", rendered.join(&sep)),
        },
        (Some(_), false) => Edit {
            start: items[index].0,
            end: items[index].0,
            text: format!("{}{sep}", rendered.join(&sep)),
        },
    }
}

/// `body` with property `name: value` appended to `obj` (any object in it),
/// in the file's style.
pub(crate) fn append_property(body: &str, obj: &Object, name: &str, value: &J) -> String {
    let root_style = match jsonc_parser::parse_to_ast(
        body,
        &jsonc_parser::CollectOptions::default(),
        &settings::strict_options(),
    ) {
        Ok(jsonc_parser::ParseResult {
            value: Some(Value::Object(root)),
            ..
        }) => Style::detect(body, &root),
        _ => Style::fresh(),
    };
    let props: Vec<(usize, usize)> = obj.properties.iter().map(prop_range).collect();
    let edit = insert_edit(
        body,
        range_of_obj(obj),
        &props,
        props.len(),
        &[(Some(name.to_string()), value.clone())],
        &root_style,
    );
    apply_edits(body, vec![edit])
}

/// Edits adding a canonical group for each of `kinds`: first in the event's
/// array when it exists, as a new first event property when `hooks` exists,
/// else as a new `hooks` property at the top of the root object (after
/// `$schema`). Inserting before existing items keeps every existing line.
fn insertion_edits(
    body: &str,
    root: &Object,
    kinds: &[HookKind],
    wanted: &WantedHooks,
) -> Vec<Edit> {
    let style = Style::detect(body, root);
    let Some(hooks_prop) = root.get("hooks") else {
        let events: Vec<(String, J)> = kinds
            .iter()
            .map(|k| {
                (
                    k.event().to_string(),
                    J::Arr(vec![group(*k, wanted.get(*k))]),
                )
            })
            .collect();
        let props: Vec<(usize, usize)> = root.properties.iter().map(prop_range).collect();
        // First, so the diff is pure insertion; but `$schema` stays on top.
        let index = usize::from(
            root.properties
                .first()
                .is_some_and(|p| p.name.as_str() == "$schema"),
        );
        return vec![insert_edit(
            body,
            range_of_obj(root),
            &props,
            index,
            &[(Some("hooks".into()), J::Obj(events))],
            &style,
        )];
    };
    let Value::Object(hooks) = &hooks_prop.value else {
        return Vec::new();
    };
    let mut edits = Vec::new();
    let mut new_events = Vec::new();
    for kind in kinds {
        let g = group(*kind, wanted.get(*kind));
        match hooks.get(kind.event()).map(|p| &p.value) {
            Some(Value::Array(arr)) => {
                let items: Vec<(usize, usize)> = arr.elements.iter().map(value_range).collect();
                edits.push(insert_edit(
                    body,
                    range_of_arr(arr),
                    &items,
                    0,
                    &[(None, g)],
                    &style,
                ));
            }
            _ => new_events.push((Some(kind.event().to_string()), J::Arr(vec![g]))),
        }
    }
    if !new_events.is_empty() {
        let props: Vec<(usize, usize)> = hooks.properties.iter().map(prop_range).collect();
        edits.push(insert_edit(
            body,
            range_of_obj(hooks),
            &props,
            0,
            &new_events,
            &style,
        ));
    }
    edits
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::hookcmd::{canonical, ShellForm};
    use crate::platform::Os;
    use std::path::PathBuf;

    pub(crate) fn ctx() -> CommandContext {
        CommandContext::with_home(Os::Linux, "/home/u")
    }

    fn wanted(shell: ShellForm) -> WantedHooks {
        let c = ctx();
        WantedHooks::of(|kind| canonical(kind, &c, shell))
    }

    pub(crate) fn p() -> &'static Path {
        Path::new("/home/u/.claude/settings.json")
    }

    /// A refusal that names the file and the place.
    pub(crate) fn assert_refused(err: &Error, text: &str, needle: &str) {
        assert!(err.message().contains(needle), "{text}: {err}");
        assert!(
            err.message().starts_with("/home/u/.claude/settings.json:"),
            "{err}"
        );
    }

    #[test]
    fn exec_form_gk_entries_are_gks_and_replaced() {
        let before = r#"{
  "hooks": {
    "UserPromptSubmit": [
      {"hooks": [{"type": "command", "command": "/home/u/.claude/hooks/gk", "args": ["hook", "prompt"]}]},
      {"hooks": [{"type": "command", "command": "/usr/bin/echo", "args": ["hook", "prompt"]}]}
    ]
  }
}
"#;
        let after = add_hooks(p(), before, &wanted(ShellForm::Bash), &ctx()).unwrap();
        assert!(!after.contains("\"/home/u/.claude/hooks/gk\""), "{after}");
        assert!(after.contains("/usr/bin/echo"), "{after}");
        assert_eq!(after.matches("hook prompt").count(), 1, "{after}");
        let removed = remove_hooks(p(), before, &ctx()).unwrap();
        assert!(!removed.contains("/home/u/.claude/hooks/gk"), "{removed}");
        assert!(removed.contains("/usr/bin/echo"), "{removed}");
    }

    #[test]
    fn install_into_a_plain_file_is_pure_insertion_and_round_trips() {
        let before = "{\n  \"model\": \"opus\",\n  \"n\": 1.50,\n  \"s\": \"\\u00e9\"\n}\n";
        let after = add_hooks(p(), before, &wanted(ShellForm::Bash), &ctx()).unwrap();
        assert!(after.starts_with("{\n  \"hooks\": {\n    \"UserPromptSubmit\": [\n      {\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"\\\"$HOME/.claude/hooks/gk\\\" hook prompt\",\n            \"statusMessage\": \"Gatekeeper assessing prompt...\"\n"), "{after}");
        assert!(
            after.ends_with(
                "  },\n  \"model\": \"opus\",\n  \"n\": 1.50,\n  \"s\": \"\\u00e9\"\n}\n"
            ),
            "{after}"
        );
        let diff = similar::TextDiff::from_lines(before, &after);
        assert!(diff
            .iter_all_changes()
            .all(|c| c.tag() != similar::ChangeTag::Delete));
        assert_eq!(
            add_hooks(p(), &after, &wanted(ShellForm::Bash), &ctx()).unwrap(),
            after
        );
        assert_eq!(remove_hooks(p(), &after, &ctx()).unwrap(), before);
    }

    #[test]
    fn powershell_form_carries_the_shell_field() {
        let win = CommandContext {
            os: Os::Windows,
            home: PathBuf::from(r"C:\Users\u"),
            claude_dir: PathBuf::from(r"C:\Users\u\.claude"),
            claude_config_dir: None,
        };
        let w = WantedHooks::of(|kind| canonical(kind, &win, ShellForm::PowerShell));
        let after = add_hooks(p(), "{}", &w, &win).unwrap();
        assert!(after.contains("\"shell\": \"powershell\""), "{after}");
        assert_eq!(add_hooks(p(), &after, &w, &win).unwrap(), after);
        assert_eq!(remove_hooks(p(), &after, &win).unwrap(), "{}");
    }

    #[test]
    fn the_session_group_joins_another_tools_session_start_and_round_trips() {
        let before = "{\n  \"hooks\": {\n    \"SessionStart\": [\n      {\n        \"matcher\": \"startup\",\n        \"hooks\": [{\"type\": \"command\", \"command\": \"direnv export json\"}]\n      }\n    ]\n  }\n}\n";
        let after = add_hooks(p(), before, &wanted(ShellForm::Bash), &ctx()).unwrap();
        let v: serde_json::Value = serde_json::from_str(&after).unwrap();
        let groups = v["hooks"]["SessionStart"].as_array().unwrap();
        assert_eq!(groups.len(), 2, "{after}");
        // gk's group first, with no matcher: it runs on every source.
        assert_eq!(
            groups[0],
            serde_json::json!({"hooks": [{"type": "command", "command": "\"$HOME/.claude/hooks/gk\" hook session", "timeout": 5}]})
        );
        assert_eq!(groups[1]["matcher"], "startup");
        let diff = similar::TextDiff::from_lines(before, &after);
        assert!(diff
            .iter_all_changes()
            .all(|c| c.tag() != similar::ChangeTag::Delete));
        assert_eq!(remove_hooks(p(), &after, &ctx()).unwrap(), before);
        // A gk session entry under another spelling is replaced, not doubled.
        let other = after.replace(
            "\"\\\"$HOME/.claude/hooks/gk\\\" hook session\"",
            "\"~/.claude/hooks/gk hook session\"",
        );
        assert_ne!(other, after);
        assert_eq!(
            add_hooks(p(), &other, &wanted(ShellForm::Bash), &ctx()).unwrap(),
            after
        );
    }

    #[test]
    fn compact_file_stays_on_one_line() {
        let before = "{\"a\":1,\"hooks\":{\"Stop\":[{\"hooks\":[{\"type\":\"command\",\"command\":\"other\"}]}]}}";
        let after = add_hooks(p(), before, &wanted(ShellForm::Bash), &ctx()).unwrap();
        assert!(!after.contains('\n'), "{after}");
        assert_eq!(remove_hooks(p(), &after, &ctx()).unwrap(), before);
    }

    #[test]
    fn empty_containers_that_were_there_come_back_after_uninstall() {
        for before in [
            "{\n  \"hooks\": {},\n  \"model\": \"opus\"\n}\n",
            "{\n  \"model\": \"opus\",\n  \"hooks\": {\n  }\n}\n",
            "{\n  \"hooks\": {\n    \"Stop\": [],\n    \"PreToolUse\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"lint\"}]}]\n  }\n}\n",
            "{\"hooks\": {\"UserPromptSubmit\": [ ], \"Stop\": []}}",
            "{ }",
            "{\r\n}\r\n",
        ] {
            let (after, filled) =
                add_hooks_noting(p(), before, &wanted(ShellForm::Bash), &ctx()).unwrap();
            assert!(!filled.is_empty(), "{before:?}");
            assert_eq!(
                remove_hooks_keeping(p(), &after, &ctx(), &filled).unwrap(),
                before,
                "{before:?} -> {filled:?}"
            );
            // Without the note, uninstall cannot tell them from ones it made.
            assert_ne!(remove_hooks(p(), &after, &ctx()).unwrap(), before);
            // A second install fills nothing more.
            let (again, none) = add_hooks_noting(p(), &after, &wanted(ShellForm::Bash), &ctx()).unwrap();
            assert_eq!((again, none), (after, vec![]));
        }
        // What install created, or emptied itself, is not noted; `{}` needs no note.
        for before in [
            "{\"model\": \"x\"}",
            "{}",
            "{\"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"~/.claude/hooks/gk hook stop\"}]}]}}",
        ] {
            let (_, filled) = add_hooks_noting(p(), before, &wanted(ShellForm::Bash), &ctx()).unwrap();
            assert_eq!(filled, vec![], "{before:?}");
        }
        // A note whose text is not whitespace is not used.
        let before = "{\"hooks\": {}}";
        let (after, _) = add_hooks_noting(p(), before, &wanted(ShellForm::Bash), &ctx()).unwrap();
        let bad = [EmptyContainer {
            at: vec!["hooks".into()],
            inside: "\"x\": 1".into(),
        }];
        assert_eq!(
            remove_hooks_keeping(p(), &after, &ctx(), &bad).unwrap(),
            "{}"
        );
    }

    #[test]
    fn refusals_name_the_place() {
        for (text, needle) in [
            ("{\n  // c\n  \"a\": 1\n}", ":2:"),
            ("{\"a\": 1,}", ":1:"),
            ("{\"hooks\": []}", "`hooks` must be an object"),
            (
                "{\"hooks\": {\"Stop\": {}}}",
                ":1:20: hooks.Stop: an event must be an array of groups",
            ),
            ("[1]", "top level"),
            ("{\"a\": ", ":1:"),
            (
                "{\"hooks\": {},\n \"hooks\": {}}",
                ":2:2: `hooks` appears twice",
            ),
            (
                "{\"hooks\": {\"Stop\": [], \"Stop\": []}}",
                "`hooks.Stop` appears twice",
            ),
            (
                "{\n  \"env\": {\"A\": \"1\"},\n  \"env\": {\"B\": \"2\"}\n}",
                ":3:3: `env` appears twice",
            ),
            (
                "{\"hooks\": {\"Stop\": [{\"matcher\": 5, \"hooks\": []}]}}",
                ":1:33: hooks.Stop[0].matcher: `matcher` must be a string; Claude Code skips this whole file",
            ),
        ] {
            let err = add_hooks(p(), text, &wanted(ShellForm::Bash), &ctx()).unwrap_err();
            assert_refused(&err, text, needle);
        }
    }

    #[test]
    fn a_script_named_like_a_python_hook_under_another_event_is_not_gks() {
        // Another tool's command guard that happens to be called gatekeeper.py.
        let before = "{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\n        \"matcher\": \"Bash\",\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"python3 ~/tools/gatekeeper.py\"\n          }\n        ]\n      }\n    ]\n  }\n}\n";
        let after = add_hooks(p(), before, &wanted(ShellForm::Bash), &ctx()).unwrap();
        assert!(
            after.contains("\"command\": \"python3 ~/tools/gatekeeper.py\""),
            "{after}"
        );
        assert_eq!(remove_hooks(p(), &after, &ctx()).unwrap(), before);
        assert_eq!(remove_hooks(p(), before, &ctx()).unwrap(), before);
        // Under its own event the Python hook is still replaced.
        let legacy = before
            .replace("PreToolUse", "UserPromptSubmit")
            .replace("~/tools/gatekeeper.py", "~/.claude/hooks/gatekeeper.py");
        let after = add_hooks(p(), &legacy, &wanted(ShellForm::Bash), &ctx()).unwrap();
        assert!(!after.contains("gatekeeper.py"), "{after}");
    }

    #[test]
    fn a_repeated_key_inside_a_group_or_handler_is_refused() {
        // Claude Code reads the last `hooks` of this group (`say hi`); an edit
        // that read the first would drop the whole group, `say hi` with it.
        let group = "{\n  \"hooks\": {\n    \"Stop\": [\n      {\n        \"hooks\": [{\"type\": \"command\", \"command\": \"~/.claude/hooks/gk hook stop\"}],\n        \"hooks\": [{\"type\": \"command\", \"command\": \"say hi\"}]\n      }\n    ]\n  }\n}\n";
        let handler = "{\"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"~/.claude/hooks/gk hook stop\", \"command\": \"say hi\"}]}]}}";
        for (text, needle) in [
            (group, ":6:9: `hooks.Stop[0].hooks` appears twice"),
            (
                handler,
                ":1:95: `hooks.Stop[0].hooks[0].command` appears twice",
            ),
        ] {
            let err = add_hooks(p(), text, &wanted(ShellForm::Bash), &ctx()).unwrap_err();
            assert!(err.message().contains(needle), "{err}");
            let err = remove_hooks(p(), text, &ctx()).unwrap_err();
            assert!(err.message().contains(needle), "{err}");
        }
    }
}
