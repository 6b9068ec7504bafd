//! `gk hook session` (SessionStart) as Claude Code runs it, in a temporary
//! HOME with a project folder: silent on a healthy install, one
//! `systemMessage` naming each problem and the `gk doctor` command for it
//! otherwise, gone after `gk doctor --fix`; switchable in gk.json; the hook
//! contract (exit 0, no stderr, at most one JSON line) on hostile events.
//! Hostile settings files (pipes, devices, huge, nested) are in
//! tests/adversarial.rs.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::common::{Run, TestEnv};

const SECRET: &str = "sk-session-SECRET-4242";

/// A HOME and a project folder with a `.claude` folder.
fn setup() -> TestEnv {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.project().join(".claude")).unwrap();
    env
}

/// `gk install`, as a user runs it, with user settings that already
/// hold a credential in `env` and another tool's hook.
fn installed() -> TestEnv {
    let env = setup();
    env.write(
        env.settings(),
        format!(
            "{{\n  \"env\": {{\"API_TOKEN\": \"{SECRET}\"}},\n  \"hooks\": {{\n    \"PreToolUse\": [{{\"matcher\": \"Bash\", \"hooks\": [{{\"type\": \"command\", \"command\": \"bash-guard --strict\"}}]}}]\n  }}\n}}\n"
        ),
    );
    let out = env.in_project(&["install", "--yes", "--no-smoke"], "");
    assert_eq!(
        out.code,
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    env
}

/// The session check as a test of it sees a [`TestEnv`].
trait Session {
    fn local_settings(&self) -> PathBuf;
    fn project_settings(&self) -> PathBuf;
    /// gk in this HOME, started in the project folder.
    fn in_project(&self, args: &[&str], stdin: &str) -> Run;
    /// The SessionStart event the client sends (measured), for `cwd`.
    fn event(&self, cwd: &Path) -> String;
    /// `gk hook session` for a session in the project folder: the hook
    /// contract checked, then its message (`None`: it printed nothing).
    fn session(&self) -> Option<String>;
    fn session_with(&self, stdin: &str) -> Option<String>;
    /// Register `command` under `event` in `file` (created if needed).
    fn register(&self, file: &Path, event: &str, command: &str);
    /// Another spelling of the installed gk: its absolute path with
    /// forward slashes, quoted (the installed entry is `"$HOME/…"`, or on
    /// Windows the exec form).
    fn variant(&self, hook: &str) -> String;
    fn project_arg(&self) -> String;
}

impl Session for TestEnv {
    fn local_settings(&self) -> PathBuf {
        self.project().join(".claude").join("settings.local.json")
    }

    fn project_settings(&self) -> PathBuf {
        self.project().join(".claude").join("settings.json")
    }

    fn in_project(&self, args: &[&str], stdin: &str) -> Run {
        self.gk(args).current_dir(self.project()).stdin(stdin).run()
    }

    fn event(&self, cwd: &Path) -> String {
        json!({
            "session_id": "3f2a9c1e-5b7d-4e8a-9c2f-1a2b3c4d5e6f",
            "transcript_path": "/tmp/t.jsonl",
            "cwd": cwd,
            "hook_event_name": "SessionStart",
            "source": "startup",
        })
        .to_string()
    }

    fn session(&self) -> Option<String> {
        self.session_with(&self.event(&self.project()))
    }

    fn session_with(&self, stdin: &str) -> Option<String> {
        let run = self.in_project(&["hook", "session"], stdin);
        run.assert_hook_contract("gk hook session");
        if run.stdout.is_empty() {
            return None;
        }
        let v = run.json();
        let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["systemMessage"], "{v}");
        let msg = v["systemMessage"].as_str().unwrap().to_string();
        assert!(
            !msg.contains(SECRET),
            "a settings value reached the message: {msg}"
        );
        for line in msg.lines() {
            assert!(line.starts_with("gk: "), "{line}");
            assert!(line.contains(" -- gk doctor"), "no doctor command: {line}");
        }
        Some(msg)
    }

    fn register(&self, file: &Path, event: &str, command: &str) {
        let mut v: Value = std::fs::read_to_string(file)
            .ok()
            .filter(|t| !t.trim().is_empty())
            .map(|t| serde_json::from_str(&t).unwrap())
            .unwrap_or_else(|| json!({}));
        let groups = v
            .as_object_mut()
            .unwrap()
            .entry("hooks")
            .or_insert(json!({}))
            .as_object_mut()
            .unwrap()
            .entry(event)
            .or_insert(json!([]));
        groups
            .as_array_mut()
            .unwrap()
            .push(json!({"hooks": [{"type": "command", "command": command}]}));
        self.write(file, serde_json::to_string_pretty(&v).unwrap());
    }

    fn variant(&self, hook: &str) -> String {
        format!(
            "\"{}\" hook {hook}",
            self.binary().to_string_lossy().replace('\\', "/")
        )
    }

    fn project_arg(&self) -> String {
        self.project().display().to_string()
    }
}

