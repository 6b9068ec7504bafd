//! The two other things gk may add to a Claude Code `settings.json`, as pure
//! text → text splices like [`super::settings_edit`]'s (every byte outside
//! what is inserted or removed stays as it was, and each removal is the
//! inverse of its insertion):
//!
//! - the `permissions.allow` rules that let Claude write its task records
//!   without asking ([`add_rules`] / [`remove_rules`]);
//! - a `statusLine` running `gk statusline`, only where none is set
//!   ([`add_statusline`] / [`remove_statusline`]).
//!
//! A file that is not strict JSON, or where `permissions`, `permissions.allow`
//! or `statusLine` has the wrong type or appears twice, is refused with
//! `path:line:column: reason`. The result is parsed again and compared, as
//! a JSON value, with the input plus exactly the intended change.

use std::path::Path;

use jsonc_parser::ast::{Object, Value};

use super::settings_edit::EmptyContainer;
use super::splice::{
    apply_edits, at, cut_items, insert_edit, parse_strict, prop_range, range_of_arr, range_of_obj,
    render, split_bom, value_range, value_start, Edit, Style, J,
};
use crate::error::{Error, Result};
use crate::hookcmd::{normalize, CommandContext};
use crate::settings;

/// The value of the root object of a settings text (BOM allowed), strictly parsed.
fn value_of(path: &Path, text: &str) -> Result<serde_json::Value> {
    settings::parse(path, text)
        .map(|s| s.value)
        .map_err(|e| Error::new(e.to_string()))
}

/// `prop` of `obj`, refusing one that appears twice (Claude Code reads the
/// last one; an edit of the first would be a guess).
fn single<'a, 'b>(
    path: &Path,
    body: &str,
    obj: &'b Object<'a>,
    name: &str,
    shown: &str,
) -> Result<Option<&'b jsonc_parser::ast::ObjectProp<'a>>> {
    let mut found = obj.properties.iter().filter(|p| p.name.as_str() == name);
    let first = found.next();
    if let Some(second) = found.next() {
        return Err(at(
            path,
            body,
            second.range.start,
            &format!("`{shown}` appears twice"),
        ));
    }
    Ok(first)
}

/// Where a new root property goes: first, but after `$schema` (as the hooks).
fn root_index(root: &Object) -> usize {
    usize::from(
        root.properties
            .first()
            .is_some_and(|p| p.name.as_str() == "$schema"),
    )
}

/// An edit adding property `name: value` to `obj` before its property `index`.
fn insert_prop(
    body: &str,
    obj: &Object,
    index: usize,
    name: &str,
    value: J,
    style: &Style,
) -> Edit {
    let props: Vec<(usize, usize)> = obj.properties.iter().map(prop_range).collect();
    insert_edit(
        body,
        range_of_obj(obj),
        &props,
        index,
        &[(Some(name.into()), value)],
        style,
    )
}

/// The edits cutting property `prop` out of `obj` (the inverse of
/// [`insert_prop`]); when it was the last property, `inside` is what stays
/// between the braces.
fn cut_prop(obj: &Object, prop: &jsonc_parser::ast::ObjectProp, inside: &str) -> Vec<Edit> {
    let props: Vec<(usize, usize)> = obj.properties.iter().map(prop_range).collect();
    let which: Vec<bool> = obj
        .properties
        .iter()
        .map(|p| std::ptr::eq(p, prop))
        .collect();
    cut_items(range_of_obj(obj), &props, &which, inside)
}

/// What was between the root's braces before install, when install noted
/// a root that held only whitespace (`{ }`, `{\n}`): the last key taken
/// out of the root gives it back.
fn root_inside(keep: &[EmptyContainer]) -> &str {
    keep.iter()
        .find(|c| c.at.is_empty())
        .map_or("", |c| c.inside.as_str())
}

fn internal(path: &Path, what: &str) -> Error {
    Error::refused(format!(
        "internal check failed for {}: {what}",
        path.display()
    ))
}

/// The `permissions.allow` array as strings (`None` when absent).
fn allow_list(v: &serde_json::Value) -> Option<Vec<serde_json::Value>> {
    v.get("permissions")?.get("allow")?.as_array().cloned()
}

