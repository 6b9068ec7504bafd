//! settings.json before/after fixtures for `gk install`, and the round trip
//! through `gk uninstall`, over every folder in tests/fixtures/install/.
//!
//! Each folder holds `before.json` (absent for the "missing file" case).
//! What install must produce is a reviewed snapshot in
//! `tests/it/snapshots/install/`: `<case>.snap.json`, byte for byte (a
//! binary snapshot, so CRLF, a BOM and a missing final newline count), or
//! for the `refuse-*` cases `<case>.snap`, the one-line refusal for a file gk
//! must not touch. See tests/fixtures/install/README.md for how the
//! expected files were made and reviewed.

use std::fs;
use std::path::{Path, PathBuf};

use gk::testing::change::mask_secrets;
use gk::testing::edit::{
    add_hooks, add_hooks_noting, remove_hooks, remove_hooks_keeping, WantedHooks,
};
use gk::testing::hookcmd::{canonical, CommandContext, Owner, ShellForm};
use gk::testing::platform::Os;

fn ctx() -> CommandContext {
    CommandContext::with_home(Os::Linux, "/home/u")
}

fn wanted() -> WantedHooks {
    let c = ctx();
    WantedHooks::of(|kind| canonical(kind, &c, ShellForm::Bash))
}

fn fixtures() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/install");
    let mut dirs: Vec<PathBuf> = fs::read_dir(&root)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

fn read(dir: &Path, name: &str) -> Option<String> {
    fs::read(dir.join(name))
        .ok()
        .map(|b| String::from_utf8(b).unwrap())
}

fn name(dir: &Path) -> String {
    dir.file_name().unwrap().to_string_lossy().into_owned()
}

/// Does the text hold any hook entry gk owns (its own or the Python ones)?
fn has_owned_entries(text: &str) -> bool {
    let Ok(s) = gk::testing::settings::parse(Path::new("settings.json"), text) else {
        return false;
    };
    gk::testing::settings::hook_entries(&s).0.iter().any(|e| {
        e.command
            .as_deref()
            .is_some_and(|c| gk::testing::hookcmd::classify(c, &ctx()) != Owner::Foreign)
    })
}

/// Snapshot settings for the expected files: one folder,
/// `tests/it/snapshots/install/`, a file per case.
fn expected() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path("snapshots/install");
    s.set_prepend_module_to_snapshot(false);
    s.set_omit_expression(true);
    s
}

/// What install writes for `before` (panics on a refusal).
fn installed(dir: &Path, before: &str) -> String {
    add_hooks(Path::new("settings.json"), before, &wanted(), &ctx())
        .unwrap_or_else(|e| panic!("{}: {e}", name(dir)))
}

/// Every case install accepts: its folder, `before.json` (if any) and what
/// install writes (the snapshot `install_produces_the_expected_file_…`
/// holds it to).
fn accepted() -> Vec<(PathBuf, Option<String>, String)> {
    fixtures()
        .into_iter()
        .filter(|dir| !name(dir).starts_with("refuse-"))
        .map(|dir| {
            let before = read(&dir, "before.json");
            let after = installed(&dir, before.as_deref().unwrap_or(""));
            (dir, before, after)
        })
        .collect()
}

#[test]
fn there_is_a_fixture_for_every_case_the_issue_names() {
    let names: Vec<String> = fixtures().iter().map(|d| name(d)).collect();
    for case in [
        "missing",
        "empty",
        "empty-object",
        "empty-object-spaced",
        "empty-hooks",
        "empty-event",
        "indent-2",
        "indent-4",
        "tabs",
        "crlf",
        "bom",
        "compact",
        "env-secrets",
        "other-tools",
        "python-hooks",
        "other-spelling",
        "large",
        "refuse-comment",
        "refuse-trailing-comma",
        "refuse-truncated",
        "refuse-hooks-not-object",
        "refuse-event-not-array",
        "refuse-root-not-object",
    ] {
        assert!(names.iter().any(|n| n == case), "no fixture {case}");
    }
}

#[test]
fn install_produces_the_expected_file_for_every_fixture() {
    let path = Path::new("settings.json");
    for dir in fixtures() {
        let before = read(&dir, "before.json").unwrap_or_default();
        if name(&dir).starts_with("refuse-") {
            let err = add_hooks(path, &before, &wanted(), &ctx()).unwrap_err();
            expected().bind(|| insta::assert_snapshot!(name(&dir), err.to_string()));
            // Uninstall refuses the same file in the same words.
            let err2 = remove_hooks(path, &before, &ctx()).unwrap_err();
            assert_eq!(err.to_string(), err2.to_string(), "{}", name(&dir));
            continue;
        }
        let after = installed(&dir, &before);
        expected().bind(|| {
            insta::assert_binary_snapshot!(&format!("{}.json", name(&dir)), after.into_bytes())
        });
    }
}

#[test]
fn install_twice_changes_nothing_the_second_time() {
    let path = Path::new("settings.json");
    for (dir, _, after) in accepted() {
        let again = add_hooks(path, &after, &wanted(), &ctx()).unwrap();
        assert_eq!(again, after, "{}", name(&dir));
    }
}

