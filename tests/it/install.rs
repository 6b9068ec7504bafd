//! `gk install`, `gk uninstall`, `gk enable|disable` end to end, each run
//! in the one test environment ([`TestEnv`]: a temporary home, the data
//! folder and managed settings outside it; CLAUDE_CONFIG_DIR removed unless
//! a test sets it), from the home folder. The real ~/.claude is never
//! touched.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use crate::common::{Gk, TestEnv};

const SECRETS: [&str; 3] = ["Pr0xyPassw0rd", "sk-ant-SECRET-VALUE-123", "team-vault"];

const SETTINGS: &str = "{\n  \"env\": {\n    \"HTTPS_PROXY\": \"http://alice:Pr0xyPassw0rd@proxy.corp:8080\",\n    \"ANTHROPIC_AUTH_TOKEN\": \"sk-ant-SECRET-VALUE-123\"\n  },\n  \"apiKeyHelper\": \"/usr/local/bin/print-key --vault=team-vault\",\n  \"model\": \"opus\"\n}\n";

/// What these tests do in a [`TestEnv`]; paths are relative to the home
/// folder.
trait InstallEnv {
    fn backup_dir(&self) -> PathBuf;
    fn put(&self, rel: &str, text: &str);
    fn get(&self, rel: &str) -> String;
    fn cmd(&self) -> Gk;
    fn snapshot(&self) -> BTreeMap<PathBuf, (Vec<u8>, u32)>;
    fn backups(&self) -> Vec<PathBuf>;
    fn backups_beside(&self) -> Vec<PathBuf>;
}

impl InstallEnv for TestEnv {
    /// gk's backup folder under this test's data folder.
    fn backup_dir(&self) -> PathBuf {
        self.data_dir().join("gk").join("backups")
    }

    fn put(&self, rel: &str, text: &str) {
        self.write(self.home().join(rel), text);
    }

    fn get(&self, rel: &str) -> String {
        self.read(self.home().join(rel))
    }

    /// gk from the home folder (the data folder and managed settings are
    /// outside it, so every file the tests compare is gk's doing); colour
    /// as the user's terminal decides.
    fn cmd(&self) -> Gk {
        let mut gk = self.gk::<[&str; 0], &str>([]);
        gk.env_remove("NO_COLOR").current_dir(self.home());
        gk
    }

    /// Every file under HOME with its bytes and mode.
    fn snapshot(&self) -> BTreeMap<PathBuf, (Vec<u8>, u32)> {
        fn walk(dir: &Path, out: &mut BTreeMap<PathBuf, (Vec<u8>, u32)>) {
            for entry in fs::read_dir(dir).unwrap().flatten() {
                let p = entry.path();
                if p.is_dir() {
                    walk(&p, out);
                } else {
                    out.insert(p.clone(), (fs::read(&p).unwrap(), mode(&p)));
                }
            }
        }
        let mut out = BTreeMap::new();
        walk(self.home(), &mut out);
        out
    }

    /// Every backup gk made: in its backup folder (and, wrongly, anywhere
    /// under HOME: see `backups_beside`).
    fn backups(&self) -> Vec<PathBuf> {
        // `gk.lock` there is the lock of gk's writing runs, not a backup.
        let mut found: Vec<PathBuf> = match fs::read_dir(self.backup_dir()) {
            Ok(entries) => entries
                .map(|e| e.unwrap().path())
                .filter(|p| !p.ends_with("gk.lock"))
                .collect(),
            Err(_) => Vec::new(),
        };
        found.sort();
        found.extend(self.backups_beside());
        found
    }

    /// Backups under HOME (beside the files), which gk must never make.
    fn backups_beside(&self) -> Vec<PathBuf> {
        self.snapshot()
            .into_keys()
            .filter(|p| p.to_string_lossy().contains(".gk-backup-"))
            .collect()
    }
}

#[cfg(unix)]
fn mode(p: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(p).unwrap().permissions().mode() & 0o7777
}

#[cfg(not(unix))]
fn mode(_p: &Path) -> u32 {
    0
}

/// The program's name in `hooks/`: `gk`, `gk.exe` on Windows.
const BIN: &str = if cfg!(windows) { "gk.exe" } else { "gk" };

/// Check the handler install registered for `kind` (`prompt` or `stop`) in
/// `settings`, for the program in `<home>/<dir>/hooks/`: the shell form
/// `"$HOME/<dir>/hooks/gk" hook <kind>` on Linux and macOS, the exec form on
/// Windows (`command` the program's absolute path, `args` its words).
fn assert_registered(settings: &str, home: &Path, dir: &str, kind: &str) {
    let v: serde_json::Value = serde_json::from_str(settings).unwrap();
    let event = if kind == "prompt" {
        "UserPromptSubmit"
    } else {
        "Stop"
    };
    let handler = &v["hooks"][event][0]["hooks"][0];
    if cfg!(windows) {
        let program = home.join(dir).join("hooks").join(BIN);
        assert_eq!(handler["command"], program.to_str().unwrap(), "{settings}");
        assert_eq!(
            handler["args"],
            serde_json::json!(["hook", kind]),
            "{settings}"
        );
    } else {
        assert_eq!(
            handler["command"],
            format!("\"$HOME/{dir}/hooks/gk\" hook {kind}"),
            "{settings}"
        );
        assert!(handler.get("args").is_none(), "{settings}");
    }
}

fn output(cmd: &mut Gk) -> (i32, String, String) {
    let out = cmd.output();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `gk <args>` in `home` refuses, exits 1, names the user settings file at
/// `place` (`:line:col: reason`), and writes nothing. Its stderr.
fn refused_at(home: &TestEnv, args: &[&str], place: &str) -> String {
    let before = home.snapshot();
    let (code, _, err) = output(home.cmd().args(args));
    assert_eq!(code, 1, "{args:?}: {err}");
    let settings = home.claude().join("settings.json");
    assert!(
        err.starts_with(&format!("gk: {}{place}", settings.display())),
        "{args:?}: {err}"
    );
    assert_eq!(home.snapshot(), before, "{args:?}: nothing written");
    err
}

fn user_setup() -> TestEnv {
    let home = TestEnv::new();
    home.put(".claude/settings.json", SETTINGS);
    home.put(".claude/CLAUDE.md", "# My rules\n\nBe brief.\n");
    home
}

#[test]
fn dry_run_shows_the_plan_and_writes_nothing() {
    let home = user_setup();
    let before = home.snapshot();
    let (code, out, _) = output(home.cmd().args(["install", "--dry-run"]));
    assert_eq!(code, 0);
    assert!(out.contains("create    "), "{out}");
    assert!(out.contains("+    \"UserPromptSubmit\": ["), "{out}");
    assert!(out.contains("+<!-- gk:begin"), "{out}");
    assert!(out.contains("dry run: nothing written."));
    assert_eq!(home.snapshot(), before);
}

#[test]
fn without_a_terminal_and_without_yes_it_refuses_and_writes_nothing() {
    let home = user_setup();
    let before = home.snapshot();
    let (code, _, err) = output(home.cmd().arg("install"));
    assert_ne!(code, 0);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("stdin is not a terminal"), "{err}");
    assert_eq!(home.snapshot(), before);
}