#[test]
fn a_healthy_install_says_nothing_at_all() {
    let s = installed();
    // A project of its own, with hooks of other tools and local settings.
    s.register(&s.project_settings(), "PostToolUse", "npx prettier --write");
    s.write(
        s.local_settings(),
        "{\"permissions\": {\"allow\": [\"Bash(ls:*)\"]}}\n",
    );
    assert_eq!(s.session(), None);
    // Resumed, cleared, compacted: the same.
    for source in ["resume", "clear", "compact"] {
        let mut ev: Value = serde_json::from_str(&s.event(&s.project())).unwrap();
        ev["source"] = Value::from(source);
        assert_eq!(s.session_with(&ev.to_string()), None, "{source}");
    }
}

#[test]
fn a_path_variant_warns_until_doctor_fixes_it() {
    let s = installed();
    s.register(
        &s.local_settings(),
        "UserPromptSubmit",
        &s.variant("prompt"),
    );
    let msg = s.session().expect("a warning");
    assert_eq!(msg.lines().count(), 1, "{msg}");
    assert!(
        msg.starts_with(
            "gk: gk's prompt hook runs twice on every UserPromptSubmit: it is registered under 2 different commands (user settings "
        ),
        "{msg}"
    );
    assert!(
        msg.contains(&format!("local settings {}:", s.local_settings().display())),
        "{msg}"
    );
    let fix = format!(" -- gk doctor --fix --project {}", s.project_arg());
    assert!(msg.ends_with(&fix), "{msg}");

    // The command it names does what it says.
    let project = s.project_arg();
    let out = s.in_project(
        &[
            "doctor",
            "--fix",
            "--yes",
            "--no-smoke",
            "--project",
            &project,
        ],
        "",
    );
    // What is left is a warning about the other tool's hook (`bash-guard`
    // is not on PATH here), which the session check does not look up.
    assert_eq!(out.code, Some(1), "{}", out.stdout_text());
    assert!(
        out.stdout_text().contains("[hook-program-not-found]"),
        "{}",
        out.stdout_text()
    );
    assert_eq!(s.session(), None);
}

#[test]
fn a_settings_file_that_is_not_json_is_named_at_line_and_column() {
    let s = installed();
    s.write(
        s.local_settings(),
        format!("{{\n  \"env\": {{\"TOKEN\": \"{SECRET}\"}},\n}}\n"),
    );
    let msg = s.session().unwrap();
    // At the comma, line 2 (not at the `}` after it).
    let comma = format!("  \"env\": {{\"TOKEN\": \"{SECRET}\"}},").len();
    assert_eq!(
        msg,
        format!(
            "gk: {}:2:{comma}: not valid JSON: trailing comma; Claude Code skips this whole file (local settings): none of its hooks, permissions or env are in effect -- gk doctor --project {}",
            s.local_settings().display(),
            s.project_arg()
        )
    );
    // The user file broken: its hooks do not load either, and the message
    // says so in a few lines.
    let text = std::fs::read_to_string(s.settings()).unwrap();
    s.write(s.settings(), text.replacen('{', "{\n  // mine", 1));
    let msg = s.session().unwrap();
    let lines: Vec<&str> = msg.lines().collect();
    assert!(
        lines[0].starts_with(&format!("gk: {}:2:3: ", s.settings().display())),
        "{msg}"
    );
    assert!(
        lines[2].starts_with("gk: gk's prompt hook (UserPromptSubmit) is not registered"),
        "{msg}"
    );
    // `--fix` cannot write the file the client skips: doctor, which says
    // to correct it first.
    assert!(lines[2].ends_with(" -- gk doctor"), "{msg}");
}

