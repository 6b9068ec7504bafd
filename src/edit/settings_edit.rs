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

use jsonc_parser::ast::{Object, Value};

use super::splice::*;
use crate::error::{Error, Result};
use crate::hookcmd::{classify_under, CommandContext, HookCommand, HookKind, Owner};
use crate::settings;

/// What an edit does with each of gk's hooks: register it with its
/// command, take gk's entries for it out, or leave them as they are.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Slot {
    Want(HookCommand),
    /// The client is known not to have the event: gk's entries go.
    Remove,
    /// Whether the client has the event is not known here (doctor's
    /// `--fix`, a channel serving clients of any version): gk's entries
    /// stay as they are, none is added.
    Leave,
}

/// The command to register for each of gk's hooks that is wanted here,
/// and what to do with the others.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WantedHooks {
    slots: [Slot; HookKind::ALL.len()],
}

impl WantedHooks {
    /// The hooks every client knows ([`HookKind::ALWAYS`]), each command
    /// from `command(kind)`; gk's entries for the others are left as they
    /// are.
    pub fn of(command: impl Fn(HookKind) -> HookCommand) -> WantedHooks {
        WantedHooks::for_client(None, command)
    }

    /// The hooks a client of `version` knows ([`HookKind::known_to`]),
    /// each command from `command(kind)`. A hook the client is known to
    /// lack is taken out; with no version known, gk's entries for such a
    /// hook are left as they are.
    pub fn for_client(
        version: Option<crate::hookcmd::ClientVersion>,
        command: impl Fn(HookKind) -> HookCommand,
    ) -> WantedHooks {
        let known = HookKind::known_to(version);
        WantedHooks {
            slots: HookKind::ALL.map(|k| match (known.contains(&k), version) {
                (true, _) => Slot::Want(command(k)),
                (false, Some(_)) => Slot::Remove,
                (false, None) => Slot::Leave,
            }),
        }
    }

    /// The hooks wanted, in [`HookKind::ALL`]'s order.
    pub fn kinds(&self) -> Vec<HookKind> {
        self.iter().map(|(k, _)| k).collect()
    }

    /// Each wanted hook with its command, in [`HookKind::ALL`]'s order.
    pub fn iter(&self) -> impl Iterator<Item = (HookKind, &HookCommand)> {
        HookKind::ALL
            .into_iter()
            .filter_map(|k| match &self.slots[k.index()] {
                Slot::Want(c) => Some((k, c)),
                _ => None,
            })
    }

    /// `kind`'s command; `None`: not wanted here.
    pub fn get(&self, kind: HookKind) -> Option<&HookCommand> {
        match &self.slots[kind.index()] {
            Slot::Want(c) => Some(c),
            _ => None,
        }
    }

    /// Are gk's entries for `kind` taken out (the client lacks its event)?
    pub fn removes(&self, kind: HookKind) -> bool {
        self.slots[kind.index()] == Slot::Remove
    }

    /// Are gk's entries for `kind` left as they are?
    pub fn leaves(&self, kind: HookKind) -> bool {
        self.slots[kind.index()] == Slot::Leave
    }

    /// These hooks, with gk's entries for `kinds` taken out (another
    /// channel registers them).
    pub fn removing(mut self, kinds: &[HookKind]) -> WantedHooks {
        for k in kinds {
            self.slots[k.index()] = Slot::Remove;
        }
        self
    }

