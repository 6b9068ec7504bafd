//! `gk doctor` on the per-session task records: a missing allow rule
//! (`state-permission-missing`, fixable) and a state folder that cannot be
//! written (`state-folder-unwritable`). Temporary HOME, its own state
//! folder, no managed settings; the real profile is never read.

use std::path::Path;

use serde_json::Value;

use crate::common::doctor::{all_codes, finding};
use crate::common::{Gk, Run, TestEnv};

const SETTINGS: &str =
    "{\n  \"env\": {\n    \"ANTHROPIC_AUTH_TOKEN\": \"sk-ant-DOCTOR-SECRET-55\"\n  }\n}\n";

/// A temporary machine whose user settings hold [`SETTINGS`], and a
/// project folder (the current folder of every run).
fn state_home() -> TestEnv {
    let env = TestEnv::new();
    env.write(env.settings(), SETTINGS);
    env.project();
    env
}

/// What these tests do in a [`TestEnv`].
trait DoctorStateEnv {
    fn cmd(&self, args: &[&str]) -> Gk;
    fn run(&self, args: &[&str]) -> Run;
    fn install(&self, extra: &[&str]);
    fn codes(&self, extra_env: &[(&str, &Path)]) -> (Option<i32>, Vec<String>, Value);
}

impl DoctorStateEnv for TestEnv {
    fn cmd(&self, args: &[&str]) -> Gk {
        let mut gk = self.gk(args);
        gk.current_dir(self.project());
        gk
    }
    fn run(&self, args: &[&str]) -> Run {
        let run = self.cmd(args).run();
        let stdout = run.stdout_text();
        assert!(
            !stdout.contains("DOCTOR-SECRET"),
            "a secret was printed:\n{stdout}"
        );
        run
    }
    fn install(&self, extra: &[&str]) {
        let mut args = vec!["install", "--yes", "--no-smoke"];
        args.extend_from_slice(extra);
        let out = self.run(&args);
        assert_eq!(out.code, Some(0), "{}", out.stdout_text());
    }
    /// The finding codes of `gk doctor --json --no-smoke`, and the report.
    fn codes(&self, extra_env: &[(&str, &Path)]) -> (Option<i32>, Vec<String>, Value) {
        let mut cmd = self.cmd(&["doctor", "--json", "--no-smoke"]);
        for (k, v) in extra_env {
            cmd.env(k, v);
        }
        let out = cmd.run();
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        (out.code, all_codes(&doc), doc)
    }
}

#[test]
fn a_healthy_install_has_the_rules_and_a_writable_folder() {
    let h = state_home();
    h.install(&[]);
    let (code, codes, doc) = h.codes(&[]);
    assert_eq!((code, codes), (Some(0), vec![]), "{doc}");
}

#[test]
fn a_missing_rule_is_reported_and_fix_adds_it_keeping_env() {
    let h = state_home();
    h.install(&["--no-permissions"]);
    let (code, codes, doc) = h.codes(&[]);
    assert_eq!(code, Some(1), "{doc}");
    assert_eq!(codes, ["state-permission-missing"], "{doc}");
    let f = finding(&doc, "state-permission-missing");
    assert_eq!(f["severity"], "warning");
    assert_eq!(f["fixable"], true);
    assert!(
        f["fix"]
            .as_str()
            .unwrap()
            .contains("Edit(~/.local/state/gk/*.json)"),
        "{f}"
    );

    let fixed = h.run(&["doctor", "--fix", "--yes", "--no-smoke"]);
    assert!(
        fixed
            .stdout_text()
            .contains("+      \"Edit(~/.local/state/gk/*.json)\""),
        "{}",
        fixed.stdout_text()
    );
    let (code, codes, doc) = h.codes(&[]);
    assert_eq!((code, codes), (Some(0), vec![]), "{doc}");
    let text = std::fs::read_to_string(h.settings()).unwrap();
    assert!(
        text.contains(
            "  \"env\": {\n    \"ANTHROPIC_AUTH_TOKEN\": \"sk-ant-DOCTOR-SECRET-55\"\n  }"
        ),
        "{text}"
    );
    // And uninstall takes everything gk added back out.
    assert_eq!(h.run(&["uninstall", "--yes"]).code, Some(0));
    assert_eq!(std::fs::read_to_string(h.settings()).unwrap(), SETTINGS);
}