#[test]
fn a_missing_gk_program_is_named_with_the_events_that_fail() {
    let s = installed();
    std::fs::remove_file(s.binary()).unwrap();
    let msg = s.session().unwrap();
    assert!(msg.starts_with("gk: "), "{msg}");
    assert!(
        msg.contains("does not exist, so every UserPromptSubmit, Stop and SessionStart fails (registered in user settings "),
        "{msg}"
    );
    assert!(msg.ends_with(" -- gk doctor --fix"), "{msg}");
    assert_eq!(msg.lines().count(), 1, "{msg}");
}

/// A state folder no record can be written in: Claude's every record
/// write fails, so the session check says so at the start, in install's
/// and doctor's words, and stays silent once the folder can be made. In
/// global scope the records are not there, and it says nothing of it.
#[test]
fn a_state_folder_that_cannot_be_made_is_named_at_the_start() {
    let s = installed();
    let parent = s.root().join("state-parent");
    let dir = parent.join("gk");
    let run = |config: Option<&str>| {
        if let Some(text) = config {
            s.write_config(text);
        }
        let run = s
            .gk(["hook", "session"])
            .env("GK_STATE_DIR", &dir)
            .current_dir(s.project())
            .stdin(s.event(&s.project()))
            .run();
        run.assert_hook_contract("gk hook session");
        (!run.stdout.is_empty()).then(|| run.json()["systemMessage"].as_str().unwrap().to_string())
    };
    // Missing, with a folder above it: made at Claude's first write.
    assert_eq!(run(None), None);
    // A file where a folder of its path should be.
    std::fs::write(&parent, "not a folder").unwrap();
    let msg = run(None).unwrap();
    assert_eq!(
        msg,
        format!(
            "gk: the state folder {} cannot be made: {} is not a folder; Claude cannot keep its task record -- gk doctor",
            dir.display(),
            parent.display()
        )
    );
    // Doctor says the same of it.
    let doctor = s
        .gk(["doctor", "--json", "--no-smoke"])
        .env("GK_STATE_DIR", &dir)
        .current_dir(s.project())
        .run();
    assert!(
        doctor.stdout_text().contains("state-folder-unwritable"),
        "{doctor:?}"
    );
    assert_eq!(run(Some(r#"{"state": {"scope": "global"}}"#)), None);
    std::fs::remove_file(&parent).unwrap();
    s.write_config("{}");
    // A link to nothing where the folder should be (Unix: links need no
    // rights there).
    #[cfg(unix)]
    {
        std::fs::create_dir(&parent).unwrap();
        std::os::unix::fs::symlink(s.root().join("unmounted"), &dir).unwrap();
        let msg = run(None).unwrap();
        assert_eq!(
            msg,
            format!(
                "gk: the state folder {} is a link to {}, which is not there; Claude cannot keep its task record -- gk doctor",
                dir.display(),
                s.root().join("unmounted").display()
            )
        );
        std::fs::create_dir(s.root().join("unmounted")).unwrap();
        assert_eq!(run(None), None);
    }
}

#[test]
fn a_folder_where_gk_should_be_is_named_as_a_folder() {
    let s = installed();
    std::fs::remove_file(s.binary()).unwrap();
    std::fs::create_dir(s.binary()).unwrap();
    let msg = s.session().unwrap();
    assert!(
        msg.contains(&format!(
            "{} is a folder, not a program, so every UserPromptSubmit, Stop and SessionStart fails",
            s.binary().display()
        )),
        "{msg}"
    );
    assert_eq!(msg.lines().count(), 1, "{msg}");
}

#[cfg(unix)]
#[test]
fn a_named_pipe_where_gk_should_be_is_named_and_never_waited_on() {
    let s = installed();
    std::fs::remove_file(s.binary()).unwrap();
    crate::common::hooks::mkfifo(&s.binary());
    let msg = s.session().unwrap();
    assert!(
        msg.contains(&format!(
            "{} is a named pipe, not a program, so every",
            s.binary().display()
        )),
        "{msg}"
    );
}

#[test]
fn the_hook_in_two_spellings_and_under_the_wrong_event() {
    let s = installed();
    s.register(&s.settings(), "SessionStart", &s.variant("session"));
    s.register(&s.settings(), "Stop", &s.variant("prompt"));
    let msg = s.session().unwrap();
    let lines: Vec<&str> = msg.lines().collect();
    assert_eq!(lines.len(), 2, "{msg}");
    assert!(
        lines[0].starts_with("gk: gk's session hook runs twice on every SessionStart"),
        "{msg}"
    );
    assert!(
        lines[1].starts_with("gk: `gk hook prompt` is registered under Stop in user settings "),
        "{msg}"
    );
    assert!(lines[1].ends_with("; it belongs under UserPromptSubmit -- gk doctor --fix"));
}

#[test]
fn managed_settings_are_read_and_their_problems_left_to_doctor() {
    let s = installed();
    let managed = s.managed_settings();
    s.write(&managed, "{\"hooks\": {}, }");
    let msg = s.session().unwrap();
    assert_eq!(
        msg,
        format!(
            "gk: {}:1:13: not valid JSON: trailing comma; Claude Code skips this whole file (managed settings): none of its hooks, permissions or env are in effect -- gk doctor",
            managed.display()
        )
    );
    // Forty broken drop-ins: still a few short lines.
    let dropins = managed.parent().unwrap().join("managed-settings.d");
    for i in 0..40 {
        s.write(dropins.join(format!("{i:02}.json")), "{,}");
    }
    let msg = s.session().unwrap();
    let lines: Vec<&str> = msg.lines().collect();
    assert_eq!(lines.len(), 6, "{msg}");
    assert_eq!(lines[5], "gk: 36 more problems -- gk doctor");
    assert!(msg.len() < 2_000, "{}", msg.len());
}

#[test]
fn switched_off_in_gk_json_it_says_nothing_and_rules_shows_the_switch() {
    let s = installed();
    s.write(s.local_settings(), "{,}");
    assert!(s.session().is_some());
    let out = s.in_project(&["disable", "session", "--yes"], "");
    assert_eq!(out.code, Some(0), "{}", out.stdout_text());
    let config: Value =
        serde_json::from_str(&std::fs::read_to_string(s.config_path()).unwrap()).unwrap();
    assert_eq!(config["session"], json!({"enabled": false}));
    assert_eq!(s.session(), None);
    let rules: Value = serde_json::from_str(&s.in_project(&["rules"], "").stdout_text()).unwrap();
    assert_eq!(rules["session"], json!({"enabled": false}));
    assert_eq!(rules["prompt"], json!({"enabled": true}));
    let out = s.in_project(&["enable", "session", "--yes"], "");
    assert_eq!(out.code, Some(0), "{}", out.stdout_text());
    assert!(s.session().is_some());
    // gk.json itself broken: one line for it, and the check still runs.
    s.write_config("{\"sesion\": {}}");
    let msg = s.session().unwrap();
    assert!(
        msg.starts_with(&format!(
            "gk: {}:1:9: unknown field `sesion`",
            s.config_path().display()
        )),
        "{msg}"
    );
    assert!(msg.lines().count() == 2, "{msg}");
    // A gk.json broken elsewhere still keeps the check off when it says so,
    // as it does for the other two hooks.
    s.write_config("{\"session\": {\"enabled\": false}, \"models\": 3}");
    assert_eq!(s.session(), None);
}

#[test]
fn the_event_decides_the_project_and_a_bad_one_never_breaks_the_hook() {
    let s = installed();
    // A broken file in the folder the hook is started in.
    s.write(s.local_settings(), "{,}");
    let elsewhere = s.root().join("work").join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let file = s.config_path();
    s.write_config("{}");
    // The event's folder is the project: the started-in one is not read.
    assert_eq!(s.session_with(&s.event(&elsewhere)), None);
    // A folder that is not there, a file, a relative path: no project settings.
    for cwd in [
        json!(elsewhere.join("gone")),
        json!(file),
        json!("work/project"),
    ] {
        let ev = json!({"hook_event_name": "SessionStart", "cwd": cwd}).to_string();
        assert_eq!(s.session_with(&ev), None, "{cwd}");
    }
    // No usable cwd, or no event at all: the folder the hook runs in.
    for stdin in [
        json!({"hook_event_name": "SessionStart"}).to_string(),
        json!({"cwd": 42}).to_string(),
        json!({"cwd": null}).to_string(),
        json!({"cwd": ""}).to_string(),
        "[1, 2]".to_string(),
        "not json at all".to_string(),
        "{\"cwd\": \"/trunc".to_string(),
        String::new(),
        "\u{0}\u{0}".to_string(),
    ] {
        let msg = s
            .session_with(&stdin)
            .unwrap_or_else(|| panic!("{stdin:?}: the local file was not read"));
        assert!(
            msg.contains("settings.local.json:1:2: "),
            "{stdin:?}: {msg}"
        );
    }
}

#[test]
fn without_home_variables_the_contract_holds() {
    let s = setup();
    let out = s
        .gk(["hook", "session"])
        .env_remove("HOME")
        .env_remove("USERPROFILE")
        .current_dir(s.project())
        .stdin(s.event(&s.project()))
        .run();
    assert_eq!(out.code, Some(0));
    assert!(out.stderr.is_empty());
    // std::env::home_dir may still find the account's home through the system;
    // either way the contract holds and no stderr is written.
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.is_empty() || text.ends_with("}\n"), "{text}");
}

#[test]
fn claude_config_dir_decides_the_user_settings() {
    let s = setup();
    let cfg = s.root().join("cfg");
    s.write(cfg.join("settings.json"), "{\"hooks\": [}");
    let run = s
        .gk(["hook", "session"])
        .env("CLAUDE_CONFIG_DIR", &cfg)
        .current_dir(s.project())
        .stdin(s.event(&s.project()))
        .run();
    run.assert_hook_contract("CLAUDE_CONFIG_DIR");
    let msg = run.system_message();
    assert!(
        msg.starts_with(&format!(
            "gk: {}:1:12: ",
            cfg.join("settings.json").display()
        )),
        "{msg}"
    );
}

/// The session check's words, whole, for a file the client skips (a known
/// setting of the wrong type: measured on 2.1.332), a part it drops (a
/// string `timeout`), and a plugin the project enables that this machine
/// never installed (nothing: no hook the user set up fails).
#[test]
fn the_words_for_a_skipped_file_a_dropped_part_and_a_never_installed_plugin() {
    let s = installed();
    s.write(
        s.project_settings(),
        format!("{{\n  \"env\": {{\"TOKEN\": \"{SECRET}\"}},\n  \"model\": 5\n}}\n"),
    );
    s.write(
        s.local_settings(),
        "{\n  \"hooks\": {\n    \"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"notify.sh\", \"timeout\": \"30\"}]}]\n  },\n  \"enabledPlugins\": {\"formatter@acme-tools\": true}\n}\n",
    );
    let msg = s.session().unwrap();
    let project = s.project_settings();
    assert_eq!(
        msg,
        format!(
            "gk: {}:3:12: model: `model` must be a string, not a number; Claude Code skips this whole file (project settings): none of its hooks, permissions or env are in effect -- gk doctor --project {p}\n\
             gk: {}:3:25: hooks.Stop[0].hooks[0]: `timeout` of a command hook must be a number; Claude Code ignores this entry (local settings), so its hooks never run -- gk doctor --project {p}",
            project.display(),
            s.local_settings().display(),
            p = s.project_arg()
        )
    );
    // The never-installed plugin alone: nothing at all.
    s.write(&project, "{}\n");
    s.write(
        s.local_settings(),
        "{\"enabledPlugins\": {\"formatter@acme-tools\": true}}\n",
    );
    assert_eq!(s.session(), None);
}