    /// These hooks, with `kinds` left out: gk's entries for them are left
    /// as they are (a file that carries only the others, such as the
    /// switch guard's own plugin).
    pub fn leaving(mut self, kinds: &[HookKind]) -> WantedHooks {
        for k in kinds {
            self.slots[k.index()] = Slot::Leave;
        }
        self
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
            wanted
                .iter()
                .map(|(k, c)| (k.event().to_string(), J::Arr(vec![group(k, c)])))
                .collect(),
        );
        let rendered = render(&J::Obj(vec![("hooks".into(), hooks)]), "", &style);
        let out = format!("{bom}{rendered}\n");
        check_result(path, &out, Some(wanted), ctx, &[])?;
        return Ok((out, Vec::new()));
    }
    let before = check_input(path, text)?;
    let dropped = dropped_handlers(path, text);
    // The hooks the client is known to lack go first, with their events:
    // an event name a client does not know makes it warn at every start.
    let stripped = strip_removed(path, body, wanted, ctx)?;
    let body: &str = stripped.as_deref().unwrap_or(body);

    // Phase 1: remove what gk owns, except one canonical entry per hook
    // that the client runs (one in a part it drops is replaced).
    let root = parse_strict(path, body)?;
    let owned = owned_handlers(&root, ctx);
    let mut keep = [None::<usize>; HookKind::ALL.len()];
    for (i, h) in owned.iter().enumerate() {
        if let Owner::Gk(kind) = h.owner {
            let Some(want) = wanted.get(kind) else {
                continue;
            };
            let slot = &mut keep[kind.index()];
            if slot.is_none()
                && h.event == kind.event()
                && h.raw_command == want.command
                && h.args == want.args
                && h.shell.as_deref() == want.shell
                && h.hook_type.as_deref() == Some("command")
                && !dropped.contains(&(h.event.as_str(), h.group, h.index))
            {
                *slot = Some(i);
            }
        }
    }
    let remove: Vec<&OwnedHandler> = owned
        .iter()
        .enumerate()
        .filter(|(i, _)| !keep.contains(&Some(*i)))
        .filter(|(_, h)| !matches!(h.owner, Owner::Gk(kind) if wanted.leaves(kind)))
        .map(|(_, h)| h)
        .collect();
    let body1 = apply_edits(body, removal_edits(&root, &remove, false, &[]));

    // Phase 2: add a canonical group for each hook without a kept entry.
    let missing: Vec<HookKind> = wanted
        .kinds()
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

/// [`remove_hooks`] for the hooks in `kinds` only: every entry of gk's
/// (any spelling) or of the Python hook doing one of those jobs goes, gk's
/// other hooks stay as they are. Used where another source (a plugin)
/// registers those hooks: the settings copy would run them a second time.
#[cfg(test)]
pub fn remove_hooks_of(
    path: &Path,
    text: &str,
    ctx: &CommandContext,
    kinds: &[HookKind],
) -> Result<String> {
    remove_hooks_of_keeping(path, text, ctx, kinds, &[])
}