/// Add every rule of `rules` not already in `permissions.allow` (string
/// equality), before the first existing rule; `permissions` and `allow` are
/// created when missing. A missing or empty file becomes one holding the rules.
#[cfg(test)]
pub fn add_rules(path: &Path, text: &str, rules: &[String]) -> Result<String> {
    add_rules_noting(path, text, rules).map(|(out, _)| out)
}

/// [`add_rules`], and the containers (`permissions`, `permissions.allow`)
/// that were there and empty and now hold gk's rules: uninstall gives them
/// back as they were (see `setup::record`).
pub fn add_rules_noting(
    path: &Path,
    text: &str,
    rules: &[String],
) -> Result<(String, Vec<EmptyContainer>)> {
    let out = add_rules_only(path, text, rules)?;
    if out == text {
        return Ok((out, Vec::new()));
    }
    let (_, body) = split_bom(text);
    if body.trim().is_empty() {
        return Ok((out, Vec::new()));
    }
    let root = parse_strict(path, body)?;
    let mut filled = Vec::new();
    if let Some(prop) = single(path, body, &root, "permissions", "permissions")? {
        if let Value::Object(perms) = &prop.value {
            let (start, end) = range_of_obj(perms);
            if perms.properties.is_empty() {
                filled.push(EmptyContainer {
                    at: vec!["permissions".into()],
                    inside: body[start + 1..end - 1].to_string(),
                });
            } else if let Some(allow) = single(path, body, perms, "allow", "permissions.allow")? {
                if let Value::Array(list) = &allow.value {
                    let (start, end) = range_of_arr(list);
                    if list.elements.is_empty() {
                        filled.push(EmptyContainer {
                            at: vec!["permissions".into(), "allow".into()],
                            inside: body[start + 1..end - 1].to_string(),
                        });
                    }
                }
            }
        }
    }
    Ok((out, filled))
}

fn add_rules_only(path: &Path, text: &str, rules: &[String]) -> Result<String> {
    let (bom, body) = split_bom(text);
    let new_rules = || J::Arr(rules.iter().map(|r| J::Str(r.clone())).collect());
    if body.trim().is_empty() {
        let doc = J::Obj(vec![(
            "permissions".into(),
            J::Obj(vec![("allow".into(), new_rules())]),
        )]);
        return Ok(format!("{bom}{}\n", render(&doc, "", &Style::fresh())));
    }
    let before = value_of(path, text)?;
    let root = parse_strict(path, body)?;
    let style = Style::detect(body, &root);
    let edit = match single(path, body, &root, "permissions", "permissions")? {
        None => Some(insert_prop(
            body,
            &root,
            root_index(&root),
            "permissions",
            J::Obj(vec![("allow".into(), new_rules())]),
            &style,
        )),
        Some(prop) => {
            let Value::Object(perms) = &prop.value else {
                return Err(at(
                    path,
                    body,
                    value_start(&prop.value),
                    "`permissions` must be an object",
                ));
            };
            match single(path, body, perms, "allow", "permissions.allow")? {
                None => Some(insert_prop(body, perms, 0, "allow", new_rules(), &style)),
                Some(allow) => {
                    let Value::Array(list) = &allow.value else {
                        return Err(at(
                            path,
                            body,
                            value_start(&allow.value),
                            "`permissions.allow` must be an array",
                        ));
                    };
                    let present: Vec<String> = list
                        .elements
                        .iter()
                        .filter_map(|e| match e {
                            Value::StringLit(s) => Some(s.value.to_string()),
                            _ => None,
                        })
                        .collect();
                    let missing: Vec<(Option<String>, J)> = rules
                        .iter()
                        .filter(|r| !present.contains(r))
                        .map(|r| (None, J::Str(r.clone())))
                        .collect();
                    (!missing.is_empty()).then(|| {
                        let items: Vec<(usize, usize)> =
                            list.elements.iter().map(value_range).collect();
                        insert_edit(body, range_of_arr(list), &items, 0, &missing, &style)
                    })
                }
            }
        }
    };
    let Some(edit) = edit else {
        return Ok(text.to_string());
    };
    let out = format!("{bom}{}", apply_edits(body, vec![edit]));
    // The result: the same document with exactly the missing rules added.
    let after = value_of(path, &out).map_err(|e| internal(path, e.message()))?;
    let mut expected = before;
    let had = allow_list(&expected).unwrap_or_default();
    let mut allow: Vec<serde_json::Value> = rules
        .iter()
        .filter(|r| !had.iter().any(|h| h.as_str() == Some(r.as_str())))
        .map(|r| serde_json::Value::String(r.clone()))
        .collect();
    allow.extend(had);
    let perms = expected.as_object_mut().map(|o| {
        o.entry("permissions")
            .or_insert_with(|| serde_json::json!({}))
    });
    if let Some(serde_json::Value::Object(p)) = perms {
        p.insert("allow".into(), serde_json::Value::Array(allow));
    }
    if after != expected {
        return Err(internal(path, "the rules were not added as planned"));
    }
    Ok(out)
}

