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
        after.ends_with("  },\n  \"model\": \"opus\",\n  \"n\": 1.50,\n  \"s\": \"\\u00e9\"\n}\n"),
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
        ("{\"hooks\": []}", "`hooks` must be an object of events"),
        (
            "{\"hooks\": [{\"hooks\": []}]}",
            "`hooks` must be an object of events; Claude Code skips this whole file",
        ),
        (
            "{\n  \"model\": 5\n}",
            ":2:12: model: `model` must be a string, not a number; Claude Code skips this whole file: none of its hooks, permissions or env are in effect, so gk's hooks would never run there",
        ),
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
            "{\"hooks\": {\"PreToolUse\": [{\"matcher\": 5, \"hooks\": []}]}}",
            ":1:39: hooks.PreToolUse[0].matcher: `matcher` must be a string; Claude Code skips this whole file",
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

#[test]
fn removing_the_hooks_a_plugin_carries_leaves_gks_others_and_every_other_byte() {
    let before = "{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"PreToolUse\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"guard\"}]}]\n  }\n}\n";
    let installed = add_hooks(p(), before, &wanted(ShellForm::Bash), &ctx()).unwrap();
    // With the Python prompt hook beside it: it does the same job, so it goes too.
    let legacy = installed.replacen(
        "\"UserPromptSubmit\": [",
        "\"UserPromptSubmit\": [\n      {\"hooks\": [{\"type\": \"command\", \"command\": \"python3 ~/.claude/hooks/gatekeeper.py\"}]},",
        1,
    );
    for text in [&installed, &legacy] {
        let out = remove_hooks_of(p(), text, &ctx(), &[HookKind::Prompt]).unwrap();
        assert!(!out.contains("UserPromptSubmit"), "{out}");
        assert!(!out.contains("gatekeeper.py"), "{out}");
        assert_eq!(out.matches("hook stop").count(), 1, "{out}");
        assert_eq!(out.matches("hook session").count(), 1, "{out}");
        assert!(out.contains("\"guard\""), "{out}");
        // Taking out the other two gives the file before install back.
        let rest = remove_hooks_of(p(), &out, &ctx(), &[HookKind::Stop, HookKind::Session]);
        assert_eq!(rest.unwrap(), before);
    }
    // Nothing of those hooks: the text as it is.
    assert_eq!(
        remove_hooks_of(p(), before, &ctx(), &[HookKind::Prompt]).unwrap(),
        before
    );
}

#[test]
fn a_gk_entry_in_a_part_the_client_drops_is_replaced_not_kept() {
    // Measured on 2.1.332: a group whose matcher is not a string is
    // dropped with its hooks (outside PreToolUse/PermissionRequest), so
    // gk's canonical entry there never runs: install replaces it.
    let w = wanted(ShellForm::Bash);
    let fresh = add_hooks(p(), "", &w, &ctx()).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&fresh).unwrap();
    v["hooks"]["UserPromptSubmit"][0]["matcher"] = serde_json::json!(5);
    let broken = serde_json::to_string_pretty(&v).unwrap();
    let fixed = add_hooks(p(), &broken, &w, &ctx()).unwrap();
    let after: serde_json::Value = serde_json::from_str(&fixed).unwrap();
    let groups = after["hooks"]["UserPromptSubmit"].as_array().unwrap();
    assert_eq!(groups.len(), 1, "{fixed}");
    assert_eq!(groups[0].get("matcher"), None, "{fixed}");
    // And it stays: a second run changes nothing.
    assert_eq!(add_hooks(p(), &fixed, &w, &ctx()).unwrap(), fixed);
}