/// [`remove_hooks_of`], giving back the containers in `keep` as
/// [`remove_hooks_keeping`] does.
pub fn remove_hooks_of_keeping(
    path: &Path,
    text: &str,
    ctx: &CommandContext,
    kinds: &[HookKind],
    keep: &[EmptyContainer],
) -> Result<String> {
    let keep = blank_only(keep);
    let (bom, body) = split_bom(text);
    if body.trim().is_empty() {
        return Ok(text.to_string());
    }
    let before = check_input(path, text)?;
    let root = parse_strict(path, body)?;
    let owned = owned_handlers(&root, ctx);
    let of = |o: &Owner| matches!(o, Owner::Gk(k) | Owner::Legacy(k) if kinds.contains(k));
    let chosen: Vec<&OwnedHandler> = owned.iter().filter(|h| of(&h.owner)).collect();
    let out = format!(
        "{bom}{}",
        apply_edits(body, removal_edits(&root, &chosen, true, &keep))
    );
    check_result_keeping(path, &out, ctx, &before, &|o| !of(o))?;
    Ok(out)
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
    let keep = blank_only(keep);
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

/// The containers of `keep` whose `inside` is JSON whitespace (any other
/// is ignored).
fn blank_only(keep: &[EmptyContainer]) -> Vec<EmptyContainer> {
    keep.iter()
        .filter(|c| {
            c.inside
                .chars()
                .all(|ch| matches!(ch, ' ' | '\t' | '\n' | '\r'))
        })
        .cloned()
        .collect()
}

/// The handlers of gk's events the client drops
/// (`settings::HookEntry::dropped`), as (event, group, index): a gk entry
/// there never runs, so it is not the one to keep.
fn dropped_handlers(
    path: &Path,
    text: &str,
) -> std::collections::HashSet<(&'static str, usize, usize)> {
    let Ok(parsed) = settings::parse(path, text) else {
        return Default::default();
    };
    settings::hook_entries(&parsed)
        .0
        .into_iter()
        .filter(|e| e.dropped)
        .filter_map(|e| {
            HookKind::ALL
                .into_iter()
                .map(|k| k.event())
                .find(|ev| *ev == e.event)
                .map(|ev| (ev, e.group, e.index))
        })
        .collect()
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
            format!(
                "Claude Code skips this whole file: none of its hooks, permissions or env are \
                 in effect, so gk's hooks would never run there; correct {} first",
                crate::text::one_line(&i.at, 120)
            )
        } else if i.is_duplicate_key() {
            "gk's editor would change the first copy, and Claude Code reads the last: \
             keep one copy by hand first"
                .to_string()
        } else {
            "correct it by hand first: gk does not edit a file it would have to guess at"
                .to_string()
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
    let entries = check_result_keeping(path, out, ctx, issues_before, &|o| {
        wanted.is_some() && matches!(o, Owner::Gk(_))
    })?;
    let Some(w) = wanted else { return Ok(()) };
    let internal = |what: String| internal_error(path, what);
    for entry in &entries {
        let Some(command) = &entry.run_command() else {
            continue;
        };
        if let Owner::Gk(kind) = classify_under(&entry.event, command, ctx) {
            if w.leaves(kind) {
                continue;
            }
            let Some(want) = w.get(kind) else {
                return Err(internal(format!("unexpected gk entry `{command}`")));
            };
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
    for (_, want) in w.iter() {
        let count = entries
            .iter()
            .filter(|e| e.command.as_deref() == Some(want.command.as_str()) && e.args == want.args)
            .count();
        if count != 1 {
            return Err(internal(format!(
                "{count} entries for `{}`",
                want.run_command()
            )));
        }
    }
    Ok(())
}

/// The result parses strictly, has no schema issue `issues_before` did
/// not have, and every entry of gk's or the Python hooks' left in it is
/// one `may_stay` allows: its hook entries.
fn check_result_keeping(
    path: &Path,
    out: &str,
    ctx: &CommandContext,
    issues_before: &[String],
    may_stay: &dyn Fn(&Owner) -> bool,
) -> Result<Vec<settings::HookEntry>> {
    let internal = |what: String| internal_error(path, what);
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
        match classify_under(&entry.event, command, ctx) {
            Owner::Foreign => {}
            o if may_stay(&o) => {}
            Owner::Legacy(_) => return Err(internal("Python hook left in place".to_string())),
            Owner::Gk(_) => return Err(internal(format!("gk entry left in {}", entry.event))),
        }
    }
    Ok(entries)
}

fn internal_error(path: &Path, what: String) -> Error {
    Error::refused(format!(
        "internal check failed for {}: {what}",
        path.display()
    ))
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
    let spec = kind.spec();
    if let Some(message) = spec.status_message {
        handler.push(("statusMessage".into(), J::Str(message.into())));
    }
    if let Some(timeout) = spec.timeout {
        handler.push(("timeout".into(), J::Int(timeout)));
    }
    J::Obj(vec![("hooks".into(), J::Arr(vec![J::Obj(handler)]))])
}

/// A hooks file holding just gk's three canonical groups, with a
/// `description` first: `{"description": …, "hooks": {Event: [group]}}`, the
/// shape of a plugin's `hooks/hooks.json`. The groups are the ones
/// [`add_hooks`] puts into a settings file (same fields, same timeouts).
pub fn hooks_file(description: &str, wanted: &WantedHooks) -> String {
    let hooks = J::Obj(
        wanted
            .iter()
            .map(|(k, c)| (k.event().to_string(), J::Arr(vec![group(k, c)])))
            .collect(),
    );
    let file = J::Obj(vec![
        ("description".into(), J::Str(description.into())),
        ("hooks".into(), hooks),
    ]);
    format!("{}\n", render(&file, "", &Style::fresh()))
}

/// `body` without gk's entries for the hooks `wanted` takes out (a client
/// known to lack their events), an event left empty by that removed too
/// (one that was empty before stays); `None` when there is none.
fn strip_removed(
    path: &Path,
    body: &str,
    wanted: &WantedHooks,
    ctx: &CommandContext,
) -> Result<Option<String>> {
    let root = parse_strict(path, body)?;
    let owned = owned_handlers(&root, ctx);
    let gone: Vec<&OwnedHandler> = owned
        .iter()
        .filter(|h| matches!(h.owner, Owner::Gk(kind) if wanted.removes(kind)))
        .collect();
    if gone.is_empty() {
        return Ok(None);
    }
    let keep = empty_containers(body, &root);
    Ok(Some(apply_edits(
        body,
        removal_edits(&root, &gone, true, &keep),
    )))
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
            .filter_map(|k| {
                Some((
                    k.event().to_string(),
                    J::Arr(vec![group(*k, wanted.get(*k)?)]),
                ))
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
        let Some(command) = wanted.get(*kind) else {
            continue;
        };
        let g = group(*kind, command);
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
pub(crate) mod tests;