/// Take every rule of `rules` out of `permissions.allow`; an `allow` array
/// that this empties goes too, and then a `permissions` object this
/// empties. Nothing else changes.
#[cfg(test)]
pub fn remove_rules(path: &Path, text: &str, rules: &[String]) -> Result<String> {
    remove_rules_keeping(path, text, rules, &[])
}

/// [`remove_rules`], except that a container `keep` notes as empty before
/// install (`permissions`, `permissions.allow`) is emptied back to its old
/// bytes instead of removed.
pub fn remove_rules_keeping(
    path: &Path,
    text: &str,
    rules: &[String],
    keep: &[EmptyContainer],
) -> Result<String> {
    let kept = |at: &[&str]| {
        keep.iter()
            .find(|c| c.at.iter().map(String::as_str).eq(at.iter().copied()))
            .map(|c| c.inside.clone())
    };
    let (bom, body) = split_bom(text);
    if body.trim().is_empty() {
        return Ok(text.to_string());
    }
    let before = value_of(path, text)?;
    let root = parse_strict(path, body)?;
    let Some(prop) = single(path, body, &root, "permissions", "permissions")? else {
        return Ok(text.to_string());
    };
    let Value::Object(perms) = &prop.value else {
        return Ok(text.to_string());
    };
    let Some(allow) = single(path, body, perms, "allow", "permissions.allow")? else {
        return Ok(text.to_string());
    };
    let Value::Array(list) = &allow.value else {
        return Ok(text.to_string());
    };
    let remove: Vec<bool> = list
        .elements
        .iter()
        .map(|e| matches!(e, Value::StringLit(s) if rules.iter().any(|r| *r == s.value)))
        .collect();
    if !remove.iter().any(|r| *r) {
        return Ok(text.to_string());
    }
    let keep_perms = kept(&["permissions"]);
    let keep_allow = kept(&["permissions", "allow"]);
    let items: Vec<(usize, usize)> = list.elements.iter().map(value_range).collect();
    let edits = if remove.iter().all(|r| *r) {
        // The array goes; and `permissions` with it when it held nothing
        // else — unless either was there, empty, before install.
        match (&keep_allow, &keep_perms) {
            (Some(inside), _) => cut_items(range_of_arr(list), &items, &remove, inside),
            (None, Some(inside)) if perms.properties.len() == 1 => {
                cut_items(range_of_obj(perms), &[prop_range(allow)], &[true], inside)
            }
            _ if perms.properties.len() == 1 => cut_prop(&root, prop, root_inside(keep)),
            _ => cut_prop(perms, allow, ""),
        }
    } else {
        cut_items(range_of_arr(list), &items, &remove, "")
    };
    let out = format!("{bom}{}", apply_edits(body, edits));
    let after = value_of(path, &out).map_err(|e| internal(path, e.message()))?;
    let mut expected = before;
    if let Some(p) = expected
        .get_mut("permissions")
        .and_then(|p| p.as_object_mut())
    {
        if let Some(serde_json::Value::Array(a)) = p.get_mut("allow") {
            a.retain(|v| !v.as_str().is_some_and(|s| rules.iter().any(|r| r == s)));
            if a.is_empty() && keep_allow.is_none() {
                p.remove("allow");
            }
        }
        if p.is_empty() && keep_perms.is_none() {
            if let Some(o) = expected.as_object_mut() {
                o.remove("permissions");
            }
        }
    }
    if after != expected {
        return Err(internal(path, "the rules were not removed as planned"));
    }
    Ok(out)
}

