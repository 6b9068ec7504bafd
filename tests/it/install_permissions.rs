//! What `gk install` adds for the per-session task records, end to end in a
//! temporary HOME: the two `permissions.allow` rules for the state folder
//! (shown in the diff, `env` untouched and masked, taken out byte for byte
//! by uninstall, skipped with `--no-permissions`), the status line with
//! `--statusline` (only where none is set), and the CLAUDE.md block that
//! explains the convention.

use serde_json::Value;

use crate::common::doctor::all_codes;
use crate::common::{Gk, TestEnv};

const SECRET: &str = "sk-ant-SECRET-VALUE-987";
const SETTINGS: &str = "{\n  \"env\": {\n    \"ANTHROPIC_AUTH_TOKEN\": \"sk-ant-SECRET-VALUE-987\"\n  },\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(ls:*)\"\n    ],\n    \"deny\": []\n  },\n  \"model\": \"opus\"\n}\n";
const READ_RULE: &str = "Read(~/.local/state/gk/*.json)";
const EDIT_RULE: &str = "Edit(~/.local/state/gk/*.json)";

/// A temporary machine whose user settings hold `settings` (none: no file).
fn home_with(settings: Option<&str>) -> TestEnv {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.claude()).unwrap();
    if let Some(s) = settings {
        env.write(env.settings(), s);
    }
    env
}

/// What these tests do in a [`TestEnv`] (every run from the home folder).
trait PermissionsEnv {
    fn settings_text(&self) -> String;
    fn cmd(&self, args: &[&str]) -> Gk;
    fn ok(&self, args: &[&str]) -> String;
}

impl PermissionsEnv for TestEnv {
    fn settings_text(&self) -> String {
        self.read(self.settings())
    }
    fn cmd(&self, args: &[&str]) -> Gk {
        let mut gk = self.gk(args);
        gk.current_dir(self.home());
        gk
    }
    fn ok(&self, args: &[&str]) -> String {
        let out = self.cmd(args).output();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "gk {args:?}: {stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!stdout.contains(SECRET), "a secret was printed:\n{stdout}");
        stdout
    }
}