#[test]
fn a_wider_rule_of_the_users_counts_and_a_write_rule_does_not() {
    let h = state_home();
    h.install(&["--no-permissions"]);
    let with = |rule: &str| {
        let mut v: Value =
            serde_json::from_str(&std::fs::read_to_string(h.settings()).unwrap()).unwrap();
        v["permissions"] = serde_json::json!({"allow": [rule]});
        std::fs::write(h.settings(), serde_json::to_string_pretty(&v).unwrap()).unwrap();
        h.codes(&[]).1
    };
    assert_eq!(with("Edit(~/.local/state/gk/**)"), Vec::<String>::new());
    let folder = h.home().join(".local").join("state").join("gk");
    let folder = folder.to_str().unwrap();
    let absolute: Vec<String> = if cfg!(windows) {
        // `C:\…` as it is, and the POSIX form `//c/…` the client also
        // matches (docs/claude-code-facts.md).
        let posix = folder.replace('\\', "/");
        let (drive, rest) = posix.split_once(':').unwrap();
        vec![
            format!("Edit({folder})"),
            format!("Edit(//{}{rest})", drive.to_ascii_lowercase()),
        ]
    } else {
        vec![format!("Edit(/{folder})")]
    };
    for rule in &absolute {
        assert_eq!(with(rule), Vec::<String>::new(), "{rule}");
    }
    // Measured: Write(...) rules do not let the Write tool write.
    assert_eq!(
        with("Write(~/.local/state/gk/**)"),
        ["state-permission-missing"]
    );
}