/// Whether `command` runs `gk statusline` (any spelling of gk's path).
pub fn is_gk_statusline(command: &str, ctx: &CommandContext) -> bool {
    normalize(command, ctx).is_some_and(|inv| {
        let name = inv.program.rsplit('/').next().unwrap_or(&inv.program);
        let name = name.strip_suffix(".exe").unwrap_or(name);
        name == "gk" && inv.args == ["statusline"]
    })
}

/// What [`add_statusline`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StatusLine {
    /// Added (or gk's was there already).
    Registered(String),
    /// Another `statusLine` is set: left as it is.
    Taken(String),
}

/// Register `command` as the status line when the file sets none. A
/// `statusLine` already there, whatever it runs, is never replaced.
pub fn add_statusline(
    path: &Path,
    text: &str,
    command: &str,
    ctx: &CommandContext,
) -> Result<StatusLine> {
    let (bom, body) = split_bom(text);
    let value = J::Obj(vec![
        ("type".into(), J::Str("command".into())),
        ("command".into(), J::Str(command.into())),
    ]);
    if body.trim().is_empty() {
        let doc = J::Obj(vec![("statusLine".into(), value)]);
        return Ok(StatusLine::Registered(format!(
            "{bom}{}\n",
            render(&doc, "", &Style::fresh())
        )));
    }
    let before = value_of(path, text)?;
    let root = parse_strict(path, body)?;
    if let Some(prop) = single(path, body, &root, "statusLine", "statusLine")? {
        let ours = match &prop.value {
            Value::Object(o) => o.get("command").and_then(|c| match &c.value {
                Value::StringLit(s) if is_gk_statusline(&s.value, ctx) => Some((
                    s.value.to_string(),
                    crate::edit::splice::value_range(&c.value),
                )),
                _ => None,
            }),
            _ => None,
        };
        let Some((had, (start, end))) = ours else {
            return Ok(StatusLine::Taken(text.to_string()));
        };
        if had == command {
            return Ok(StatusLine::Registered(text.to_string()));
        }
        // gk's own status line in another spelling (one for the other
        // Windows shell, say): only its command string is replaced.
        let edit = crate::edit::splice::Edit {
            start,
            end,
            text: serde_json::to_string(command).map_err(|e| internal(path, &e.to_string()))?,
        };
        let out = format!("{bom}{}", apply_edits(body, vec![edit]));
        let after = value_of(path, &out).map_err(|e| internal(path, e.message()))?;
        let mut expected = before;
        expected["statusLine"]["command"] = serde_json::Value::String(command.into());
        if after != expected {
            return Err(internal(path, "the status line was not changed as planned"));
        }
        return Ok(StatusLine::Registered(out));
    }
    let style = Style::detect(body, &root);
    let edit = insert_prop(body, &root, root_index(&root), "statusLine", value, &style);
    let out = format!("{bom}{}", apply_edits(body, vec![edit]));
    let after = value_of(path, &out).map_err(|e| internal(path, e.message()))?;
    let mut expected = before;
    if let Some(o) = expected.as_object_mut() {
        o.insert(
            "statusLine".into(),
            serde_json::json!({"type": "command", "command": command}),
        );
    }
    if after != expected {
        return Err(internal(path, "the status line was not added as planned"));
    }
    Ok(StatusLine::Registered(out))
}

