//! The settings editor (`install::settings_edit`) on any text.
//!
//! Whenever install accepts a file: the result parses strictly, holds no
//! issue that makes Claude Code skip it, and exactly one canonical entry
//! per hook; installing again changes nothing; uninstall gives back the
//! original bytes when it held nothing of gk's (and in any case leaves no
//! gk entry, and uninstalling again changes nothing); and the diff shown
//! for the change never shows an `env` or secret-named value that occurs
//! only where it is defined. The status line alike: added where none is
//! set, gk's own respelled (nothing else changed), another tool's left as
//! it is, and uninstall takes out only gk's.
#![no_main]

use std::path::Path;

use gk::testing::change::{render, FileChange, Plan, Style};
use gk::testing::edit::{add_hooks_noting, remove_hooks, remove_hooks_keeping, WantedHooks};
use gk::testing::hookcmd::{canonical, classify_under, CommandContext, Owner, ShellForm};
use gk::testing::platform::Os;
use libfuzzer_sys::fuzz_target;

fn ctx() -> CommandContext {
    CommandContext::with_home(Os::Linux, "/home/u")
}

/// Does the text hold a hook entry gk owns (its own or the Python hooks)?
fn owns_something(path: &Path, text: &str, c: &CommandContext) -> bool {
    let Ok(s) = gk::testing::settings::parse(path, text) else {
        return false;
    };
    gk::testing::settings::hook_entries(&s).0.iter().any(|e| {
        e.run_command()
            .is_some_and(|cmd| classify_under(&e.event, &cmd, c) != Owner::Foreign)
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let path = Path::new("settings.json");
    let c = ctx();
    let w = WantedHooks::of(|kind| canonical(kind, &c, ShellForm::Bash));
    let Ok((after, filled)) = add_hooks_noting(path, text, &w, &c) else {
        return;
    };

    let parsed = gk::testing::settings::parse(path, &after)
        .expect("install wrote a file that does not parse");
    let (entries, issues) = gk::testing::settings::hook_entries(&parsed);
    assert!(!issues.iter().any(|i| i.rejects_file()), "{issues:?}");
    for (kind, want) in w.iter() {
        let n = entries
            .iter()
            .filter(|e| e.event == kind.event() && e.command.as_deref() == Some(&want.command))
            .count();
        assert_eq!(n, 1, "{kind:?} in {after}");
    }

    let (again, none) = add_hooks_noting(path, &after, &w, &c).expect("a second install refused");
    assert_eq!(again, after, "install is not idempotent");
    assert!(none.is_empty());

    let back =
        remove_hooks_keeping(path, &after, &c, &filled).expect("uninstall refused install's file");
    let blank = text.trim_start_matches('\u{feff}').trim().is_empty();
    if !blank && !owns_something(path, text, &c) {
        assert_eq!(back, text, "uninstall did not give the file back");
    }
    assert!(
        !owns_something(path, &back, &c),
        "uninstall left a gk entry: {back}"
    );
    assert_eq!(
        remove_hooks(path, &back, &c).unwrap(),
        back,
        "uninstall is not idempotent"
    );

    status_line(path, text, &c, &filled);

    if let Ok(before) = gk::testing::settings::parse(path, text) {
        let mut found = Vec::new();
        gk::testing::doctor::secrets_in(&before.value, &mut found);
        let mut plan = Plan::new("fuzz");
        plan.push(FileChange::text(
            path,
            Some(text.to_string()),
            Some(after.clone()),
            "fuzz",
        ));
        let shown = render(&plan, Style { color: false });
        let diff: String = shown
            .lines()
            .skip_while(|l| !l.starts_with("@@"))
            .collect::<Vec<_>>()
            .join("\n");
        // What gk itself writes (its commands, its status message) is not
        // the user's secret even where a secret-named key holds the same.
        let own = gk::testing::edit::add_hooks(path, "", &w, &c).unwrap();
        for s in found
            .iter()
            .filter(|s| s.chars().count() >= 6 && !own.contains(s.as_str()))
        {
            if text.matches(s.as_str()).count() == 1 && after.matches(s.as_str()).count() == 1 {
                assert!(
                    !diff.contains(s.as_str()),
                    "the diff shows the secret {s:?}:\n{diff}"
                );
            }
        }
    }
});

/// `gk install --statusline` and uninstall on the same text.
fn status_line(
    path: &Path,
    text: &str,
    c: &CommandContext,
    filled: &[gk::testing::edit::EmptyContainer],
) {
    use gk::testing::edit::{add_statusline, remove_statusline, StatusLine};
    let want = "\"$HOME/.claude/hooks/gk\" statusline";
    let other = "/home/u/.claude/hooks/gk statusline";
    let Ok(first) = add_statusline(path, text, other, c) else {
        return;
    };
    let StatusLine::Registered(first) = first else {
        return;
    };
    let before: Option<serde_json::Value> =
        serde_json::from_str(text.trim_start_matches('\u{feff}')).ok();
    let after = |t: &str| -> serde_json::Value {
        serde_json::from_str(t.trim_start_matches('\u{feff}'))
            .expect("a status line edit that is not JSON")
    };
    // gk's status line in another spelling is brought to the wanted one,
    // and nothing else in the file changes.
    let StatusLine::Registered(second) =
        add_statusline(path, &first, want, c).expect("respelling refused")
    else {
        panic!("gk's own status line taken for another's: {first}");
    };
    let mut expected = after(&first);
    expected["statusLine"]["command"] = serde_json::Value::String(want.into());
    assert_eq!(
        after(&second),
        expected,
        "respelling changed more than the command"
    );
    let StatusLine::Registered(third) = add_statusline(path, &second, want, c).unwrap() else {
        panic!("taken");
    };
    assert_eq!(third, second, "the status line edit is not idempotent");
    let back = remove_statusline(path, &second, c, filled).expect("uninstall refused");
    assert!(
        after(&back).get("statusLine").is_none(),
        "uninstall left gk's status line: {back}"
    );
    if let Some(v) = before {
        if v.get("statusLine").is_none() && !text.trim_start_matches('\u{feff}').trim().is_empty() {
            assert_eq!(back, text, "uninstall did not give the file back");
        }
    }
}