#[test]
fn no_secret_value_appears_in_any_output() {
    let home = user_setup();
    let mut all = String::new();
    for args in [
        vec!["install", "--dry-run"],
        vec!["install", "--color", "always", "--dry-run"],
        vec!["install", "-y", "--no-smoke"],
        vec!["install", "-y", "--no-smoke"],
        vec!["disable", "stop", "-y"],
        vec!["uninstall", "--dry-run"],
        vec!["uninstall", "-y", "--purge"],
    ] {
        let (_, out, err) = output(home.cmd().args(&args));
        all.push_str(&out);
        all.push_str(&err);
    }
    assert!(all.contains("\"HTTPS_PROXY\": \"********\""), "{all}");
    for secret in SECRETS {
        assert!(!all.contains(secret), "output shows {secret}");
    }
}

#[test]
fn install_then_uninstall_gives_back_the_same_bytes() {
    let home = user_setup();
    let (code, out, err) = output(home.cmd().args(["install", "-y", "--no-smoke"]));
    assert_eq!(code, 0, "{out}{err}");
    let settings = home.get(".claude/settings.json");
    assert_registered(&settings, home.home(), ".claude", "prompt");
    assert!(home.claude().join("hooks").join(BIN).is_file());
    assert_eq!(
        home.get(".claude/hooks/task_state.json"),
        "{\n  \"status\": \"clean\",\n  \"task\": \"\",\n  \"detail\": \"\",\n  \"project\": \"\",\n  \"cwd\": \"\",\n  \"updated\": \"2026-01-01T00:00:00\"\n}\n"
    );
    let md = home.get(".claude/CLAUDE.md");
    let state = home.claude().join("hooks").join("task_state.json");
    assert!(md.contains(&format!("    {}\n", state.display())), "{md}");

    let (code, out, err) = output(home.cmd().args(["uninstall", "-y"]));
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(home.get(".claude/settings.json"), SETTINGS);
    assert_eq!(home.get(".claude/CLAUDE.md"), "# My rules\n\nBe brief.\n");
    assert!(!home.claude().join("hooks").join(BIN).exists());
    assert!(state.exists(), "task_state.json stays without --purge");
    assert!(out.contains("--purge removes it"), "{out}");

    let (code, _, _) = output(home.cmd().args(["uninstall", "-y", "--purge"]));
    assert_eq!(code, 0);
    assert!(!state.exists());
}

#[test]
fn empty_hooks_and_event_arrays_that_were_there_come_back_after_uninstall() {
    // They used to disappear with gk's entries: uninstall could not tell
    // them from the ones install creates.
    for before in [
        "{\n  \"env\": {\"ANTHROPIC_MODEL\": \"opus\"},\n  \"hooks\": {}\n}\n",
        "{\n  \"hooks\": {\n    \"Stop\": [],\n    \"UserPromptSubmit\": [ ]\n  }\n}\n",
    ] {
        let home = TestEnv::new();
        home.put(".claude/settings.json", before);
        let record = home.claude().join("hooks/gk-install.json");
        let (code, out, err) = output(home.cmd().args(["install", "--dry-run", "--no-smoke"]));
        assert_eq!(code, 0, "{out}{err}");
        assert!(
            out.contains("gk-install.json"),
            "the note is in the plan: {out}"
        );
        assert!(!record.exists(), "dry run");
        let (code, out, err) = output(home.cmd().args(["install", "-y", "--no-smoke"]));
        assert_eq!(code, 0, "{out}{err}");
        assert!(record.is_file());
        // A second install notes nothing more and changes nothing.
        let (code, out, _) = output(home.cmd().args(["install", "--check", "--no-smoke"]));
        assert_eq!(code, 0, "{out}");
        let (code, out, err) = output(home.cmd().args(["uninstall", "-y"]));
        assert_eq!(code, 0, "{out}{err}");
        assert_eq!(home.get(".claude/settings.json"), before);
        assert!(!record.exists(), "the note goes with uninstall");
        assert!(!home.claude().join("hooks").join(BIN).exists());
    }
}

#[cfg(unix)]
#[test]
fn backup_keeps_the_original_and_its_mode_and_the_file_keeps_its_mode() {
    use std::os::unix::fs::PermissionsExt;
    let home = user_setup();
    let settings = home.claude().join("settings.json");
    fs::set_permissions(&settings, fs::Permissions::from_mode(0o600)).unwrap();
    let (code, _, _) = output(home.cmd().args(["install", "-y", "--no-smoke"]));
    assert_eq!(code, 0);
    let backups: Vec<PathBuf> = home
        .backups()
        .into_iter()
        .filter(|p| p.to_string_lossy().contains("settings.json.gk-backup-"))
        .collect();
    assert_eq!(backups.len(), 1);
    assert_eq!(fs::read_to_string(&backups[0]).unwrap(), SETTINGS);
    assert_eq!(mode(&backups[0]), 0o600);
    assert_eq!(mode(&settings), 0o600);
    assert_eq!(mode(&home.claude().join("hooks/gk")), 0o755);
}

#[test]
fn second_install_has_nothing_to_do_and_makes_no_backup() {
    let home = user_setup();
    let (code, _, _) = output(home.cmd().args(["install", "-y", "--no-smoke"]));
    assert_eq!(code, 0);
    let after_first = home.snapshot();
    let (code, out, _) = output(home.cmd().args(["install", "-y", "--no-smoke"]));
    assert_eq!(code, 0);
    assert!(out.contains("nothing to do"), "{out}");
    assert_eq!(home.snapshot(), after_first);
}

#[test]
fn check_exits_1_when_something_would_change_and_0_when_not() {
    let home = user_setup();
    let before = home.snapshot();
    let (code, _, _) = output(home.cmd().args(["install", "--check"]));
    assert_eq!(code, 1);
    assert_eq!(home.snapshot(), before);
    output(home.cmd().args(["install", "-y", "--no-smoke"]));
    let (code, _, _) = output(home.cmd().args(["install", "--check"]));
    assert_eq!(code, 0);
    let (code, _, _) = output(home.cmd().args(["uninstall", "--check"]));
    assert_eq!(code, 1);
}

#[test]
fn a_settings_file_that_does_not_parse_stops_everything() {
    let home = TestEnv::new();
    home.put(
        ".claude/settings.json",
        "{\n  // mine\n  \"model\": \"opus\"\n}\n",
    );
    home.put(".claude/CLAUDE.md", "# Mine\n");
    let before = home.snapshot();
    let (code, _, err) = output(home.cmd().args(["install", "-y", "--no-smoke"]));
    assert_eq!(code, 1);
    let settings = home.claude().join("settings.json");
    assert!(
        err.starts_with(&format!("gk: {}:2:3: ", settings.display())),
        "{err}"
    );
    assert_eq!(
        home.snapshot(),
        before,
        "nothing written, not even the binary"
    );
}

#[test]
fn a_matcher_that_is_not_a_string_under_pre_tool_use_stops_everything() {
    // The client skips a file whose PreToolUse matcher is not a string
    // (measured on 2.1.332): install and uninstall refuse, naming the
    // place, and write nothing. (A key repeated outside `hooks` the client
    // loads, reading the last copy: install edits around it, see
    // install_edits_a_loaded_file_with_a_repeated_key_and_a_dropped_part.)
    for (text, place) in [
        (
            "{\n  \"hooks\": {\n    \"PreToolUse\": [{\"matcher\": [\"Bash\"], \"hooks\": [{\"type\": \"command\", \"command\": \"lint\"}]}]\n  }\n}\n",
            ":3:32: hooks.PreToolUse[0].matcher: `matcher` must be a string; Claude Code skips this whole file",
        ),
    ] {
        let home = TestEnv::new();
        home.put(".claude/settings.json", text);
        for args in [
            &["install", "-y", "--no-smoke"][..],
            &["uninstall", "-y"][..],
        ] {
            refused_at(&home, args, place);
        }
    }
}