/// Take out a `statusLine` that runs `gk statusline`; any other stays.
pub fn remove_statusline(
    path: &Path,
    text: &str,
    ctx: &CommandContext,
    keep: &[EmptyContainer],
) -> Result<String> {
    let (bom, body) = split_bom(text);
    if body.trim().is_empty() {
        return Ok(text.to_string());
    }
    let root = parse_strict(path, body)?;
    let Some(prop) = single(path, body, &root, "statusLine", "statusLine")? else {
        return Ok(text.to_string());
    };
    let Value::Object(o) = &prop.value else {
        return Ok(text.to_string());
    };
    let ours = o
        .get("command")
        .and_then(|c| match &c.value {
            Value::StringLit(s) => Some(s.value.to_string()),
            _ => None,
        })
        .is_some_and(|c| is_gk_statusline(&c, ctx));
    if !ours {
        return Ok(text.to_string());
    }
    let out = format!(
        "{bom}{}",
        apply_edits(body, cut_prop(&root, prop, root_inside(keep)))
    );
    value_of(path, &out).map_err(|e| internal(path, e.message()))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::settings_edit::tests::{assert_refused, ctx, p};

    fn rules() -> Vec<String> {
        vec![
            "Read(~/.local/state/gk/*.json)".into(),
            "Edit(~/.local/state/gk/*.json)".into(),
        ]
    }

    fn pure_insertion(before: &str, after: &str) -> bool {
        similar::TextDiff::from_lines(before, after)
            .iter_all_changes()
            .all(|c| c.tag() != similar::ChangeTag::Delete)
    }

    #[test]
    fn rules_are_added_where_they_belong_and_removed_byte_for_byte() {
        let cases = [
            // no permissions at all
            "{\n  \"env\": {\"TOKEN\": \"x\"},\n  \"model\": \"opus\"\n}\n",
            // permissions without allow
            "{\n    \"permissions\": {\n        \"deny\": [\"Bash(rm:*)\"]\n    }\n}",
            // an allow list with rules of the user's
            "{\r\n  \"permissions\": {\r\n    \"allow\": [\r\n      \"Bash(ls:*)\"\r\n    ]\r\n  }\r\n}\r\n",
            // an empty allow list
            "{\n  \"permissions\": {\n    \"allow\": []\n  }\n}\n",
            // one line
            "{\"permissions\":{\"allow\":[\"Bash(ls:*)\"]},\"a\":1}",
            // $schema first
            "{\n  \"$schema\": \"https://example.invalid/s.json\",\n  \"a\": 1\n}\n",
            // BOM
            "\u{feff}{\n  \"a\": 1\n}\n",
        ];
        for before in cases {
            let after = add_rules(p(), before, &rules()).unwrap();
            let v: serde_json::Value =
                serde_json::from_str(after.trim_start_matches('\u{feff}')).unwrap();
            let allow = v["permissions"]["allow"].as_array().unwrap();
            for r in rules() {
                assert_eq!(
                    allow.iter().filter(|a| **a == r.as_str()).count(),
                    1,
                    "{after}"
                );
            }
            if before.contains("[]") {
                // An empty list is opened up: its one line changes.
            } else if before.contains('\n') {
                assert!(pure_insertion(before, &after), "{before:?} -> {after:?}");
            } else {
                assert!(!after.contains('\n'), "{after}");
            }
            assert_eq!(
                add_rules(p(), &after, &rules()).unwrap(),
                after,
                "idempotent"
            );
            let back = remove_rules(p(), &after, &rules()).unwrap();
            if before.contains("\"allow\": []") {
                // Known exception: an empty list that was there goes with gk's rules.
                assert!(!back.contains("allow"), "{back}");
            } else {
                assert_eq!(back, before);
            }
        }
    }

    /// An `allow` array written on one line in a file of many lines stays
    /// one line, in the spacing it was written with; one written an entry
    /// a line gets an entry a line. Uninstall gives the bytes back.
    #[test]
    fn the_allow_array_keeps_the_layout_it_was_written_in() {
        let cases = [
            (
                "{\n  \"permissions\": {\n    \"allow\": [\"Bash(ls)\"]\n  }\n}\n",
                "{\n  \"permissions\": {\n    \"allow\": [\"Read(~/.local/state/gk/*.json)\", \"Edit(~/.local/state/gk/*.json)\", \"Bash(ls)\"]\n  }\n}\n",
            ),
            (
                "{\n  \"permissions\": {\n    \"allow\": [\"Bash(ls)\",\"Bash(pwd)\"],\n    \"deny\": []\n  }\n}\n",
                "{\n  \"permissions\": {\n    \"allow\": [\"Read(~/.local/state/gk/*.json)\",\"Edit(~/.local/state/gk/*.json)\",\"Bash(ls)\",\"Bash(pwd)\"],\n    \"deny\": []\n  }\n}\n",
            ),
            (
                "{\r\n  \"permissions\": { \"allow\": [ \"Bash(ls)\" ] }\r\n}\r\n",
                "{\r\n  \"permissions\": { \"allow\": [ \"Read(~/.local/state/gk/*.json)\", \"Edit(~/.local/state/gk/*.json)\", \"Bash(ls)\" ] }\r\n}\r\n",
            ),
            (
                "{\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(ls)\"\n    ]\n  }\n}\n",
                "{\n  \"permissions\": {\n    \"allow\": [\n      \"Read(~/.local/state/gk/*.json)\",\n      \"Edit(~/.local/state/gk/*.json)\",\n      \"Bash(ls)\"\n    ]\n  }\n}\n",
            ),
            // An empty list on one line is opened up, an entry a line.
            (
                "{\n  \"permissions\": {\n    \"allow\": []\n  }\n}\n",
                "{\n  \"permissions\": {\n    \"allow\": [\n      \"Read(~/.local/state/gk/*.json)\",\n      \"Edit(~/.local/state/gk/*.json)\"\n    ]\n  }\n}\n",
            ),
        ];
        for (before, want) in cases {
            let after = add_rules(p(), before, &rules()).unwrap();
            assert_eq!(after, want, "from {before:?}");
            if !before.contains("[]\n") {
                assert_eq!(remove_rules(p(), &after, &rules()).unwrap(), before);
            }
        }
    }

    #[test]
    fn a_rule_already_there_is_kept_and_other_rules_stay_on_removal() {
        let before = "{\n  \"permissions\": {\n    \"allow\": [\n      \"Edit(~/.local/state/gk/*.json)\",\n      \"Bash(ls:*)\"\n    ]\n  }\n}\n";
        let after = add_rules(p(), before, &rules()).unwrap();
        assert_eq!(after.matches("Edit(~/.local/state/gk/*.json)").count(), 1);
        assert_eq!(after.matches("Read(~/.local/state/gk/*.json)").count(), 1);
        let removed = remove_rules(p(), &after, &rules()).unwrap();
        assert_eq!(
            removed,
            "{\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(ls:*)\"\n    ]\n  }\n}\n"
        );
    }

    #[test]
    fn wrong_shapes_and_repeated_keys_are_refused_with_the_place() {
        for (text, needle) in [
            ("{\"permissions\": []}", "`permissions` must be an object"),
            (
                "{\"permissions\": {\"allow\": \"x\"}}",
                "`permissions.allow` must be an array",
            ),
            (
                "{\"permissions\": {}, \"permissions\": {}}",
                "`permissions` appears twice",
            ),
            (
                "{\"permissions\": {\"allow\": [], \"allow\": []}}",
                "`permissions.allow` appears twice",
            ),
            ("{\"a\": 1,}", "settings.json:1:"),
        ] {
            let err = add_rules(p(), text, &rules()).unwrap_err();
            assert_refused(&err, text, needle);
        }
    }

    #[test]
    fn an_empty_file_gets_just_the_rules() {
        let out = add_rules(p(), "", &rules()).unwrap();
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(
            v["permissions"]["allow"][1],
            "Edit(~/.local/state/gk/*.json)"
        );
    }

    #[test]
    fn the_status_line_is_added_only_where_none_is_set() {
        let cmd = "\"$HOME/.claude/hooks/gk\" statusline";
        let before = "{\n  \"model\": \"opus\"\n}\n";
        let StatusLine::Registered(after) = add_statusline(p(), before, cmd, &ctx()).unwrap()
        else {
            panic!("not registered");
        };
        assert!(pure_insertion(before, &after), "{after}");
        assert_eq!(
            add_statusline(p(), &after, cmd, &ctx()).unwrap(),
            StatusLine::Registered(after.clone())
        );
        assert_eq!(remove_statusline(p(), &after, &ctx(), &[]).unwrap(), before);
        let theirs =
            "{\n  \"statusLine\": {\"type\": \"command\", \"command\": \"~/bin/line.sh\"}\n}\n";
        assert_eq!(
            add_statusline(p(), theirs, cmd, &ctx()).unwrap(),
            StatusLine::Taken(theirs.to_string())
        );
        assert_eq!(remove_statusline(p(), theirs, &ctx(), &[]).unwrap(), theirs);
        // gk's under another spelling is still gk's.
        let other = "{\"statusLine\": {\"type\": \"command\", \"command\": \"/home/u/.claude/hooks/gk statusline\"}}";
        assert_eq!(remove_statusline(p(), other, &ctx(), &[]).unwrap(), "{}");
    }
}