fn allow_of(text: &str) -> Vec<String> {
    let v: Value = serde_json::from_str(text).unwrap();
    v["permissions"]["allow"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|r| r.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn install_adds_the_two_rules_in_the_diff_and_uninstall_takes_them_out_byte_for_byte() {
    let home = home_with(Some(SETTINGS));
    let shown = home.ok(&["install", "--dry-run"]);
    assert!(
        shown.contains(&format!("+      \"{READ_RULE}\",")),
        "{shown}"
    );
    assert!(
        shown.contains(&format!("+      \"{EDIT_RULE}\",")),
        "{shown}"
    );
    home.ok(&["install", "--yes", "--no-smoke"]);
    let after = home.settings_text();
    assert_eq!(allow_of(&after), [READ_RULE, EDIT_RULE, "Bash(ls:*)"]);
    assert!(
        after.contains(
            "  \"env\": {\n    \"ANTHROPIC_AUTH_TOKEN\": \"sk-ant-SECRET-VALUE-987\"\n  },"
        ),
        "env changed:\n{after}"
    );
    // A second install has nothing to add.
    assert!(home
        .ok(&["install", "--yes", "--no-smoke"])
        .contains("nothing to do, every file is up to date"));
    assert_eq!(home.settings_text(), after);
    home.ok(&["uninstall", "--yes"]);
    assert_eq!(home.settings_text(), SETTINGS);
}

#[test]
fn a_fresh_home_gets_permissions_created_and_uninstall_removes_the_file_install_made() {
    let home = home_with(None);
    home.ok(&["install", "--yes", "--no-smoke"]);
    assert_eq!(allow_of(&home.settings_text()), [READ_RULE, EDIT_RULE]);
    home.ok(&["uninstall", "--yes"]);
    assert!(!home.settings().exists(), "{}", home.settings_text());
}

#[test]
fn a_settings_file_install_made_stays_when_the_user_added_to_it() {
    let home = home_with(None);
    home.ok(&["install", "--yes", "--no-smoke"]);
    let text = home
        .settings_text()
        .replacen('{', "{\n  \"model\": \"opus\",", 1);
    std::fs::write(home.settings(), text).unwrap();
    home.ok(&["uninstall", "--yes"]);
    assert_eq!(home.settings_text(), "{\n  \"model\": \"opus\"\n}\n");
}

#[test]
fn an_empty_object_that_was_there_before_install_stays() {
    let home = home_with(Some("{}\n"));
    home.ok(&["install", "--yes", "--no-smoke"]);
    home.ok(&["uninstall", "--yes"]);
    assert_eq!(home.settings_text(), "{}\n");
}

#[test]
fn empty_permissions_and_allow_that_were_there_come_back_byte_for_byte() {
    for before in [
        "{\n  \"permissions\": {},\n  \"model\": \"opus\"\n}\n",
        "{\n  \"permissions\": {\n  },\n  \"model\": \"opus\"\n}\n",
        "{\n  \"permissions\": {\n    \"allow\": []\n  }\n}\n",
        "{\n  \"permissions\": {\n    \"allow\": [ ],\n    \"deny\": []\n  }\n}\n",
        "{\"hooks\": {}, \"permissions\": {\"allow\": []}}",
    ] {
        let home = home_with(Some(before));
        home.ok(&["install", "--yes", "--no-smoke"]);
        assert_eq!(
            allow_of(&home.settings_text()),
            [READ_RULE, EDIT_RULE],
            "{before}"
        );
        home.ok(&["uninstall", "--yes"]);
        assert_eq!(home.settings_text(), before);
    }
}

#[test]
fn no_permissions_skips_the_rules() {
    let home = home_with(Some(SETTINGS));
    home.ok(&["install", "--yes", "--no-smoke", "--no-permissions"]);
    assert_eq!(allow_of(&home.settings_text()), ["Bash(ls:*)"]);
    home.ok(&["uninstall", "--yes"]);
    assert_eq!(home.settings_text(), SETTINGS);
}

#[test]
fn rules_the_user_had_before_install_stay_after_uninstall() {
    // The user wrote gk's two rules before gk was installed; install (with
    // or without its own rules) and uninstall give the file back as it was.
    let before = format!(
        "{{\n  \"permissions\": {{\n    \"allow\": [\n      \"{READ_RULE}\",\n      \"{EDIT_RULE}\"\n    ]\n  }}\n}}\n"
    );
    for flags in [&["--no-permissions"][..], &[]] {
        let home = home_with(Some(&before));
        let mut args = vec!["install", "--yes", "--no-smoke"];
        args.extend(flags);
        home.ok(&args);
        assert_eq!(
            allow_of(&home.settings_text()),
            [READ_RULE, EDIT_RULE],
            "{flags:?}"
        );
        // A second install does not forget whose they are.
        home.ok(&args);
        home.ok(&["uninstall", "--yes"]);
        assert_eq!(home.settings_text(), before, "{flags:?}");
    }
    // Rules gk added itself still go.
    let home = home_with(Some("{\"model\": \"opus\"}\n"));
    home.ok(&["install", "--yes", "--no-smoke"]);
    home.ok(&["install", "--yes", "--no-smoke"]);
    home.ok(&["uninstall", "--yes"]);
    assert_eq!(home.settings_text(), "{\"model\": \"opus\"}\n");
}

#[test]
fn an_empty_settings_file_comes_back_empty() {
    for before in ["", "\n", "  \n"] {
        let home = home_with(Some(before));
        home.ok(&["install", "--yes", "--no-smoke"]);
        assert_eq!(allow_of(&home.settings_text()), [READ_RULE, EDIT_RULE]);
        home.ok(&["uninstall", "--yes"]);
        assert_eq!(home.settings_text(), before, "{before:?}");
    }
}

#[test]
fn a_state_folder_outside_home_gets_an_absolute_rule() {
    let home = home_with(Some("{}"));
    let elsewhere = tempfile::tempdir().unwrap();
    let xdg = elsewhere.path().join("xdg");
    // The folder moves with XDG_STATE_HOME on Linux and macOS; Windows has
    // no XDG folders, there GK_STATE_DIR moves it.
    let (var, value, dir) = if cfg!(windows) {
        ("GK_STATE_DIR", xdg.join("gk"), xdg.join("gk"))
    } else {
        ("XDG_STATE_HOME", xdg.clone(), xdg.join("gk"))
    };
    let out = home
        .cmd(&["install", "--yes", "--no-smoke"])
        .env(var, &value)
        .output();
    assert!(out.status.success());
    // An absolute rule path starts with `//`; the Windows client matches
    // `C:\x\y` as `//c/x/y` (docs/claude-code-facts.md).
    let dir = dir.to_str().unwrap();
    let rule_path = if cfg!(windows) {
        let posix = dir.replace('\\', "/");
        let (drive, rest) = posix.split_once(':').unwrap();
        format!("//{}{rest}", drive.to_ascii_lowercase())
    } else {
        format!("/{dir}")
    };
    assert_eq!(
        allow_of(&home.settings_text()),
        [
            format!("Read({rule_path}/*.json)"),
            format!("Edit({rule_path}/*.json)")
        ]
    );
    let out = home.cmd(&["uninstall", "--yes"]).env(var, &value).output();
    assert!(out.status.success());
    assert_eq!(home.settings_text(), "{}");
}

#[test]
fn statusline_is_registered_only_where_none_is_set_and_removed_only_when_gks() {
    let home = home_with(Some("{\n  \"model\": \"opus\"\n}\n"));
    home.ok(&["install", "--yes", "--no-smoke", "--statusline"]);
    let v: Value = serde_json::from_str(&home.settings_text()).unwrap();
    assert_eq!(v["statusLine"]["type"], "command");
    let command = v["statusLine"]["command"].as_str().unwrap();
    let payload = "{\"session_id\": \"abc\"}";
    let out = if cfg!(windows) {
        // A status line has no exec form: the client (2.1.332) runs it
        // through Git Bash when it finds one, else PowerShell; here there is
        // none, so the PowerShell form. It is run as PowerShell would run it
        // (Wine's PowerShell runs nothing): the profile's gk.exe, `statusline`.
        assert_eq!(
            command,
            r#"& "$env:USERPROFILE\.claude\hooks\gk.exe" statusline"#
        );
        let program = home.home().join(".claude").join("hooks").join("gk.exe");
        home.gk(["statusline"])
            .program(&program)
            .stdin(payload)
            .output()
    } else {
        assert_eq!(command, "\"$HOME/.claude/hooks/gk\" statusline");
        // The registered command works: run it as Claude Code would, through sh.
        assert_cmd::Command::from_std(home.command("sh"))
            .arg("-c")
            .arg(command)
            .write_stdin(payload)
            .output()
            .unwrap()
    };
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("gk "));
    home.ok(&["uninstall", "--yes"]);
    assert_eq!(home.settings_text(), "{\n  \"model\": \"opus\"\n}\n");

    let theirs = "{\n  \"statusLine\": {\n    \"type\": \"command\",\n    \"command\": \"~/bin/my-line.sh\"\n  }\n}\n";
    let home = home_with(Some(theirs));
    let said = home.ok(&["install", "--yes", "--no-smoke", "--statusline"]);
    assert!(said.contains("already sets a statusLine"), "{said}");
    // The note says how, without pointing at docs a release does not ship.
    assert!(!said.contains("docs/"), "{said}");
    assert!(said.contains("statusline"), "{said}");
    let v: Value = serde_json::from_str(&home.settings_text()).unwrap();
    assert_eq!(v["statusLine"]["command"], "~/bin/my-line.sh");
    home.ok(&["uninstall", "--yes"]);
    assert_eq!(home.settings_text(), theirs);
}

/// Git for Windows installed after gk: the client now runs the status line
/// through Git Bash, so `gk install --statusline` again respells gk's own
/// status line for bash (and says so); the hooks keep the exec form. Off
/// Windows the variable changes nothing.
#[test]
fn a_status_line_follows_the_shell_the_client_will_use() {
    let home = home_with(Some("{\n  \"model\": \"opus\"\n}\n"));
    let line = |home: &TestEnv| {
        let v: Value = serde_json::from_str(&home.settings_text()).unwrap();
        v["statusLine"]["command"].as_str().unwrap().to_string()
    };
    home.ok(&["install", "--yes", "--no-smoke", "--statusline"]);
    let first = line(&home);
    let bash = home.home().join("Git").join("bin").join("bash.exe");
    std::fs::create_dir_all(bash.parent().unwrap()).unwrap();
    std::fs::write(&bash, "").unwrap();
    let out = home
        .cmd(&["install", "--yes", "--no-smoke", "--statusline"])
        .env("CLAUDE_CODE_GIT_BASH_PATH", &bash)
        .output();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{said}");
    if cfg!(windows) {
        assert_eq!(line(&home), r#""$HOME/.claude/hooks/gk.exe" statusline"#);
        assert!(said.contains("spelled for Git Bash"), "{said}");
        let v: Value = serde_json::from_str(&home.settings_text()).unwrap();
        let handler = &v["hooks"]["UserPromptSubmit"][0]["hooks"][0];
        assert_eq!(handler["args"], serde_json::json!(["hook", "prompt"]));
    } else {
        assert_eq!(line(&home), first);
        assert!(!said.contains("Git Bash"), "{said}");
    }
    // Git for Windows gone again: doctor names the status line bash would
    // run and PowerShell cannot, and --fix respells it; off Windows the
    // status line always runs in sh and doctor has nothing to say.
    let codes = |home: &TestEnv| -> Vec<String> {
        let out = home.cmd(&["doctor", "--json", "--no-smoke"]).output();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        all_codes(&v)
    };
    let bashed = home.settings_text();
    if cfg!(windows) {
        assert!(codes(&home).contains(&"statusline-broken".to_string()));
        let fixed = home.ok(&["doctor", "--fix", "--yes", "--no-smoke"]);
        assert!(fixed.contains("statusline"), "{fixed}");
        assert_eq!(line(&home), first);
        assert_eq!(
            home.settings_text(),
            bashed.replace(
                &serde_json::to_string(r#""$HOME/.claude/hooks/gk.exe" statusline"#).unwrap(),
                &serde_json::to_string(&first).unwrap()
            )
        );
    }
    assert!(!codes(&home).contains(&"statusline-broken".to_string()));
    home.ok(&["uninstall", "--yes"]);
    assert_eq!(home.settings_text(), "{\n  \"model\": \"opus\"\n}\n");
}

/// A settings.json that is an object with only whitespace inside: install
/// (hooks, rules, status line) and uninstall give back its exact bytes,
/// whichever key is the last one taken out. Before, `{ }` came back `{}`.
#[test]
fn a_whitespace_only_object_comes_back_byte_for_byte() {
    for before in ["{ }\n", "{\n\n}\n", "{\t}", "\u{feff}{\r\n}\r\n"] {
        for extra in [
            &[][..],
            &["--statusline"][..],
            &["--no-permissions", "--statusline"][..],
        ] {
            let home = home_with(Some(before));
            let mut args = vec!["install", "--yes", "--no-smoke"];
            args.extend_from_slice(extra);
            home.ok(&args);
            assert_ne!(home.settings_text(), before);
            home.ok(&["uninstall", "--yes"]);
            assert_eq!(home.settings_text(), before, "{before:?} with {extra:?}");
        }
    }
}

#[test]
fn the_claude_md_block_explains_the_per_session_record_once() {
    let home = home_with(None);
    home.ok(&["install", "--yes", "--no-smoke"]);
    let md = std::fs::read_to_string(home.home().join(".claude/CLAUDE.md")).unwrap();
    assert_eq!(
        md.matches("Each session has its own file").count(),
        1,
        "{md}"
    );
    assert!(
        md.contains("\"[Gatekeeper]\"") || md.contains("`[Gatekeeper]`"),
        "{md}"
    );
    let shared = home
        .home()
        .join(".claude")
        .join("hooks")
        .join("task_state.json");
    assert!(md.contains(&shared.display().to_string()), "{md}");
}

#[test]
fn a_broken_install_note_does_not_make_the_users_rules_gks() {
    // gk-install.json is there before the first install but is no record
    // gk can read (empty, not JSON): it says nothing, so the user's own
    // copies of gk's rules are still theirs, noted by install and left by
    // uninstall, as when there is no file at all.
    let before = format!(
        "{{\n  \"permissions\": {{\n    \"allow\": [\n      \"{READ_RULE}\",\n      \"{EDIT_RULE}\"\n    ]\n  }}\n}}\n"
    );
    for note in ["", "not json\n", "{}\n"] {
        let home = home_with(Some(&before));
        std::fs::create_dir_all(home.hooks_dir()).unwrap();
        home.write(home.hooks_dir().join("gk-install.json"), note);
        home.ok(&["install", "--yes", "--no-smoke"]);
        home.ok(&["uninstall", "--yes"]);
        assert_eq!(home.settings_text(), before, "gk-install.json was {note:?}");
    }
}

#[cfg(unix)]
#[test]
fn a_dangling_link_at_the_install_note_leaves_nothing_behind_after_uninstall() {
    // A link where gk-install.json goes, to a file that is not there (a
    // dotfiles link to a folder that is gone): install -> uninstall writes
    // nothing outside the Claude folder that stays behind.
    let home = home_with(Some("{\n  \"model\": \"opus\"\n}\n"));
    std::fs::create_dir_all(home.hooks_dir()).unwrap();
    let gone = home.root().join("elsewhere").join("note.json");
    std::os::unix::fs::symlink(&gone, home.hooks_dir().join("gk-install.json")).unwrap();
    home.ok(&["install", "--yes", "--no-smoke"]);
    home.ok(&["uninstall", "--yes"]);
    assert!(
        !gone.exists(),
        "left behind: {}",
        std::fs::read_to_string(&gone).unwrap_or_default()
    );
    assert!(!home.root().join("elsewhere").exists());
}

#[cfg(unix)]
#[test]
fn two_claude_folders_sharing_one_hooks_folder_each_get_back_what_they_had() {
    // A second Claude folder (CLAUDE_CONFIG_DIR) whose hooks folder is a
    // link to the first's, as a dotfiles setup makes it; the second holds
    // its own copies of gk's rules. Each folder's install notes its own
    // settings, and uninstalling one leaves the other's note and the
    // program its hooks still run.
    let first = "{\n  \"model\": \"opus\"\n}\n";
    let home = home_with(Some(first));
    std::fs::create_dir_all(home.hooks_dir()).unwrap();
    let work = home.home().join("work-claude");
    std::fs::create_dir_all(&work).unwrap();
    std::os::unix::fs::symlink(home.hooks_dir(), work.join("hooks")).unwrap();
    let second = format!(
        "{{\n  \"permissions\": {{\n    \"allow\": [\n      \"{READ_RULE}\",\n      \"{EDIT_RULE}\"\n    ]\n  }}\n}}\n"
    );
    home.write(work.join("settings.json"), &second);
    let in_work = |args: &[&str]| {
        let out = home.cmd(args).env("CLAUDE_CONFIG_DIR", &work).output();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    home.ok(&["install", "--yes", "--no-smoke"]);
    in_work(&["install", "--yes", "--no-smoke"]);
    let said = in_work(&["uninstall", "--yes"]);
    assert_eq!(home.read(work.join("settings.json")), second, "{said}");
    assert!(home.binary().is_file(), "{said}");
    assert!(said.contains("runs it too"), "{said}");
    // The first folder's hooks still run, and its uninstall still gives
    // back what it had.
    let out = home.cmd(&["doctor", "--json", "--no-smoke"]).output();
    let codes = all_codes(&serde_json::from_slice(&out.stdout).unwrap());
    assert!(!codes.iter().any(|c| c == "hook-missing"), "{codes:?}");
    home.ok(&["uninstall", "--yes"]);
    assert_eq!(home.settings_text(), first);
    assert!(!home.binary().exists());
    assert!(!home.hooks_dir().join("gk-install.json").exists());
}

#[test]
fn a_claude_folder_copied_after_install_uninstalls_as_the_original_would() {
    // A second profile made by copying the first (`cp -r`): the copy's
    // install note names the first folder, and is still the copy's own.
    let before = format!(
        "{{\n  \"hooks\": {{}},\n  \"permissions\": {{\n    \"allow\": [\n      \"{READ_RULE}\"\n    ]\n  }}\n}}\n"
    );
    let home = home_with(Some(&before));
    home.ok(&["install", "--yes", "--no-smoke"]);
    let copy = home.home().join("profile-copy");
    copy_dir(&home.claude(), &copy);
    let out = home
        .cmd(&["uninstall", "--yes"])
        .env("CLAUDE_CONFIG_DIR", &copy)
        .output();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{said}");
    assert_eq!(home.read(copy.join("settings.json")), before, "{said}");
    assert!(!said.contains("runs it too"), "{said}");
    assert!(!copy.join("hooks/gk-install.json").exists(), "{said}");
    home.ok(&["uninstall", "--yes"]);
    assert_eq!(home.settings_text(), before);
}

/// `from` copied to `to`, folders and files (as `cp -r`).
fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&src, &dst);
        } else {
            std::fs::copy(&src, &dst).unwrap();
        }
    }
}

#[test]
fn a_second_uninstall_leaves_the_rules_the_first_gave_back() {
    // The first uninstall keeps the user's own copies of gk's rules and
    // uses up install's note; a second one (or one where gk never was)
    // finds neither gk's hooks nor a note, and changes nothing.
    let before = format!(
        "{{\n  \"permissions\": {{\n    \"allow\": [\n      \"{READ_RULE}\",\n      \"{EDIT_RULE}\"\n    ]\n  }}\n}}\n"
    );
    let home = home_with(Some(&before));
    home.ok(&["install", "--yes", "--no-smoke"]);
    home.ok(&["uninstall", "--yes"]);
    assert_eq!(home.settings_text(), before);
    let said = home.ok(&["uninstall", "--yes"]);
    assert_eq!(home.settings_text(), before, "{said}");
    assert!(said.contains("so they are taken for yours"), "{said}");
}