#[test]
fn crlf_claude_md_with_the_python_era_section() {
    let home = TestEnv::new();
    let md = "# Rules\r\n\r\nmine\r\n\r\n## Task State Convention (Gatekeeper Hooks)\r\nTwo global hooks (`gatekeeper.py` on UserPromptSubmit)\r\n\r\n## Later\r\nkeep\r\n";
    home.put(".claude/CLAUDE.md", md);
    let (code, _, _) = output(home.cmd().args(["install", "-y", "--no-smoke"]));
    assert_eq!(code, 0);
    let after = home.get(".claude/CLAUDE.md");
    assert!(!after.replace("\r\n", "").contains('\n'), "LF crept in");
    assert!(!after.contains("gatekeeper.py"));
    assert!(
        after.starts_with("# Rules\r\n\r\nmine\r\n\r\n<!-- gk:begin"),
        "{after}"
    );
    assert!(
        after.ends_with("<!-- gk:end -->\r\n\r\n## Later\r\nkeep\r\n"),
        "{after}"
    );
    // A second install replaces the block with itself.
    let (_, out, _) = output(home.cmd().args(["install", "-y", "--no-smoke"]));
    assert!(out.contains("nothing to do"), "{out}");
    output(home.cmd().args(["uninstall", "-y"]));
    assert_eq!(
        home.get(".claude/CLAUDE.md"),
        "# Rules\r\n\r\nmine\r\n\r\n## Later\r\nkeep\r\n"
    );
}

#[test]
fn claude_config_dir_is_honoured() {
    let home = TestEnv::new();
    let cfg = home.home().join("cfg");
    let (code, out, err) =
        output(
            home.cmd()
                .env("CLAUDE_CONFIG_DIR", &cfg)
                .args(["install", "-y", "--no-smoke"]),
        );
    assert_eq!(code, 0, "{out}{err}");
    let settings = fs::read_to_string(cfg.join("settings.json")).unwrap();
    assert_registered(&settings, home.home(), "cfg", "stop");
    assert!(cfg.join("hooks").join(BIN).is_file());
    assert!(cfg.join("hooks/task_state.json").is_file());
    assert!(cfg.join("CLAUDE.md").is_file());
    assert!(!home.claude().exists(), "~/.claude must not be touched");
    let (code, _, _) = output(
        home.cmd()
            .env("CLAUDE_CONFIG_DIR", &cfg)
            .args(["uninstall", "-y"]),
    );
    assert_eq!(code, 0);
    // Install created it, and nothing else is in it: it goes.
    assert!(!cfg.join("settings.json").exists());
}

#[test]
#[cfg(unix)]
fn a_backslash_in_claude_config_dir_is_registered_as_written_and_runs() {
    // On Linux `\` is part of a file name: the command used to point at
    // `a/b/hooks/gk`, and the smoke test failed after every file was written.
    let home = TestEnv::new();
    for cfg in [
        home.home().join("a\\b"),
        PathBuf::from(format!("{}\\elsewhere", home.home().display())),
    ] {
        let (code, out, err) = output(
            home.cmd()
                .env("CLAUDE_CONFIG_DIR", &cfg)
                .args(["install", "-y"]),
        );
        assert_eq!(code, 0, "{out}{err}");
        assert!(out.contains("smoke test: gk hook prompt passed"), "{out}");
        assert!(out.contains("smoke test: gk hook stop   passed"), "{out}");
        assert!(out.contains("smoke test: gk hook session passed"), "{out}");
        let settings: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(cfg.join("settings.json")).unwrap()).unwrap();
        let command = settings["hooks"]["Stop"][0]["hooks"][0]["command"]
            .as_str()
            .unwrap();
        let escaped = cfg.display().to_string().replace('\\', "\\\\");
        assert_eq!(command, format!("\"{escaped}/hooks/gk\" hook stop"));
    }
}

#[test]
#[cfg(unix)]
fn a_claude_config_dir_no_command_can_name_writes_nothing() {
    use std::os::unix::ffi::{OsStrExt, OsStringExt};
    let home = TestEnv::new();
    home.put(".claude/settings.json", SETTINGS);
    let mut bytes = home.home().join("cfg").into_os_string().into_vec();
    bytes.push(0xff);
    let cfg = PathBuf::from(std::ffi::OsStr::from_bytes(&bytes));
    let before = home.snapshot();
    for args in [&["install", "-y"][..], &["install", "--dry-run"][..]] {
        let (code, out, err) = output(home.cmd().env("CLAUDE_CONFIG_DIR", &cfg).args(args));
        assert_eq!(code, 1, "{args:?}: {out}{err}");
        assert!(err.contains("is not valid Unicode"), "{err}");
        assert!(err.contains("nothing written"), "{err}");
        assert_eq!(home.snapshot(), before, "{args:?}");
        assert!(!cfg.exists());
    }
}

#[test]
fn colour_only_when_asked_or_on_a_terminal() {
    let home = user_setup();
    let (_, plain, _) = output(home.cmd().args(["install", "--dry-run"]));
    assert!(!plain.contains('\x1b'));
    let (_, coloured, _) = output(
        home.cmd()
            .args(["--color", "always", "install", "--dry-run"]),
    );
    assert!(coloured.contains("\x1b[32m+"), "{coloured}");
    let (_, never, _) =
        output(
            home.cmd()
                .env("NO_COLOR", "1")
                .args(["--color", "never", "install", "--dry-run"]),
        );
    assert!(!never.contains('\x1b'));
}

#[test]
fn a_different_binary_is_replaced_and_a_foreign_one_is_never_removed() {
    let home = TestEnv::new();
    home.put(&format!(".claude/hooks/{BIN}"), "#!/bin/sh\necho not gk\n");
    let (_, out, _) = output(home.cmd().args(["install", "--dry-run"]));
    assert!(out.contains("replace   "), "{out}");
    assert!(out.contains("now:   22 bytes"), "{out}");
    assert!(
        out.contains("after: ") && out.contains(", gk 0.1.0"),
        "{out}"
    );
    // Uninstall leaves a file there that carries no gk version marker.
    let (code, out, _) = output(home.cmd().args(["uninstall", "-y"]));
    assert_eq!(code, 0);
    assert!(out.contains("does not look like a gk build"), "{out}");
    assert!(home.claude().join("hooks").join(BIN).exists());
}

#[test]
fn disable_and_enable_edit_gk_json_through_the_same_engine() {
    let home = TestEnv::new();
    let (code, _, _) = output(home.cmd().args(["enable", "prompt", "-y"]));
    assert_eq!(code, 0);
    assert!(
        !home.claude().join("hooks/gk.json").exists(),
        "absent = enabled"
    );
    let (code, out, _) = output(home.cmd().args(["disable", "prompt", "--dry-run"]));
    assert_eq!(code, 0);
    assert!(out.contains("+    \"enabled\": false"), "{out}");
    assert!(!home.claude().join("hooks/gk.json").exists());
    output(home.cmd().args(["disable", "prompt", "-y"]));
    assert_eq!(
        home.get(".claude/hooks/gk.json"),
        "{\n  \"prompt\": {\n    \"enabled\": false\n  }\n}\n"
    );
    // Enabling takes the switch out again (absent means on): the file
    // disable made goes, and a file with more in it gets its bytes back.
    output(home.cmd().args(["enable", "prompt", "-y"]));
    assert!(!home.claude().join("hooks/gk.json").exists());
    let mine = "{\n  \"stale_hours\": 12\n}\n";
    home.put(".claude/hooks/gk.json", mine);
    output(home.cmd().args(["disable", "stop", "-y"]));
    assert!(home.get(".claude/hooks/gk.json").contains("false"));
    output(home.cmd().args(["enable", "stop", "-y"]));
    assert_eq!(home.get(".claude/hooks/gk.json"), mine);
    home.put(
        ".claude/hooks/gk.json",
        "{\"prompt\": {\"enabled\": true},}",
    );
    let (code, _, err) = output(home.cmd().args(["disable", "prompt", "-y"]));
    assert_eq!(code, 1);
    assert!(err.contains("gk.json:1:"), "{err}");
}