#[test]
fn a_deny_rule_that_refuses_the_records_is_reported() {
    let h = state_home();
    h.install(&[]);
    let mut v: Value =
        serde_json::from_str(&std::fs::read_to_string(h.settings()).unwrap()).unwrap();
    v["permissions"]["deny"] = serde_json::json!(["Edit(~/.local/**)"]);
    std::fs::write(h.settings(), serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let (_, codes, doc) = h.codes(&[]);
    assert_eq!(codes, ["state-permission-missing"], "{doc}");
    assert!(finding(&doc, "state-permission-missing")["message"]
        .as_str()
        .unwrap()
        .contains("deny rule `Edit(~/.local/**)`"));
}

#[test]
fn an_ask_rule_that_outweighs_the_allow_rules_is_reported() {
    let h = state_home();
    h.install(&[]);
    let mut v: Value =
        serde_json::from_str(&std::fs::read_to_string(h.settings()).unwrap()).unwrap();
    v["permissions"]["ask"] = serde_json::json!(["Edit(~/.local/state/gk/*)", "Edit(~/src/**)"]);
    std::fs::write(h.settings(), serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let (_, codes, doc) = h.codes(&[]);
    assert_eq!(codes, ["state-permission-missing"], "{doc}");
    let message = finding(&doc, "state-permission-missing")["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        message.contains("ask rule `Edit(~/.local/state/gk/*)`"),
        "{message}"
    );
    assert!(!message.contains("~/src"), "{message}");
}

/// Measured on the client (e2e scenario 12): with no allow rule, sessions
/// that start in bypassPermissions mode write their records; so doctor says
/// so as a note (exit 0), and `--fix` leaves settings.json alone. A local
/// settings file that starts sessions in another mode brings the warning
/// back, and `gk install` adds the rules either way.
#[test]
fn sessions_that_start_in_bypass_mode_get_a_note_not_a_warning() {
    let h = state_home();
    h.install(&["--no-permissions"]);
    let mut v: Value =
        serde_json::from_str(&std::fs::read_to_string(h.settings()).unwrap()).unwrap();
    v["permissions"] = serde_json::json!({"defaultMode": "bypassPermissions"});
    let bypass = serde_json::to_string_pretty(&v).unwrap();
    std::fs::write(h.settings(), &bypass).unwrap();
    let (code, codes, doc) = h.codes(&[]);
    assert_eq!(
        (code, codes),
        (Some(0), vec!["state-permission-missing".to_string()]),
        "{doc}"
    );
    let f = finding(&doc, "state-permission-missing");
    assert_eq!(f["severity"], "info", "{f}");
    assert!(
        f["message"]
            .as_str()
            .unwrap()
            .contains("bypassPermissions mode"),
        "{f}"
    );
    let fixed = h.run(&["doctor", "--fix", "--yes", "--no-smoke"]);
    assert_eq!(fixed.code, Some(0), "{}", fixed.stdout_text());
    assert_eq!(std::fs::read_to_string(h.settings()).unwrap(), bypass);

    let local = h.project().join(".claude/settings.local.json");
    std::fs::create_dir_all(local.parent().unwrap()).unwrap();
    std::fs::write(&local, r#"{"permissions": {"defaultMode": "acceptEdits"}}"#).unwrap();
    let (code, _, doc) = h.codes(&[]);
    assert_eq!(code, Some(1), "{doc}");
    assert_eq!(
        finding(&doc, "state-permission-missing")["severity"],
        "warning"
    );
    std::fs::remove_file(&local).unwrap();

    h.install(&[]);
    let (code, codes, doc) = h.codes(&[]);
    assert_eq!((code, codes), (Some(0), vec![]), "{doc}");
}

#[test]
fn global_scope_needs_no_rule() {
    let h = state_home();
    h.install(&["--no-permissions"]);
    std::fs::write(
        h.home().join(".claude/hooks/gk.json"),
        r#"{"state": {"scope": "global"}}"#,
    )
    .unwrap();
    let (code, codes, doc) = h.codes(&[]);
    assert_eq!((code, codes), (Some(0), vec![]), "{doc}");
}

#[test]
fn a_state_folder_that_cannot_be_written_is_an_error() {
    let h = state_home();
    h.install(&[]);
    let file = h.root().join("a-file");
    std::fs::write(&file, "x").unwrap();
    let state = file.join("gk");
    let (code, codes, doc) = h.codes(&[("GK_STATE_DIR", &state)]);
    assert_eq!(code, Some(2), "{doc}");
    assert!(
        codes.contains(&"state-folder-unwritable".to_string()),
        "{doc}"
    );
    let f = finding(&doc, "state-folder-unwritable");
    assert_eq!(f["severity"], "error");
    assert!(
        f["message"].as_str().unwrap().contains("is not a folder"),
        "{f}"
    );
    // A link to a folder that is not there (a synced folder not yet made,
    // a drive not mounted): nothing can be made through it.
    #[cfg(unix)]
    {
        let link = h.root().join("linked-state");
        std::os::unix::fs::symlink(h.root().join("unmounted/gk"), &link).unwrap();
        let (code, _, doc) = h.codes(&[("GK_STATE_DIR", &link)]);
        assert_eq!(code, Some(2), "{doc}");
        let message = finding(&doc, "state-folder-unwritable")["message"]
            .as_str()
            .unwrap()
            .to_string();
        // As install says it.
        assert!(
            message.contains(&format!(
                "the state folder {} is a link to {}, which is not there; ",
                link.display(),
                h.root().join("unmounted/gk").display()
            )),
            "{message}"
        );
        assert!(!h.root().join("unmounted").exists());
    }
    // A folder that is there and writable: no finding, and no probe left.
    let ok = h.root().join("state");
    std::fs::create_dir_all(&ok).unwrap();
    let (_, codes, doc) = h.codes(&[("GK_STATE_DIR", &ok)]);
    assert!(
        !codes.contains(&"state-folder-unwritable".to_string()),
        "{doc}"
    );
    assert_eq!(std::fs::read_dir(&ok).unwrap().count(), 0);
}

/// What install refuses to grant, `doctor --fix` does not grant either: a
/// state folder holding JSON that is no task record (the rules would let
/// Claude edit it), and one that cannot be made where it is. The finding
/// says why, and is not fixable.
#[test]
fn fix_adds_no_rule_for_a_folder_install_refuses() {
    let h = state_home();
    let foreign = h.root().join("app");
    std::fs::create_dir_all(&foreign).unwrap();
    std::fs::write(foreign.join("package.json"), "{\"name\":\"app\"}").unwrap();
    #[cfg_attr(not(unix), allow(unused_mut))] // the link: Unix only
    let mut folders = vec![(foreign, "package.json is not a task record")];
    #[cfg(unix)]
    {
        let link = h.root().join("linked");
        std::os::unix::fs::symlink(h.root().join("unmounted"), &link).unwrap();
        folders.push((link, ", which is not there"));
    }
    for (dir, why) in folders {
        let run = |args: &[&str]| h.cmd(args).env("GK_STATE_DIR", &dir).run();
        // Install refuses to grant it; without the rules it installs.
        assert_ne!(run(&["install", "--yes", "--no-smoke"]).code, Some(0));
        run(&["install", "--yes", "--no-smoke", "--no-permissions"]).ok();
        let (_, _, doc) = h.codes(&[("GK_STATE_DIR", &dir)]);
        let f = finding(&doc, "state-permission-missing");
        assert_eq!(f["fixable"], false, "{f}");
        assert!(f["fix"].as_str().unwrap().contains(why), "{f}");
        let before = std::fs::read_to_string(h.settings()).unwrap();
        run(&["doctor", "--fix", "--yes", "--no-smoke"]);
        let after = std::fs::read_to_string(h.settings()).unwrap();
        assert!(!after.contains("Edit("), "{after}");
        assert_eq!(after, before, "{}", dir.display());
        run(&["uninstall", "--yes"]).ok();
    }
}