#[test]
fn uninstall_after_install_gives_back_the_original_bytes() {
    let path = Path::new("settings.json");
    let mut exact = 0;
    for (dir, before, after) in accepted() {
        // What install notes for uninstall: the containers it found empty.
        let (made, filled) =
            add_hooks_noting(path, before.as_deref().unwrap_or(""), &wanted(), &ctx()).unwrap();
        assert_eq!(made, after, "{}", name(&dir));
        let back = remove_hooks_keeping(path, &after, &ctx(), &filled).unwrap();
        match before {
            // A missing or empty file is created by install; uninstall leaves
            // a valid, empty settings object (with the created file's layout).
            None => assert_eq!(back, "{}\n", "{}", name(&dir)),
            Some(b) if b.trim().is_empty() => assert_eq!(back, "{}\n", "{}", name(&dir)),
            // gk's own or the Python entries were there before: install
            // replaced them, so uninstall equals removing them from the original.
            Some(b) if has_owned_entries(&b) => {
                assert_eq!(
                    back,
                    remove_hooks(path, &b, &ctx()).unwrap(),
                    "{}",
                    name(&dir)
                );
                assert!(!has_owned_entries(&back), "{}", name(&dir));
            }
            Some(b) => {
                assert_eq!(back, b, "{}", name(&dir));
                exact += 1;
            }
        }
    }
    assert!(exact >= 15, "only {exact} byte-exact round trips");
}

#[test]
fn the_diff_of_a_multi_line_file_is_pure_insertion() {
    use similar::{ChangeTag, TextDiff};
    for (dir, before, after) in accepted() {
        let Some(before) = before else {
            continue;
        };
        // An empty `{}` / `[]` that install fills has to open up: that line
        // changes (uninstall puts it back as it was).
        if before.trim().is_empty()
            || !before.trim().contains('\n')
            || has_owned_entries(&before)
            || name(&dir).starts_with("empty-")
        {
            continue;
        }
        let diff = TextDiff::from_lines(&before, &after);
        let deleted: Vec<String> = diff
            .iter_all_changes()
            .filter(|c| c.tag() == ChangeTag::Delete)
            .map(|c| c.value().to_string())
            .collect();
        assert!(
            deleted.is_empty(),
            "{}: lines changed: {deleted:?}",
            name(&dir)
        );
    }
}

#[test]
fn secrets_of_the_env_fixture_never_show_in_a_masked_text() {
    let (_, before, after) = accepted()
        .into_iter()
        .find(|(d, _, _)| name(d) == "env-secrets")
        .unwrap();
    for (file, text) in [("before.json", before.unwrap()), ("after.json", after)] {
        let masked = mask_secrets(&text);
        for secret in [
            "Pr0xyPassw0rd",
            "sk-ant-SECRET-VALUE-123",
            "corp.pem",
            "team-vault",
        ] {
            assert!(!masked.contains(secret), "{file} shows {secret}");
        }
        assert!(masked.contains("\"model\": \"opus\""));
    }
}

#[test]
fn every_platform_form_installs_once_and_round_trips() {
    let path = Path::new("settings.json");
    let windows = CommandContext {
        os: Os::Windows,
        home: PathBuf::from(r"C:\Users\u"),
        claude_dir: PathBuf::from(r"C:\Users\u\.claude"),
        claude_config_dir: None,
    };
    let elsewhere = CommandContext {
        os: Os::Linux,
        home: PathBuf::from("/home/u"),
        claude_dir: PathBuf::from("/srv/claude conf"),
        claude_config_dir: Some(PathBuf::from("/srv/claude conf")),
    };
    for (c, shell) in [
        (ctx(), ShellForm::Bash),
        (windows.clone(), ShellForm::Bash),
        (windows, ShellForm::PowerShell),
        (elsewhere, ShellForm::Bash),
    ] {
        let w = WantedHooks::of(|kind| canonical(kind, &c, shell));
        for dir in fixtures() {
            if name(&dir).starts_with("refuse-") {
                continue;
            }
            let before = read(&dir, "before.json").unwrap_or_default();
            let label = format!("{} / {:?} {shell:?}", name(&dir), c.os);
            let (after, filled) =
                add_hooks_noting(path, &before, &w, &c).unwrap_or_else(|e| panic!("{label}: {e}"));
            assert_eq!(add_hooks(path, &after, &w, &c).unwrap(), after, "{label}");
            for (_, command) in w.iter() {
                assert_eq!(
                    after
                        .matches(&serde_json::to_string(&command.command).unwrap())
                        .count(),
                    1,
                    "{label}"
                );
            }
            let back = remove_hooks_keeping(path, &after, &c, &filled).unwrap();
            let expected = if before.trim().is_empty() {
                "{}\n".to_string()
            } else {
                remove_hooks(path, &before, &c).unwrap()
            };
            assert_eq!(back, expected, "{label}");
        }
    }
}