#[test]
fn after_writing_every_hook_is_run_once_and_reported() {
    let home = TestEnv::new();
    let (_, out, err) = output(home.cmd().args(["install", "-y"]));
    for hook in ["prompt", "stop", "session"] {
        let line = out
            .lines()
            .find(|l| l.starts_with(&format!("smoke test: gk hook {hook}")))
            .unwrap_or_else(|| panic!("no smoke line for {hook}: {out}{err}"));
        assert!(line.contains(" ms"), "{line}");
    }
}

#[test]
fn install_says_when_disable_all_hooks_will_keep_the_hooks_off() {
    let home = TestEnv::new();
    home.put(
        ".claude/settings.json",
        "{\n  \"disableAllHooks\": true\n}\n",
    );
    let (code, out, _) = output(home.cmd().args(["install", "--dry-run"]));
    assert_eq!(code, 0);
    assert!(
        out.contains("\"disableAllHooks\": true, so Claude Code runs no hook"),
        "{out}"
    );
}

#[test]
fn a_read_only_settings_file_is_refused_before_anything_is_written() {
    let home = user_setup();
    let settings = home.claude().join("settings.json");
    // Mode 0444 on Unix, the read-only attribute on Windows (where a rename
    // would replace the file all the same).
    let mut perms = fs::metadata(&settings).unwrap().permissions();
    perms.set_readonly(true);
    fs::set_permissions(&settings, perms).unwrap();
    let before = home.snapshot();
    let (code, out, err) = output(home.cmd().args(["install", "-y", "--no-smoke"]));
    assert_eq!(code, 1, "{out}{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(&format!("{} is read-only", settings.display())),
        "{err}"
    );
    assert_eq!(
        home.snapshot(),
        before,
        "nothing written: no binary, no CLAUDE.md edit, no backup, no temp file"
    );
}

#[cfg(unix)]
#[test]
fn a_settings_link_to_a_file_not_made_yet_is_written_through() {
    let home = TestEnv::new();
    let target = home.home().join("dotfiles/claude-settings.json");
    fs::create_dir_all(target.parent().unwrap()).unwrap();
    fs::create_dir_all(home.claude()).unwrap();
    let link = home.claude().join("settings.json");
    std::os::unix::fs::symlink("../dotfiles/claude-settings.json", &link).unwrap();
    let (code, out, err) = output(home.cmd().args(["install", "-y", "--no-smoke"]));
    assert_eq!(code, 0, "{out}{err}");
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    let written = fs::read_to_string(&target).unwrap();
    assert!(written.contains("hook prompt"), "{written}");
}

#[cfg(unix)]
#[test]
fn a_replaced_binary_is_executable_even_when_the_old_copy_was_not() {
    use std::os::unix::fs::PermissionsExt;
    let home = TestEnv::new();
    home.put(".claude/hooks/gk", "copied by hand, without the x bit\n");
    let bin = home.claude().join("hooks/gk");
    fs::set_permissions(&bin, fs::Permissions::from_mode(0o644)).unwrap();
    let (code, out, err) = output(home.cmd().args(["install", "-y"]));
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(mode(&bin), 0o755);
    assert!(out.contains("smoke test: gk hook prompt passed"), "{out}");
}

#[test]
fn a_relative_claude_config_dir_still_registers_a_command_that_works_anywhere() {
    let home = TestEnv::new();
    let (code, out, err) =
        output(
            home.cmd()
                .env("CLAUDE_CONFIG_DIR", "cfg")
                .args(["install", "-y", "--no-smoke"]),
        );
    assert_eq!(code, 0, "{out}{err}");
    let settings = home.get("cfg/settings.json");
    assert_registered(&settings, home.home(), "cfg", "prompt");
    let md = home.get("cfg/CLAUDE.md");
    let state = home
        .home()
        .join("cfg")
        .join("hooks")
        .join("task_state.json");
    assert!(md.contains(&format!("    {}\n", state.display())), "{md}");
}

/// Every path under HOME (folders too), with file bytes and modes.
fn tree(home: &TestEnv) -> Vec<(PathBuf, Option<Vec<u8>>, u32)> {
    fn walk(dir: &Path, out: &mut Vec<(PathBuf, Option<Vec<u8>>, u32)>) {
        let mut entries: Vec<PathBuf> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                out.push((p.clone(), None, mode(&p)));
                walk(&p, out);
            } else {
                out.push((p.clone(), Some(fs::read(&p).unwrap()), mode(&p)));
            }
        }
    }
    let mut out = Vec::new();
    walk(home.home(), &mut out);
    out
}

#[test]
fn dry_run_and_check_write_nothing_in_any_command_or_state() {
    type Setup = (&'static str, fn() -> TestEnv);
    let setups: [Setup; 3] = [
        ("empty home", TestEnv::new),
        ("user files", user_setup),
        ("installed, hook switched off", || {
            let home = user_setup();
            output(home.cmd().args(["install", "-y", "--no-smoke"]));
            output(home.cmd().args(["disable", "stop", "-y"]));
            home
        }),
    ];
    for (label, setup) in setups {
        let home = setup();
        let before = tree(&home);
        for args in [
            vec!["install"],
            vec!["uninstall"],
            vec!["uninstall", "--purge"],
            vec!["enable", "stop"],
            vec!["disable", "prompt"],
        ] {
            for flag in ["--dry-run", "--check"] {
                let mut all = args.clone();
                all.push(flag);
                let (code, out, err) = output(home.cmd().args(&all));
                assert!(
                    code == 0 || (flag == "--check" && code == 1),
                    "{label} {all:?}: {code} {out}{err}"
                );
                assert!(err.is_empty(), "{label} {all:?}: {err}");
                assert_eq!(tree(&home), before, "{label} {all:?} wrote something");
            }
        }
    }
}

#[cfg(unix)] // Windows has no named pipe in the file system
#[test]
#[allow(clippy::disallowed_methods)] // mkfifo makes the pipe
fn a_named_pipe_in_a_files_place_is_refused_not_waited_on() {
    let h = TestEnv::new();
    fs::create_dir_all(h.claude().join("hooks")).unwrap();
    let pipe = h.claude().join("hooks/gk.json");
    crate::common::require_tool("mkfifo");
    let made = h.command("mkfifo").arg(&pipe).status();
    assert!(made.as_ref().is_ok_and(|s| s.success()), "mkfifo: {made:?}");
    let (code, out, err) = output(
        h.cmd()
            .args(["disable", "prompt", "--yes"])
            .timeout(std::time::Duration::from_secs(10)),
    );
    assert_eq!(code, 1, "{out}{err}");
    assert!(err.contains("not a regular file (a named pipe)"), "{err}");
}

#[test]
fn uninstall_with_nothing_installed_says_so_plainly() {
    let home = TestEnv::new();
    let (code, out, err) = output(home.cmd().args(["uninstall", "-y"]));
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("up to date"), "{out}");
    assert!(
        out.contains(&format!(
            "gk uninstall: gk is not installed in {}; nothing to remove.",
            home.claude().display()
        )),
        "{out}"
    );
    // A user's own files there but nothing of gk's: the same.
    home.put(".claude/settings.json", SETTINGS);
    home.put(".claude/CLAUDE.md", "# My rules\n");
    let (_, out, _) = output(home.cmd().args(["uninstall", "-y"]));
    assert!(out.contains("gk is not installed in"), "{out}");
}

#[test]
fn a_plan_lists_under_will_change_only_the_files_that_change() {
    let home = user_setup();
    let (code, _, _) = output(home.cmd().args(["install", "-y", "--no-smoke"]));
    assert_eq!(code, 0);
    // One file away from a full install.
    fs::remove_file(home.claude().join("hooks/task_state.json")).unwrap();
    let (code, out, _) = output(home.cmd().args(["install", "--dry-run"]));
    assert_eq!(code, 0);
    let head: Vec<&str> = out.lines().take_while(|l| !l.is_empty()).collect();
    assert_eq!(head[0], "gk install will change 1 file:", "{out}");
    assert!(
        head[1].starts_with("  create    ") && head[1].contains("task_state.json"),
        "{out}"
    );
    assert!(!out.contains("unchanged"), "{out}");
    assert_eq!(head[2], "already up to date:", "{out}");
    // The program, CLAUDE.md, settings.json and install's record.
    assert_eq!(head.len(), 7, "{out}");
    for rest in &head[3..] {
        assert!(
            rest.starts_with("  ") && !rest.contains("task_state"),
            "{out}"
        );
    }
}

// ------------------------------------------------------------- backups

#[test]
fn backups_go_to_one_folder_outside_claude_dir_and_the_output_says_where() {
    let home = user_setup();
    let (code, out, _) = output(home.cmd().args(["install", "-y", "--no-smoke"]));
    assert_eq!(code, 0);
    assert!(
        home.backups_beside().is_empty(),
        "{:?}",
        home.backups_beside()
    );
    let backups = home.backups();
    // settings.json and CLAUDE.md existed; task_state.json was created.
    assert_eq!(backups.len(), 2, "{backups:?}");
    let settings = home.claude().join("settings.json");
    let copy = backups
        .iter()
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .contains("%.claude%settings.json.gk-backup-")
        })
        .unwrap();
    assert_eq!(fs::read_to_string(copy).unwrap(), SETTINGS);
    assert!(
        out.contains(&format!(
            "backed up {} to {}",
            settings.display(),
            copy.display()
        )),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "gk keeps the last 3 backups of each file in {}",
            home.backup_dir().display()
        )),
        "{out}"
    );
    // The name tells which file and when: the path, then the run's time.
    let name = copy.file_name().unwrap().to_string_lossy().into_owned();
    let stamp = name.rsplit(".gk-backup-").next().unwrap();
    assert_eq!(stamp.len(), "20261101-093000".len(), "{name}");
    assert!(
        name.ends_with(stamp) && name.contains("%.claude%"),
        "{name}"
    );
}

#[test]
fn only_the_last_three_backups_of_each_file_are_kept() {
    let home = user_setup();
    // Each switch rewrites gk.json, which holds a setting of the user's (so
    // enabling leaves the file in place): seven edits in a row.
    home.put(".claude/hooks/gk.json", "{\n  \"stale_hours\": 24\n}\n");
    output(home.cmd().args(["disable", "stop", "-y"]));
    for _ in 0..3 {
        output(home.cmd().args(["enable", "stop", "-y"]));
        output(home.cmd().args(["disable", "stop", "-y"]));
    }
    let of_config: Vec<PathBuf> = home
        .backups()
        .into_iter()
        .filter(|p| p.to_string_lossy().contains("gk.json.gk-backup-"))
        .collect();
    assert_eq!(of_config.len(), 3, "{of_config:?}");
    // The newest three: gk.json as each of the last three runs (disable,
    // enable, disable) found it: on, off, on.
    let off: Vec<bool> = of_config
        .iter()
        .map(|p| fs::read_to_string(p).unwrap().contains("false"))
        .collect();
    assert_eq!(off, [false, true, false], "{of_config:?}");
}

#[test]
fn doctor_fix_in_a_project_leaves_no_backup_in_its_claude_folder() {
    let home = TestEnv::new();
    let (code, _, _) = output(home.cmd().args(["install", "-y", "--no-smoke"]));
    assert_eq!(code, 0);
    // A second spelling of the prompt hook in a project's shared settings.
    home.put(
        "work/app/.claude/settings.json",
        "{\n  \"hooks\": {\n    \"UserPromptSubmit\": [\n      {\"hooks\": [{\"type\": \"command\", \"command\": \"~/.claude/hooks/gk hook prompt\"}]}\n    ]\n  }\n}\n",
    );
    let project = home.home().join("work/app");
    let (code, out, err) =
        output(
            home.cmd()
                .current_dir(&project)
                .args(["doctor", "--fix", "--yes", "--no-smoke"]),
        );
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(!home
        .get("work/app/.claude/settings.json")
        .contains("gk hook"));
    assert!(
        home.backups_beside().is_empty(),
        "{:?}",
        home.backups_beside()
    );
    let names: Vec<String> = home
        .backups()
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert!(
        names
            .iter()
            .any(|n| n.contains("%work%app%.claude%settings.json.gk-backup-")),
        "{names:?}"
    );
}

#[test]
fn purge_lists_and_removes_every_backup_and_keeps_none_of_its_own() {
    let home = user_setup();
    output(home.cmd().args(["install", "-y", "--no-smoke"]));
    output(home.cmd().args(["disable", "stop", "-y"]));
    output(home.cmd().args(["enable", "stop", "-y"]));
    // One an older gk left beside settings.json.
    home.put(".claude/settings.json.gk-backup-20250101-000000", SETTINGS);
    let before = home.backups();
    assert!(before.len() >= 4, "{before:?}");
    let (code, out, _) = output(home.cmd().args(["uninstall", "--purge", "--dry-run"]));
    assert_eq!(code, 0);
    for b in &before {
        assert!(
            out.contains(&format!("remove    {}", b.display())),
            "{} not listed:\n{out}",
            b.display()
        );
    }
    assert!(out.contains("no backups are kept of these files"), "{out}");
    // Listed, never shown: a backup's text holds the secrets of env.
    for secret in SECRETS {
        assert!(!out.contains(secret), "{secret} shown:\n{out}");
    }
    let (code, _, err) = output(home.cmd().args(["uninstall", "--purge", "-y"]));
    assert_eq!(code, 0, "{err}");
    assert!(home.backups().is_empty(), "{:?}", home.backups());
    assert!(!home.backup_dir().exists());
    assert!(!home.data_dir().join("gk").exists());
    assert!(home
        .get(".claude/settings.json")
        .contains("\"model\": \"opus\""));
}

/// The profile gk would reach if a test forgot to isolate it: the folder the
/// system reports for this user (on Windows the profile folder, under Wine
/// too; elsewhere the home in the user database or HOME).
#[allow(clippy::disallowed_methods)]
fn real_profile() -> PathBuf {
    std::env::home_dir().expect("the system reports a home folder for this user")
}

/// Existence, size and modification time of each file gk writes in a profile.
fn gk_files_of(profile: &Path) -> Vec<(PathBuf, Option<(u64, std::time::SystemTime)>)> {
    [
        "settings.json",
        "CLAUDE.md",
        "hooks/gk",
        "hooks/gk.exe",
        "hooks/task_state.json",
        "hooks/gk.json",
    ]
    .iter()
    .map(|rel| {
        let p = profile.join(".claude").join(rel);
        let meta = fs::metadata(&p)
            .ok()
            .map(|m| (m.len(), m.modified().unwrap()));
        (p, meta)
    })
    .collect()
}

#[test]
fn the_tests_never_touch_the_real_profile() {
    // What every CLI test relies on: gk goes by the home variable the tests
    // set (USERPROFILE on Windows, HOME elsewhere), so a test never reaches
    // the profile of the user running `cargo test` — on a Windows developer's
    // machine that would edit their real Claude Code setup.
    let real = real_profile();
    let home = user_setup();
    let before = gk_files_of(&real);
    let (code, plan, err) = output(home.cmd().args(["install", "--dry-run"]));
    assert_eq!(code, 0, "{plan}{err}");
    let temp_settings = home.claude().join("settings.json").display().to_string();
    let real_claude = real.join(".claude").display().to_string();
    assert!(plan.contains(&temp_settings), "{plan}");
    assert!(
        !plan.contains(&real_claude),
        "the plan names {real_claude}:\n{plan}"
    );
    let (code, out, err) = output(home.cmd().args(["install", "-y", "--no-smoke"]));
    assert_eq!(code, 0, "{out}{err}");
    let hook = home
        .cmd()
        .args(["hook", "prompt"])
        .stdin(r#"{"prompt":"ok"}"#)
        .output();
    assert_eq!(hook.status.code(), Some(0));
    let (code, out, err) = output(home.cmd().args(["uninstall", "-y", "--purge"]));
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(gk_files_of(&real), before, "the real profile changed");
}

#[test]
fn the_home_folder_is_the_variable_the_client_reads() {
    // Claude Code takes the home folder from USERPROFILE on Windows and from
    // HOME elsewhere; Git Bash sets HOME on Windows, often to another
    // folder, and the client ignores it there. gk must agree with the client.
    let home = user_setup();
    let other = TestEnv::new();
    let (code, plan, err) = output(
        home.cmd()
            .env("HOME", other.home())
            .args(["install", "--dry-run"]),
    );
    assert_eq!(code, 0, "{plan}{err}");
    let (used, ignored) = if cfg!(windows) {
        (&home, &other)
    } else {
        (&other, &home)
    };
    let shows =
        |h: &TestEnv| plan.contains(&h.claude().join("settings.json").display().to_string());
    assert!(shows(used), "{plan}");
    assert!(!shows(ignored), "{plan}");
}

fn moved_aside(home: &TestEnv) -> Vec<String> {
    fs::read_dir(home.claude().join("hooks"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".gk-old-"))
        .collect()
}

/// Wait (at most 30 s) until the system counts `program` as running: a
/// program's file cannot be opened for writing while it runs ("text file
/// busy" on Linux, a sharing violation on Windows).
fn wait_until_running(program: &Path) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while fs::OpenOptions::new().write(true).open(program).is_ok() {
        assert!(
            std::time::Instant::now() < deadline,
            "{} was started but never ran",
            program.display()
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

#[test]
#[allow(clippy::disallowed_types, clippy::disallowed_methods)] // starts the installed hook
fn a_running_copy_is_moved_aside_and_removed_once_it_has_ended() {
    // Windows cannot delete a program while it runs (a hook of an open
    // session), only rename it: uninstall moves it aside, says so, and the
    // next run removes it. With nothing running, no copy is left and no
    // such line is printed. Elsewhere a running file is simply replaced.
    let home = user_setup();
    let (code, out, err) = output(home.cmd().args(["install", "-y", "--no-smoke"]));
    assert_eq!(code, 0, "{out}{err}");
    let bin = home
        .claude()
        .join("hooks")
        .join(if cfg!(windows) { "gk.exe" } else { "gk" });
    let mut running = home
        .command(&bin)
        .args(["hook", "prompt"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // The hook waits for its input; the system says its file is in use.
    wait_until_running(&bin);
    let (code, out, err) = output(home.cmd().args(["uninstall", "-y"]));
    assert_eq!(code, 0, "{out}{err}");
    assert!(!bin.exists());
    let left = moved_aside(&home);
    if cfg!(windows) {
        assert_eq!(left.len(), 1, "{left:?}\n{out}");
        assert!(out.contains("is still running"), "{out}");
    } else {
        assert_eq!(left, Vec::<String>::new());
        assert!(!out.contains("still running"), "{out}");
    }
    drop(running.stdin.take());
    assert_eq!(running.wait().unwrap().code(), Some(0));

    // Once it has ended, the next install takes the copy away (shown in its plan).
    let (code, out, err) = output(home.cmd().args(["install", "-y", "--no-smoke"]));
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(moved_aside(&home), Vec::<String>::new(), "{out}");
    if cfg!(windows) {
        assert!(
            out.contains("a copy of gk an earlier run moved aside"),
            "{out}"
        );
    }
    // Upgrading and uninstalling with nothing running leave no copy, no note.
    let (code, out, err) = output(home.cmd().args(["uninstall", "-y"]));
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(moved_aside(&home), Vec::<String>::new(), "{out}");
    assert!(!out.contains("still running"), "{out}");
}

/// A refusal names a place in the file as it is on disk, not in gk's own
/// edit of it (which inserts the hooks first: `settings.json:1:431` for a
/// 36-byte file, before).
#[test]
fn a_refusal_points_into_the_file_as_it_is_on_disk() {
    for (text, place) in [
        (
            r#"{"model": "x", "permissions": ["a"]}"#,
            ":1:31: permissions: `permissions` must be an object, not an array",
        ),
        (
            "{\n  \"model\": \"x\",\n  \"permissions\": {\"allow\": \"Edit\"}\n}\n",
            ":3:28: permissions.allow: `permissions.allow` must be an array, not a string",
        ),
    ] {
        let home = TestEnv::new();
        home.put(".claude/settings.json", text);
        refused_at(&home, &["install", "-y", "--no-smoke"], place);
    }
}

/// JSON the client's parser accepts (measured: the file loads, its hooks
/// fire, its `env` applies) is never called a file the client skips.
/// Install edits what its editor can keep byte for byte (a number past a
/// double's range) and otherwise refuses, saying why.
#[test]
fn json_the_client_loads_is_edited_or_refused_for_what_it_is() {
    let home = TestEnv::new();
    let text = "{\n  \"x\": 1e400,\n  \"model\": \"opus\"\n}\n";
    home.put(".claude/settings.json", text);
    let (code, _, err) = output(home.cmd().args(["install", "-y", "--no-smoke"]));
    assert_eq!(code, 0, "{err}");
    let after = home.get(".claude/settings.json");
    assert!(after.contains("\"x\": 1e400,"), "kept as written:\n{after}");
    for kind in ["prompt", "stop", "session"] {
        // `"…/gk" hook prompt`; on Windows the exec form's `"args"`.
        let registered = if cfg!(windows) {
            format!("\"hook\",\n              \"{kind}\"")
        } else {
            format!("gk\\\" hook {kind}\"")
        };
        assert!(after.contains(&registered), "{after}");
    }

    let deep = format!("{}{}", "[".repeat(5_000), "]".repeat(5_000));
    for (x, place) in [(r#""\ud83d""#.to_string(), ":2:9: "), (deep, ":2:")] {
        let home = TestEnv::new();
        home.put(
            ".claude/settings.json",
            &format!("{{\n  \"x\": {x},\n  \"model\": \"opus\"\n}}\n"),
        );
        let err = refused_at(&home, &["install", "-y", "--no-smoke"], place);
        assert!(!err.contains("skips"), "{err}");
        assert!(!err.contains("not valid JSON"), "{err}");
        assert!(err.contains("Claude Code does load the file"), "{err}");
    }
}

/// Runs `shell` in a pseudo-terminal (util-linux `script`, part of every
/// Debian machine: the test fails, saying so, where it is missing) with
/// `input` typed into it, the terminal kept open until the screen shows
/// `done` (what the shell prints last). A real process with the real
/// binary: only that has a terminal.
#[cfg(target_os = "linux")]
#[allow(clippy::disallowed_types, clippy::disallowed_methods)] // the test starts the terminal
fn in_a_terminal(home: &TestEnv, shell: &str, input: &str, done: &str) -> String {
    in_a_terminal_steps(home, shell, &mut [("", &mut || input.to_string())], done)
}

/// [`in_a_terminal`], typing each step's text once the screen shows its
/// prompt (`""`: at once); the text is made only then, so a step may first
/// change a file (what another program does while gk waits for an answer).
#[cfg(target_os = "linux")]
#[allow(clippy::disallowed_types, clippy::disallowed_methods)] // the test starts the terminal
pub(crate) fn in_a_terminal_steps(
    home: &TestEnv,
    shell: &str,
    steps: &mut [(&str, &mut dyn FnMut() -> String)],
    done: &str,
) -> String {
    assert!(
        Path::new("/usr/bin/script").exists(),
        "this test needs /usr/bin/script (util-linux) to give gk a terminal"
    );
    let gk = crate::common::gk_bin();
    let shell = shell.replace("GK", &gk.display().to_string());
    let mut cmd = std::process::Command::new("/usr/bin/script");
    cmd.env_clear();
    for (name, value) in home.base_vars() {
        if let Some(value) = value {
            cmd.env(name, value);
        }
    }
    let mut child = cmd
        .args(["-qec", &shell, "/dev/null"])
        .env("PATH", "/usr/bin:/bin")
        .env("TERM", "dumb")
        .env_remove("NO_COLOR")
        .current_dir(home.home())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The screen, read as it comes: the terminal stays open (stdin is not
    // closed) until the shell has printed `done`, at most 60 s.
    let mut stdout = child.stdout.take().unwrap();
    let (seen, screen) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        use std::io::Read as _;
        let mut all = Vec::new();
        let mut buf = [0u8; 4096];
        while let Ok(n @ 1..) = stdout.read(&mut buf) {
            all.extend_from_slice(&buf[..n]);
            let _ = seen.send(String::from_utf8_lossy(&all).into_owned());
        }
        all
    });
    let mut stdin = child.stdin.take().unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let mut text = String::new();
    let (mut next, mut from) = (0, 0);
    loop {
        // Each step's prompt is looked for after the previous step's.
        while let Some((prompt, make)) = steps.get_mut(next) {
            let Some(at) = text.get(from..).and_then(|t| t.find(*prompt)) else {
                break;
            };
            from += at + prompt.len();
            use std::io::Write as _;
            stdin.write_all(make().as_bytes()).unwrap();
            next += 1;
        }
        if next == steps.len() && text.contains(done) {
            break;
        }
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match screen.recv_timeout(left) {
            Ok(seen) => text = seen,
            Err(_) => break, // the screen ended or time ran out: the test says what it saw
        }
    }
    drop(stdin);
    let all = reader.join().unwrap();
    child.wait().unwrap();
    String::from_utf8_lossy(&all).replace('\r', "")
}

#[cfg(target_os = "linux")]
#[test]
fn the_question_is_answered_with_a_line_even_when_the_output_is_piped() {
    // `scripts/install-gk.sh 2>&1 | tee log`: stdin is the terminal, the
    // output is not. Each answer is a line: `y` and Enter, and the Enter
    // does not fall through to what runs next.
    let home = user_setup();
    let screen = in_a_terminal(
        &home,
        "GK install --no-smoke 2>&1 | cat; read rest; echo \"next=[$rest]\"",
        "\ny\nafter\n",
        "next=[",
    );
    // Enter at the offer of rule sets keeps the current ones; then `y`.
    assert!(screen.contains("choose 1 or 2 [1]:"), "{screen}");
    assert!(screen.contains("apply these changes? [y/N]"), "{screen}");
    // The plan's diffs run past a screen: its list of changes comes again
    // right above the question, after the last diff.
    let question = screen.rfind("apply these changes?").unwrap();
    let recap = screen[..question].rfind("gk install will change").unwrap();
    let last_diff = screen[..question].rfind("@@ ").unwrap();
    assert!(last_diff < recap, "{screen}");
    assert!(
        screen[recap..question].contains("edit      ") && !screen[recap..question].contains("@@"),
        "{screen}"
    );
    assert!(!screen.contains("could not read the answer"), "{screen}");
    assert!(screen.contains("created"), "{screen}");
    assert!(screen.contains("next=[after]"), "{screen}");
    assert!(home.get(".claude/settings.json").contains("gk"));
}

#[test]
fn purge_leaves_no_empty_folder_no_task_record_and_names_the_program_still_there() {
    let home = user_setup();
    output(home.cmd().args(["install", "-y", "--no-smoke"]));
    let state = home.home().join(".local/state/gk");
    home.put(
        ".local/state/gk/0b7a4c2e-1111-4222-8333-944445555666.json",
        "{\"status\": \"clean\"}\n",
    );
    // The folder pointer Claude writes beside it goes too.
    let pointer = gk::testing::paths::folder_pointer_name("/w/p").unwrap();
    home.put(
        &format!(".local/state/gk/{pointer}"),
        "{\"session\": \"0b7a4c2e-1111-4222-8333-944445555666\"}\n",
    );
    let (code, out, err) = output(home.cmd().args(["uninstall", "--purge", "--dry-run"]));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("0b7a4c2e-1111-4222-8333-944445555666.json"),
        "the record is not in the plan:\n{out}"
    );
    let (code, out, err) = output(home.cmd().args(["uninstall", "--purge", "-y"]));
    assert_eq!(code, 0, "{err}");
    assert!(!state.exists(), "{out}");
    assert!(!home.claude().join("hooks").exists(), "{out}");
    assert!(home.claude().join("settings.json").exists());
    // The program the user ran is still on PATH: the output says where and
    // how it goes.
    let exe = assert_cmd::cargo::cargo_bin("gk");
    let line = out
        .lines()
        .find_map(|l| l.strip_prefix("gk itself is still at "))
        .unwrap_or_else(|| panic!("no word on the program:\n{out}"));
    let named = line
        .split(": delete")
        .next()
        .and_then(|p| p.split(" (put there").next())
        .unwrap();
    // The same file, however each side spells it (under Wine the test
    // sees a Linux path, gk a Z:\ one).
    assert_eq!(
        std::fs::canonicalize(named).ok(),
        std::fs::canonicalize(&exe).ok(),
        "{out}"
    );
    assert!(out.contains("cargo uninstall gk"), "{out}");
}

#[test]
fn purge_keeps_a_state_folder_that_holds_something_else() {
    let home = user_setup();
    output(home.cmd().args(["install", "-y", "--no-smoke"]));
    home.put(".local/state/gk/notes.txt", "mine\n");
    home.put(".claude/hooks/mine.sh", "echo\n");
    let (code, _, err) = output(home.cmd().args(["uninstall", "--purge", "-y"]));
    assert_eq!(code, 0, "{err}");
    assert_eq!(home.get(".local/state/gk/notes.txt"), "mine\n");
    assert_eq!(home.get(".claude/hooks/mine.sh"), "echo\n");
}

/// Measured on client 2.1.332: `"model": 5` makes the client skip the
/// whole file, so gk's hooks would never run from it. Install refuses,
/// naming the key, its line and column, and what to change.
#[test]
fn install_refuses_a_file_the_client_skips() {
    let home = user_setup();
    let text = "{\n  \"env\": {\"CI\": \"1\"},\n  \"model\": 5\n}\n";
    home.put(".claude/settings.json", text);
    let err = refused_at(&home, &["install", "-y", "--no-smoke"], ":3:12: model: ");
    assert!(
        err.contains("`model` must be a string, not a number; Claude Code skips this whole file: none of its hooks, permissions or env are in effect, so gk's hooks would never run there; correct model first"),
        "{err}"
    );
    // The same for a malformed PreToolUse hook of another tool.
    let text = "{\n  \"hooks\": {\n    \"PreToolUse\": [{\"matcher\": 1, \"hooks\": []}]\n  }\n}\n";
    home.put(".claude/settings.json", text);
    let err = refused_at(
        &home,
        &["install", "-y", "--no-smoke"],
        ":3:32: hooks.PreToolUse[0].matcher: ",
    );
    assert!(err.contains("gk's hooks would never run there"), "{err}");
}

/// The client loads a file with a key repeated outside `hooks` (it reads
/// the last copy) or with a part it drops: install edits it, says so in
/// the plan, and uninstall gives the bytes back.
#[test]
fn install_edits_a_loaded_file_with_a_repeated_key_and_a_dropped_part() {
    let home = user_setup();
    let text = "{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"PostToolUse\": [{\"matcher\": 5, \"hooks\": [{\"type\": \"command\", \"command\": \"prettier --write .\"}]}]\n  },\n  \"model\": \"sonnet\"\n}\n";
    home.put(".claude/settings.json", text);
    let (code, out, err) = output(home.cmd().args(["install", "-y", "--no-smoke"]));
    assert_eq!(code, 0, "{out}{err}");
    let settings = home.claude().join("settings.json");
    let all = format!("{out}{err}");
    assert!(
        all.contains(&format!(
            "note: {}:6:3: `model` appears twice; Claude Code reads the last one; gk leaves it as it is",
            settings.display()
        )),
        "{all}"
    );
    assert!(
        all.contains(&format!(
            "note: {}:4:33: hooks.PostToolUse[0].matcher: `matcher` must be a string; Claude Code ignores that part, and gk leaves it as it is",
            settings.display()
        )),
        "{all}"
    );
    let after = home.get(".claude/settings.json");
    assert_registered(&after, home.home(), ".claude", "prompt");
    assert!(after.contains("\"model\": \"opus\""), "{after}");
    assert!(after.ends_with("  \"model\": \"sonnet\"\n}\n"), "{after}");
    let (code, out, err) = output(home.cmd().args(["uninstall", "-y"]));
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(home.get(".claude/settings.json"), text);
}

/// `hooks` twice: gk's editor would change the first copy, the client
/// reads the last. Install refuses, saying so.
#[test]
fn install_refuses_hooks_written_twice() {
    let home = user_setup();
    let text = "{\n  \"hooks\": {},\n  \"hooks\": {\"Stop\": []}\n}\n";
    home.put(".claude/settings.json", text);
    let err = refused_at(&home, &["install", "-y", "--no-smoke"], ":3:3: ");
    assert!(
        err.contains("`hooks` appears twice; Claude Code reads the last one; gk's editor would change the first copy, and Claude Code reads the last: keep one copy by hand first"),
        "{err}"
    );
}

/// A record changed while `gk state` waits for the answer: the change is
/// kept, and the line says what happened to it. `set` asked for one
/// record's content, so a record written meanwhile is a failure (exit 1,
/// saying to run it again); `clean` of a record removed meanwhile says
/// it was removed, not "written again".
#[cfg(target_os = "linux")]
#[test]
fn a_record_changed_at_the_question_is_kept_and_reported_as_it_is() {
    let home = TestEnv::new();
    // gk's state folder on Unix is `$XDG_STATE_HOME/gk`.
    let xdg = home.root().join("xdg");
    let dir = xdg.join("gk");
    let record = dir.join("s1.json");
    let theirs = "{\"status\": \"in_progress\", \"task\": \"theirs\"}\n";
    // `gk state ARGS` in a terminal, `step` done at the question, then yes.
    let state = |args: &str, step: &mut dyn FnMut()| {
        in_a_terminal_steps(
            &home,
            &format!(
                "XDG_STATE_HOME='{}' GK state {args}; echo rc=$?",
                xdg.display()
            ),
            &mut [("apply these changes?", &mut || {
                step();
                "y\n".to_string()
            })],
            "rc=",
        )
    };
    let screen = state("set in_progress mine --session s1", &mut || {
        fs::create_dir_all(&dir).unwrap();
        fs::write(&record, theirs).unwrap();
    });
    assert_eq!(
        fs::read_to_string(&record).ok().as_deref(),
        Some(theirs),
        "{screen}"
    );
    let skipped = format!(
        "skipped   {} (written again since the plan was made: left as it is)",
        record.display()
    );
    assert!(screen.contains(&skipped), "{screen}");
    assert!(
        screen.contains(&format!(
            "gk: {}: not set, the record changed since the plan was made; run the command again",
            record.display()
        )),
        "{screen}"
    );
    assert!(screen.contains("rc=1"), "{screen}");

    let screen = state("clean s1", &mut || {
        fs::remove_file(&record).unwrap();
    });
    assert!(!record.exists(), "{screen}");
    assert!(
        screen.contains(&format!(
            "skipped   {} (removed since the plan was made: not written)",
            record.display()
        )),
        "{screen}"
    );
    assert!(screen.contains("rc=0"), "{screen}");

    // A link put in the record's place at the question (Claude writes the
    // folder): never written through, the file it names stays as it was.
    // The record was a copy of that file, so it reads as planned through
    // the link; `clean` rewrote `.bashrc` so.
    let outside = home.root().join(".bashrc");
    let text = "{\"status\": \"in_progress\", \"task\": \"x\"}\n";
    fs::write(&outside, text).unwrap();
    fs::write(&record, text).unwrap();
    let screen = state("clean s1", &mut || {
        fs::remove_file(&record).unwrap();
        std::os::unix::fs::symlink(&outside, &record).unwrap();
    });
    assert_eq!(fs::read_to_string(&outside).unwrap(), text, "{screen}");
    assert!(fs::symlink_metadata(&record).unwrap().is_symlink());
    assert!(
        screen.contains(&format!(
            "skipped   {} (a link or other file put there since the plan was made: left alone)",
            record.display()
        )),
        "{screen}"
    );
    assert!(screen.contains("rc=0"), "{screen}");
}
