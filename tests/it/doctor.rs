//! `gk doctor` end to end, in a temporary HOME: one setup per finding code
//! that triggers it, a healthy install (made by `gk install --yes`) that
//! triggers none, the exit codes, the `--json` shape, `--fix` on every
//! fixable case followed by a clean doctor, and secrets never shown.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::doctor::{doc_findings, finding};
use crate::common::{set_age, Gk, Run, TestEnv};

const SECRET: &str = "sk-ant-api03-SECRETVALUE-do-not-print";
const PROXY: &str = "http://alice:hunter2hunter2@proxy.internal:8080";

/// What these tests do in a [`TestEnv`]: every run from the project folder.
trait DoctorEnv {
    fn cmd(&self) -> Gk;
    fn install(&self);
    fn install_with_secrets(&self);
    fn doctor(&self, args: &[&str]) -> Run;
    fn codes(&self, extra: &[&str]) -> (i32, Vec<String>, Value);
    fn register(&self, file: &Path, event: &str, command: &str);
    fn set_key(&self, file: &Path, key: &str, value: Value);
    fn wrap_prompt_hook_in_a_redirect(&self);
    fn local(&self) -> PathBuf;
    fn project_settings(&self) -> PathBuf;
    fn fix_then_clean(&self);
    fn fix_leaves_settings_saying(&self, says: &str);
}

impl DoctorEnv for TestEnv {
    fn cmd(&self) -> Gk {
        let mut gk = self.gk::<[&str; 0], &str>([]);
        gk.current_dir(self.project());
        gk
    }

    /// A healthy install, made the way a user makes it.
    fn install(&self) {
        let out = self.cmd().args(["install", "--yes", "--no-smoke"]).output();
        assert!(
            out.status.success(),
            "install failed: {}",
            text(&out.stderr)
        );
    }

    /// A healthy install whose user settings also hold an `env` with secrets.
    fn install_with_secrets(&self) {
        self.write(
            self.settings(),
            format!(
                "{{\n  \"env\": {{\n    \"ANTHROPIC_API_KEY\": \"{SECRET}\",\n    \"HTTPS_PROXY\": \"{PROXY}\"\n  }},\n  \"model\": \"opus\"\n}}\n"
            ),
        );
        self.install();
    }

    fn doctor(&self, args: &[&str]) -> Run {
        self.cmd().arg("doctor").args(args).run()
    }

    /// Finding codes from `--json` (smoke tests off unless asked).
    fn codes(&self, extra: &[&str]) -> (i32, Vec<String>, Value) {
        let mut args = vec!["--json"];
        args.extend_from_slice(extra);
        if !extra.contains(&"--smoke") {
            args.push("--no-smoke");
        } else {
            args.retain(|a| *a != "--smoke");
        }
        let run = self.doctor(&args);
        let doc: Value = serde_json::from_slice(&run.stdout).unwrap_or_else(|e| {
            panic!(
                "not JSON ({e}): {}\n{}",
                run.stdout_text(),
                run.stderr_text()
            )
        });
        let mut codes: Vec<String> = doc["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["severity"] != "info")
            .map(|f| f["code"].as_str().unwrap().to_string())
            .collect();
        let mut code = run.code.unwrap_or(-1);
        if cfg!(gk_wine) && codes.iter().any(|c| c == "hook-slow") {
            // Wine gap: starting a Windows program under Wine takes 0.3–1 s
            // on this machine, over the 500 ms hook-slow threshold. The
            // finding is true of Wine, not of gk (a warning: exit 1 when it
            // is the worst one).
            codes.retain(|c| c != "hook-slow");
            if code == 1 && codes.is_empty() {
                code = 0;
            }
        }
        (code, codes, doc)
    }

    /// Add a handler to a settings file (created if needed) with serde_json.
    fn register(&self, file: &Path, event: &str, command: &str) {
        let mut v: Value = match std::fs::read_to_string(file) {
            Ok(t) if !t.trim().is_empty() => {
                serde_json::from_str(t.trim_start_matches('\u{feff}')).unwrap()
            }
            _ => serde_json::json!({}),
        };
        let hooks = v
            .as_object_mut()
            .unwrap()
            .entry("hooks")
            .or_insert(serde_json::json!({}));
        let groups = hooks
            .as_object_mut()
            .unwrap()
            .entry(event)
            .or_insert(serde_json::json!([]));
        groups.as_array_mut().unwrap().push(serde_json::json!({
            "hooks": [{"type": "command", "command": command}]
        }));
        self.write(file, serde_json::to_string_pretty(&v).unwrap());
    }

    fn set_key(&self, file: &Path, key: &str, value: Value) {
        let mut v: Value = match std::fs::read_to_string(file) {
            Ok(t) if !t.trim().is_empty() => serde_json::from_str(&t).unwrap(),
            _ => serde_json::json!({}),
        };
        v.as_object_mut().unwrap().insert(key.to_string(), value);
        self.write(file, serde_json::to_string_pretty(&v).unwrap());
    }

    /// Replace the prompt hook install registered by the same program
    /// behind a redirect, as a shell-form string (`"<binary>" hook prompt
    /// 2>/dev/null`): a command doctor cannot decide.
    fn wrap_prompt_hook_in_a_redirect(&self) {
        let mut v: Value = serde_json::from_str(&self.read(self.settings())).unwrap();
        let wrapped = format!("\"{}\" hook prompt 2>/dev/null", self.binary().display());
        v["hooks"]["UserPromptSubmit"][0]["hooks"][0] =
            serde_json::json!({"type": "command", "command": wrapped});
        self.write(self.settings(), serde_json::to_string_pretty(&v).unwrap());
    }

    fn local(&self) -> PathBuf {
        self.project().join(".claude").join("settings.local.json")
    }

    fn project_settings(&self) -> PathBuf {
        self.project().join(".claude").join("settings.json")
    }

    /// `--fix --yes` says `says` and leaves the user settings as they were.
    fn fix_leaves_settings_saying(&self, says: &str) {
        let before = self.read(self.settings());
        let fix = self.doctor(&["--fix", "--yes", "--no-smoke"]);
        assert!(fix.stdout_text().contains(says), "{}", fix.stdout_text());
        assert_eq!(self.read(self.settings()), before);
    }

    /// `--fix --yes`, then a doctor that must be clean.
    fn fix_then_clean(&self) {
        let fix = self.doctor(&["--fix", "--yes", "--no-smoke"]);
        assert_eq!(
            fix.code,
            Some(0),
            "fix did not end clean:\n{}\n{}",
            fix.stdout_text(),
            fix.stderr_text()
        );
        assert!(
            fix.stdout_text().contains("After the fix:"),
            "{}",
            fix.stdout_text()
        );
        let (code, codes, _) = self.codes(&["--smoke"]);
        assert_eq!(
            (code, codes.clone()),
            (0, vec![]),
            "not clean after --fix: {codes:?}"
        );
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn has(codes: &[String], code: &str) -> bool {
    codes.iter().any(|c| c == code)
}

/// Set the modification time of `path` (the age the hooks go by).
fn last_written_hours_ago(path: &Path, hours: u64) {
    set_age(path, hours * 3600);
}

// ---------------------------------------------------------------- healthy

#[test]
fn a_fresh_install_is_healthy_with_smoke_tests() {
    let h = TestEnv::new();
    h.install();
    let (code, codes, doc) = h.codes(&["--smoke"]);
    assert_eq!((code, codes), (0, vec![]));
    // Under Wine a loaded machine can take a Windows process start past
    // the 500 ms hook-slow threshold (`codes` drops that finding there);
    // the smoke check then says "warning" for a reason that is Wine's.
    let slow = |doc: &Value| {
        cfg!(gk_wine)
            && doc["findings"]
                .as_array()
                .unwrap()
                .iter()
                .any(|f| f["code"] == "hook-slow")
    };
    let checks = doc["summary"]["checks"].as_array().unwrap();
    assert!(
        checks
            .iter()
            .all(|c| c["status"] == "ok" || (slow(&doc) && c["name"] == "smoke")),
        "{checks:?}"
    );
    let run = h.doctor(&[]);
    if !run.stdout_text().contains("[hook-slow]") || !cfg!(gk_wine) {
        assert_eq!(run.code, Some(0), "{}", run.stdout_text());
        assert!(run.stdout_text().contains("[✓] Smoke test"));
        assert!(run.stdout_text().contains("No issues found."));
    }
}

/// The normal state while working: an earlier session in the project
/// folder left its task in progress (its record, and the folder's pointer
/// naming it). The session check then tells the user and gives Claude the
/// story, which is what a working hook prints: doctor and install both
/// pass their smoke tests.
#[test]
fn a_task_in_progress_in_this_folder_passes_the_smoke_tests() {
    let h = TestEnv::new();
    h.install();
    let state = h.home().join(".local/state/gk");
    h.write(
        state.join("aaaa-1.json"),
        r#"{"status": "in_progress", "task": "Refactor parser"}"#,
    );
    let key = gk::testing::paths::folder_key(
        gk::testing::platform::Os::current(),
        &h.project().to_string_lossy(),
    )
    .unwrap();
    h.write(
        state.join(gk::testing::paths::folder_pointer_name(&key).unwrap()),
        r#"{"session": "aaaa-1"}"#,
    );
    let (code, codes, doc) = h.codes(&["--smoke"]);
    assert_eq!((code, codes), (0, vec![]), "{doc}");
    let out = h.cmd().args(["install", "--yes"]).output();
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains(
            "  it reports: gk: an earlier session in this folder left 'Refactor parser' in progress"
        ),
        "{stdout}"
    );
}

/// A failing hook's suggested command reproduces the run: typed into `sh`
/// it prints what the smoke run printed (here the payload the hook read
/// and the project folder it was given).
#[cfg(unix)]
#[test]
fn the_command_to_run_a_failing_hook_by_hand_reproduces_the_run() {
    let h = TestEnv::new();
    h.install();
    write_script(
        &h.binary(),
        "#!/bin/sh\nprintf 'dir=%s ' \"$CLAUDE_PROJECT_DIR\"; cat; exit 3\n",
    );
    let (_, _, doc) = h.codes(&["--smoke"]);
    let f = doc_findings(&doc, "hook-smoke-failed")
        .into_iter()
        .find(|f| f["message"].as_str().unwrap().contains("hook session"))
        .unwrap();
    let fix = f["fix"].as_str().unwrap();
    let line = fix.strip_prefix("run it by hand to see why: ").unwrap();
    let out = assert_cmd::Command::from_std(h.command("/bin/sh"))
        .args(["-c", line])
        .output()
        .unwrap();
    let printed = text(&out.stdout);
    assert_eq!(out.status.code(), Some(3));
    assert!(
        printed.starts_with(&format!("dir={} {{", h.project().display())),
        "{printed}"
    );
    assert!(
        printed.contains(r#""hook_event_name":"SessionStart""#),
        "{printed}"
    );
}

#[test]
fn verbose_shows_what_was_read_and_run() {
    let h = TestEnv::new();
    h.install();
    let quiet = h.doctor(&[]);
    let loud = h.doctor(&["-v"]);
    assert!(!quiet.stdout_text().contains("passed in"));
    assert!(
        loud.stdout_text().contains("passed in"),
        "{}",
        loud.stdout_text()
    );
    assert!(loud.stdout_text().contains("user settings"));
}

#[test]
fn claude_config_dir_is_honoured() {
    let h = TestEnv::new();
    let cfg = h.home().join("elsewhere/claude");
    std::fs::create_dir_all(&cfg).unwrap();
    let ok = h
        .cmd()
        .env("CLAUDE_CONFIG_DIR", &cfg)
        .args(["install", "--yes", "--no-smoke"])
        .output();
    assert!(ok.status.success(), "{}", text(&ok.stderr));
    let out = h
        .cmd()
        .env("CLAUDE_CONFIG_DIR", &cfg)
        .args(["doctor", "--json", "--no-smoke"])
        .output();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{doc}");
    // Without the variable, ~/.claude is empty: hooks missing.
    let (_, codes, _) = h.codes(&[]);
    assert!(has(&codes, "hook-missing"));
}

// ---------------------------------------------------------- settings files

#[test]
fn settings_unparseable_names_line_and_column_and_skips_the_file() {
    let h = TestEnv::new();
    h.install();
    let good = h.read(h.settings());
    // A comment on line 2: strict JSON rejects it.
    let broken = good.replacen("{\n", "{\n  // mine\n", 1);
    h.write(h.settings(), &broken);
    let (code, codes, doc) = h.codes(&[]);
    assert_eq!(code, 2);
    assert!(has(&codes, "settings-unparseable"));
    // The gk entries are in the skipped file: Claude Code runs none of
    // them, but the one thing to do is correct the file: one finding.
    assert_eq!(codes, vec!["settings-unparseable".to_string()], "{doc}");
    let f = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "settings-unparseable")
        .unwrap();
    assert_eq!(f["line"], 2);
    assert!(f["message"].as_str().unwrap().contains(":2:3:"), "{f}");
}

#[test]
fn a_trailing_comma_is_one_finding_at_the_comma() {
    let h = TestEnv::new();
    h.install();
    let good = h.read(h.settings());
    // `}` then `,` on the line before the file's last `}`.
    let end = good.trim_end().len() - 1;
    let before = good[..end].trim_end().len();
    let broken = format!("{},{}", &good[..before], &good[before..]);
    let comma_line = broken[..before].lines().count();
    h.write(h.settings(), &broken);
    let run = h.doctor(&["--no-smoke"]);
    assert_eq!(run.code, Some(2), "{}", run.stdout_text());
    assert_eq!(
        run.stdout_text().matches("correct").count(),
        1,
        "{}",
        run.stdout_text()
    );
    assert!(
        run.stdout_text()
            .contains("Doctor found 1 error and 0 warnings"),
        "{}",
        run.stdout_text()
    );
    let at = format!("settings.json:{comma_line}:");
    assert!(
        run.stdout_text().contains(&at),
        "not at {at}:\n{}",
        run.stdout_text()
    );
    // What the skipped file costs is said under the one finding.
    assert!(
        run.stdout_text().contains("UserPromptSubmit"),
        "{}",
        run.stdout_text()
    );
}

#[test]
fn settings_bom_is_a_warning() {
    let h = TestEnv::new();
    h.install();
    let good = h.read(h.settings());
    h.write(h.settings(), format!("\u{feff}{good}"));
    let (code, codes, _) = h.codes(&[]);
    assert_eq!((code, codes), (1, vec!["settings-bom".to_string()]));
}

#[test]
fn settings_schema_matcher_array_voids_the_file_under_pre_tool_use_only() {
    // Measured on 2.1.332: a matcher that is not a string under PreToolUse
    // (or PermissionRequest) makes the client skip the whole file; under
    // another event it drops that group alone.
    let h = TestEnv::new();
    h.install();
    let variant = r#"{"type": "command", "command": "~/.claude/hooks/gk hook prompt"}"#;
    h.write(
        h.project_settings(),
        format!(
            r#"{{"hooks": {{"PreToolUse": [{{"matcher": ["x"], "hooks": []}}], "UserPromptSubmit": [{{"hooks": [{variant}]}}]}}}}"#
        ),
    );
    let (code, codes, doc) = h.codes(&[]);
    assert_eq!(code, 2, "{doc}");
    assert_eq!(codes, ["settings-schema"], "{doc}");
    let f = finding(&doc, "settings-schema");
    assert!(
        f["message"].as_str().unwrap().ends_with(": hooks.PreToolUse[0].matcher: `matcher` must be a string; Claude Code skips this whole file: none of its hooks, permissions or env are in effect"),
        "{f}"
    );
    // The variant spelling sits in a file Claude Code skips: it does not run.
    assert!(!has(&codes, "hook-fires-twice"), "{codes:?}");

    // Under UserPromptSubmit: that group is dropped, a warning; the
    // variant in it does not run either.
    h.write(
        h.project_settings(),
        format!(
            r#"{{"hooks": {{"UserPromptSubmit": [{{"matcher": ["x"], "hooks": [{variant}]}}]}}}}"#
        ),
    );
    let (code, codes, doc) = h.codes(&[]);
    assert_eq!(
        (code, codes),
        (1, vec!["settings-part-dropped".to_string()]),
        "{doc}"
    );
    let f = finding(&doc, "settings-part-dropped");
    assert_eq!(f["severity"], "warning", "{f}");
    assert!(
        f["message"].as_str().unwrap().contains(": hooks.UserPromptSubmit[0].matcher: `matcher` must be a string; Claude Code ignores this entry (its hooks never run); the rest of the file is in effect"),
        "{f}"
    );
}

#[test]
fn settings_schema_a_key_twice_outside_hooks_is_not_reported_and_is_fixed_around() {
    // Measured on 2.1.332: the client reads the last `env` and loads the
    // file. Doctor says nothing of it, and --fix edits the file around it.
    let h = TestEnv::new();
    h.install();
    h.register(&h.settings(), "Stop", "~/.claude/hooks/gk hook stop");
    let good = h.read(h.settings());
    let twice = good.replacen(
        "{\n",
        "{\n  \"env\": {\"A\": \"1\"},\n  \"env\": {\"B\": \"2\"},\n",
        1,
    );
    h.write(h.settings(), &twice);
    let (code, codes, doc) = h.codes(&[]);
    assert_eq!(code, 2, "{doc}");
    assert_eq!(codes, ["hook-fires-twice"], "{doc}");
    let fix = h.doctor(&["--fix", "--yes", "--no-smoke"]);
    assert_eq!(
        fix.code,
        Some(0),
        "{}{}",
        fix.stdout_text(),
        fix.stderr_text()
    );
    let after = h.read(h.settings());
    assert!(!after.contains("~/.claude/hooks/gk hook stop"), "{after}");
    assert!(
        after.starts_with("{\n  \"env\": {\"A\": \"1\"},\n  \"env\": {\"B\": \"2\"},\n"),
        "{after}"
    );
}

#[test]
fn settings_schema_hooks_twice_blocks_the_fix_and_says_why() {
    // `hooks` twice: the client reads the last copy; gk's editor would
    // change the first. Doctor says nothing of the key (the client loads
    // the file), and --fix refuses, saying why.
    let h = TestEnv::new();
    h.install();
    let good = h.read(h.settings());
    let twice = good.replacen("{\n", "{\n  \"hooks\": {},\n", 1);
    h.write(h.settings(), &twice);
    h.write(h.local(), r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "~/.claude/hooks/gk hook stop"}]}]}}"#);
    let (code, codes, doc) = h.codes(&[]);
    assert_eq!(code, 2, "{doc}");
    assert_eq!(codes, ["hook-fires-twice"], "{doc}");
    h.fix_leaves_settings_saying("appears twice");
}

/// A broken event gk does not own a hook in breaks the shape gk's editors
/// walk: doctor must not offer a fix `--fix` then cannot make. (Found by
/// review: doctor said "can fix 2 of them", and `--fix --yes` stopped at
/// `hooks.SessionStart must be an array` having fixed nothing.)
#[test]
fn a_broken_event_blocks_the_fix_and_doctor_says_so_before_it_is_asked() {
    // SessionStart is gk's own event: an edit there would have to guess.
    // (Notification, an event gk has nothing in, is edited around:
    // a_broken_event_gk_has_nothing_in_is_edited_around.)
    {
        let event = "SessionStart";
        let h = TestEnv::new();
        h.install();
        let mut v: Value = serde_json::from_str(&h.read(h.settings())).unwrap();
        v["hooks"][event] = serde_json::json!({"oops": 1});
        h.write(h.settings(), serde_json::to_string_pretty(&v).unwrap());
        h.register(
            &h.local(),
            "UserPromptSubmit",
            "~/.claude/hooks/gk hook prompt",
        );
        let (code, codes, doc) = h.codes(&[]);
        assert_eq!(code, 2, "{doc}");
        assert!(has(&codes, "settings-part-dropped"), "{event}: {doc}");
        assert!(has(&codes, "hook-fires-twice"), "{event}: {doc}");
        let before = (h.read(h.settings()), h.read(h.local()));
        let fix = h.doctor(&["--fix", "--yes", "--no-smoke"]);
        assert!(
            fix.stdout_text().contains("correct it by hand first"),
            "{event}: {}{}",
            fix.stdout_text(),
            fix.stderr_text()
        );
        assert!(
            !fix.stderr_text().contains("must be an array"),
            "{event}: {}",
            fix.stderr_text()
        );
        assert_eq!((h.read(h.settings()), h.read(h.local())), before, "{event}");
        // Doctor said so before it was asked: what it counts as fixable
        // does not include the duplicate it cannot remove.
        let plain = h.doctor(&["--no-smoke"]);
        assert!(
            !plain.stdout_text().contains("can fix 2"),
            "{event}: {}",
            plain.stdout_text()
        );
    }
}

#[test]
fn a_broken_event_gk_has_nothing_in_is_edited_around() {
    // Measured on 2.1.332: `Notification` not an array drops that event
    // alone. gk's editors never walk into it: --fix removes the variant and
    // keeps the broken event byte for byte; doctor still names it.
    let h = TestEnv::new();
    h.install();
    let mut v: Value = serde_json::from_str(&h.read(h.settings())).unwrap();
    v["hooks"]["Notification"] = serde_json::json!({"oops": 1});
    h.write(h.settings(), serde_json::to_string_pretty(&v).unwrap());
    h.register(
        &h.local(),
        "UserPromptSubmit",
        "~/.claude/hooks/gk hook prompt",
    );
    let (_, codes, doc) = h.codes(&[]);
    assert!(has(&codes, "settings-part-dropped"), "{doc}");
    assert!(has(&codes, "hook-fires-twice"), "{doc}");
    let fix = h.doctor(&["--fix", "--yes", "--no-smoke"]);
    assert_eq!(
        fix.code,
        Some(1),
        "{}{}",
        fix.stdout_text(),
        fix.stderr_text()
    );
    assert!(!h.read(h.local()).contains("gk hook prompt"));
    let after: Value = serde_json::from_str(&h.read(h.settings())).unwrap();
    assert_eq!(
        after["hooks"]["Notification"],
        serde_json::json!({"oops": 1})
    );
}

#[test]
fn settings_schema_unknown_event_and_missing_command() {
    let h = TestEnv::new();
    h.install();
    h.write(
        h.local(),
        r#"{"hooks": {"UserPromptSubmitt": [{"hooks": [{"type": "command", "command": "echo"}]}], "Stop": [{"hooks": [{"type": "command"}]}]}}"#,
    );
    let (_, codes, doc) = h.codes(&[]);
    assert_eq!(
        codes
            .iter()
            .filter(|c| *c == "settings-part-dropped")
            .count(),
        2,
        "{doc}"
    );
    // The client loads the file and runs the other events: each dropped
    // part is a warning (a hook the user set up does not run).
    let severity = |needle: &str| {
        doc["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["message"].as_str().unwrap().contains(needle))
            .unwrap_or_else(|| panic!("no finding about {needle}: {doc}"))["severity"]
            .clone()
    };
    assert_eq!(severity("UserPromptSubmitt"), "warning", "{doc}");
    assert_eq!(severity("hooks.Stop[0].hooks[0]"), "warning", "{doc}");
}

#[test]
fn home_is_project_is_said_not_warned_and_the_file_counts_once() {
    // Right after install, in the home folder: identical command strings
    // run once (measured), so nothing runs twice: exit 0, an info finding.
    let h = TestEnv::new();
    h.install();
    let (code, codes, doc) = h.codes(&["--project", h.home().to_str().unwrap()]);
    // (`codes` leaves out info findings.)
    assert_eq!((code, codes), (0, vec![]), "{doc}");
    assert_eq!(doc["findings"][0]["code"], "home-is-project", "{doc}");
    assert_eq!(doc["findings"][0]["severity"], "info");
    let run = h.doctor(&["--no-smoke", "--project", h.home().to_str().unwrap()]);
    assert_eq!(run.code, Some(0), "{}", run.stdout_text());
    assert!(
        run.stdout_text().contains("[•] Settings files"),
        "{}",
        run.stdout_text()
    );
    // What really runs twice is still found there: a second spelling.
    h.register(&h.settings(), "Stop", "~/.claude/hooks/gk hook stop");
    let (code, codes, _) = h.codes(&["--project", h.home().to_str().unwrap()]);
    assert_eq!((code, codes), (2, vec!["hook-fires-twice".to_string()]));
    // From a project folder: nothing about the home folder.
    let (_, _, doc) = h.codes(&[]);
    assert!(!doc.to_string().contains("home-is-project"), "{doc}");
}

// ------------------------------------------------------------ registrations

#[test]
fn fix_then_uninstall_gives_back_an_empty_hooks_object() {
    let h = TestEnv::new();
    let before = "{\n  \"hooks\": {},\n  \"model\": \"opus\"\n}\n";
    h.write(h.settings(), before);
    h.fix_then_clean();
    assert!(h.claude().join("hooks/gk-install.json").is_file());
    let out = h.cmd().args(["uninstall", "--yes"]).output();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(h.read(h.settings()), before);
}

/// What `--fix` puts in, uninstall takes out as it would install's: a
/// settings.json `--fix` had to create goes, a blank one comes back blank,
/// and a permission rule the user had stays. Before, `--fix` noted only
/// the empty containers it filled, so uninstall left `{}` behind, a blank
/// file came back as `{}`, and the user's own rule was taken out.
#[test]
fn fix_then_uninstall_gives_back_what_was_there() {
    for before in [
        None,
        Some(""),
        Some("\n"),
        Some("{\"permissions\": {\"allow\": [\"Read(~/.local/state/gk/*.json)\"]}}\n"),
    ] {
        let h = TestEnv::new();
        if let Some(text) = before {
            h.write(h.settings(), text);
        }
        let fix = h.doctor(&["--fix", "--yes", "--no-smoke"]);
        assert!(h.settings().is_file(), "{}", fix.stdout_text());
        let out = h.cmd().args(["uninstall", "--yes"]).output();
        assert!(out.status.success(), "{}", text(&out.stderr));
        match before {
            None => assert!(!h.settings().exists(), "{}", h.read(h.settings())),
            Some(text) => assert_eq!(h.read(h.settings()), text),
        }
    }
}

#[test]
fn hook_missing_for_each_hook() {
    let h = TestEnv::new();
    let (code, codes, _) = h.codes(&[]);
    assert_eq!(code, 2);
    assert_eq!(codes.iter().filter(|c| *c == "hook-missing").count(), 3);
    h.fix_then_clean();
}

#[test]
fn two_spellings_fire_twice_across_scopes() {
    let h = TestEnv::new();
    h.install();
    h.register(
        &h.local(),
        "UserPromptSubmit",
        "~/.claude/hooks/gk hook prompt",
    );
    let (code, codes, doc) = h.codes(&[]);
    assert_eq!(code, 2);
    assert_eq!(codes, ["hook-fires-twice"], "{doc}");
    let details = doc["findings"][0]["details"].as_array().unwrap();
    assert_eq!(details.len(), 2);
    h.fix_then_clean();
    // The local file keeps everything that was not gk's (here: nothing).
    assert!(!h.read(h.local()).contains("gk hook"));
}

#[test]
fn the_session_hook_in_two_spellings_fires_twice_and_fix_keeps_one() {
    let h = TestEnv::new();
    h.install();
    let second = format!(
        "\"{}\" hook session",
        h.binary().to_string_lossy().replace('\\', "/")
    );
    h.register(&h.local(), "SessionStart", &second);
    h.register(&h.settings(), "Stop", "~/.claude/hooks/gk hook session");
    let (code, codes, doc) = h.codes(&[]);
    assert_eq!(code, 2);
    assert_eq!(codes, ["hook-fires-twice", "hook-wrong-event"], "{doc}");
    assert!(doc["findings"][0]["message"]
        .as_str()
        .unwrap()
        .starts_with("gk's session hook is registered under 2 different commands"));
    h.fix_then_clean();
    let s: Value = serde_json::from_str(&h.read(h.settings())).unwrap();
    assert_eq!(s["hooks"]["SessionStart"].as_array().unwrap().len(), 1);
    assert!(!h.read(h.local()).contains("hook session"));
}

#[test]
fn an_install_from_before_the_session_hook_is_told_and_fixed() {
    let h = TestEnv::new();
    h.install();
    let mut s: Value = serde_json::from_str(&h.read(h.settings())).unwrap();
    s["hooks"].as_object_mut().unwrap().remove("SessionStart");
    h.write(h.settings(), serde_json::to_string_pretty(&s).unwrap());
    let (code, codes, doc) = h.codes(&[]);
    assert_eq!(
        (code, codes),
        (1, vec!["hook-missing".to_string()]),
        "{doc}"
    );
    assert_eq!(doc["findings"][0]["severity"], "warning");
    h.fix_then_clean();
}

#[test]
fn an_exec_form_gk_entry_fires_twice_beside_the_shell_form() {
    // Exec form (client 2.1.139+): the program in `command`, its words in
    // `args`. Install writes the shell form on Linux and the exec form on
    // Windows, so the second entry is the other form: exec on Linux, the
    // shell-form string of the same program on Windows.
    let h = TestEnv::new();
    h.install();
    let bin = h.binary();
    let second = if cfg!(windows) {
        serde_json::json!({"type": "command", "command": format!("\"{}\" hook stop", bin.display())})
    } else {
        serde_json::json!({"type": "command", "command": bin.to_str().unwrap(), "args": ["hook", "stop"]})
    };
    h.write(
        h.local(),
        serde_json::json!({"hooks": {"Stop": [{"hooks": [second]}]}}).to_string(),
    );
    let (code, codes, doc) = h.codes(&[]);
    assert_eq!(code, 2, "{doc}");
    assert_eq!(codes, ["hook-fires-twice"], "{doc}");
    h.fix_then_clean();
    let local = h.read(h.local());
    assert!(
        !local.contains("\"args\"") && !local.contains("hook stop"),
        "{local}"
    );
}

#[test]
fn absolute_home_spelling_also_fires_twice() {
    let h = TestEnv::new();
    h.install();
    let abs = format!("{}/.claude/hooks/gk hook stop", h.home().display());
    h.register(&h.settings(), "Stop", &abs);
    let (_, codes, _) = h.codes(&[]);
    assert_eq!(codes, ["hook-fires-twice"]);
    h.fix_then_clean();
}

#[test]
fn identical_string_twice_is_redundant_not_twice() {
    let h = TestEnv::new();
    h.install();
    let v: Value = serde_json::from_str(&h.read(h.settings())).unwrap();
    // The handler as install wrote it (on Windows the exec form: command
    // and args), copied as it is into the local settings.
    let handler = v["hooks"]["Stop"][0]["hooks"][0].clone();
    let local = serde_json::json!({"hooks": {"Stop": [{"hooks": [handler]}]}});
    h.write(h.local(), serde_json::to_string_pretty(&local).unwrap());
    let (code, codes, _) = h.codes(&[]);
    assert_eq!((code, codes), (1, vec!["hook-redundant".to_string()]));
    h.fix_then_clean();
}

#[test]
fn gk_in_shared_project_settings_is_redundant() {
    let h = TestEnv::new();
    h.register(
        &h.project_settings(),
        "UserPromptSubmit",
        "\"$HOME/.claude/hooks/gk\" hook prompt",
    );
    h.install();
    let (_, codes, doc) = h.codes(&[]);
    assert!(has(&codes, "hook-redundant"), "{doc}");
    h.fix_then_clean();
}

#[test]
fn python_hooks_are_legacy_and_fire_twice_beside_gk() {
    let h = TestEnv::new();
    h.install();
    std::fs::write(h.claude().join("hooks/gatekeeper.py"), "print('{}')\n").unwrap();
    h.register(
        &h.settings(),
        "UserPromptSubmit",
        "python3 ~/.claude/hooks/gatekeeper.py",
    );
    let (code, codes, _) = h.codes(&[]);
    assert_eq!(code, 2);
    assert!(
        has(&codes, "hook-legacy") && has(&codes, "hook-fires-twice"),
        "{codes:?}"
    );
    h.fix_then_clean();
}

#[test]
fn python_only_setup_is_legacy_and_migrates() {
    let h = TestEnv::new();
    h.register(
        &h.settings(),
        "UserPromptSubmit",
        "/c/miniforge3/python /c/Users/u/.claude/hooks/gatekeeper.py",
    );
    h.register(
        &h.settings(),
        "Stop",
        "python3 ~/.claude/hooks/state_monitor.py",
    );
    let (_, codes, doc) = h.codes(&[]);
    assert_eq!(
        codes.iter().filter(|c| *c == "hook-legacy").count(),
        2,
        "{codes:?}"
    );
    // The Python hooks had no session check: only that one is missing.
    let missing: Vec<&Value> = doc_findings(&doc, "hook-missing");
    assert_eq!(missing.len(), 1, "{doc}");
    assert!(missing[0]["message"]
        .as_str()
        .unwrap()
        .contains("SessionStart"));
    h.fix_then_clean();
    let s = h.read(h.settings());
    assert!(!s.contains(".py"), "{s}");
}

#[test]
fn a_gk_hook_under_the_wrong_event() {
    let h = TestEnv::new();
    h.install();
    h.register(
        &h.local(),
        "UserPromptSubmit",
        "$HOME/.claude/hooks/gk hook stop",
    );
    let (code, codes, _) = h.codes(&[]);
    assert_eq!((code, codes), (1, vec!["hook-wrong-event".to_string()]));
    h.fix_then_clean();
}

#[test]
fn a_command_doctor_cannot_decide_is_reported_as_unsure_and_left_alone() {
    let h = TestEnv::new();
    h.install();
    h.register(
        &h.local(),
        "Stop",
        "cd \"$HOME\" && ./.claude/hooks/gk hook stop",
    );
    let (code, codes, _) = h.codes(&[]);
    assert_eq!((code, codes), (1, vec!["hook-unrecognised".to_string()]));
    let fix = h.doctor(&["--fix", "--yes", "--no-smoke"]);
    assert!(
        fix.stdout_text().contains("cannot fix"),
        "{}",
        fix.stdout_text()
    );
    assert!(h.read(h.local()).contains("./.claude/hooks/gk hook stop"));
}

#[test]
fn disable_all_hooks_in_user_settings() {
    let h = TestEnv::new();
    h.install();
    h.set_key(&h.settings(), "disableAllHooks", Value::Bool(true));
    let (code, codes, doc) = h.codes(&[]);
    assert_eq!(
        (code, codes),
        (2, vec!["hooks-disabled".to_string()]),
        "{doc}"
    );
    assert!(doc["findings"][0]["fix"]
        .as_str()
        .unwrap()
        .contains("disableAllHooks"));
    // --fix explains and leaves the switch alone.
    let fix = h.doctor(&["--fix", "--yes", "--no-smoke"]);
    assert!(
        fix.stdout_text().contains("cannot fix"),
        "{}",
        fix.stdout_text()
    );
    assert!(h.read(h.settings()).contains("disableAllHooks"));
    // A local `false` wins over the user `true`.
    h.set_key(&h.local(), "disableAllHooks", Value::Bool(false));
    let (code, _, _) = h.codes(&[]);
    assert_eq!(code, 0);
}

#[test]
fn managed_policy_switches_hooks_off() {
    let h = TestEnv::new();
    h.install();
    h.write(h.managed_settings(), r#"{"allowManagedHooksOnly": true}"#);
    let (code, codes, doc) = h.codes(&[]);
    assert_eq!((code, codes), (2, vec!["hooks-disabled".to_string()]));
    assert!(doc["findings"][0]["message"]
        .as_str()
        .unwrap()
        .contains("allowManagedHooksOnly"));
    std::fs::remove_file(h.managed_settings()).unwrap();
    // A drop-in beside the managed file counts too.
    let dropin = h
        .managed_settings()
        .parent()
        .unwrap()
        .join("managed-settings.d/50-policy.json");
    h.write(&dropin, r#"{"disableAllHooks": true}"#);
    let (code, codes, _) = h.codes(&[]);
    assert_eq!((code, codes), (2, vec!["hooks-disabled".to_string()]));
    // A broken managed file: reported, and left to its administrator.
    h.write(&dropin, "{\"disableAllHooks\": true,}");
    let (code, codes, doc) = h.codes(&[]);
    assert_eq!((code, codes), (2, vec!["settings-unparseable".to_string()]));
    assert!(doc["findings"][0]["fix"]
        .as_str()
        .unwrap()
        .starts_with("managed policy"));
}

// ------------------------------------------------------------- programs

#[test]
fn hook_binary_missing() {
    let h = TestEnv::new();
    h.install();
    std::fs::remove_file(h.binary()).unwrap();
    let (code, codes, doc) = h.codes(&[]);
    assert_eq!(code, 2);
    assert_eq!(
        codes.iter().filter(|c| *c == "hook-binary-missing").count(),
        1
    );
    // One program runs all three hooks: the finding names every event.
    let message = doc["findings"][0]["message"].as_str().unwrap();
    assert!(
        message.ends_with("fails on every UserPromptSubmit, Stop and SessionStart"),
        "{message}"
    );
    h.fix_then_clean();
}

#[test]
fn a_foreign_hook_with_a_missing_program_is_reported_but_not_touched() {
    let h = TestEnv::new();
    h.install();
    h.register(&h.settings(), "PreToolUse", "/opt/nowhere/lint-hook --fast");
    let (_, codes, doc) = h.codes(&[]);
    assert_eq!(codes, ["hook-binary-missing"], "{doc}");
    assert_eq!(doc["findings"][0]["fixable"], false);
}

/// A program of `body` at `path` (executable on Unix). On Windows it is
/// only ever read, never run: doctor reads the version marker from the
/// file's bytes.
fn write_script(path: &Path, body: &str) {
    std::fs::write(path, body).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

#[test]
fn hook_binary_outdated() {
    let h = TestEnv::new();
    h.install();
    // A program carrying another gk version's marker.
    write_script(
        &h.binary(),
        "#!/bin/sh\n# \u{0}gk-build-version=0.0.1\u{0}\nexit 0\n",
    );
    let (code, codes, doc) = h.codes(&[]);
    assert_eq!((code, codes), (1, vec!["hook-binary-outdated".to_string()]));
    assert!(doc["findings"][0]["message"]
        .as_str()
        .unwrap()
        .contains("gk 0.0.1"));
    h.fix_then_clean();
    // A newer registered gk is reported but never downgraded.
    write_script(
        &h.binary(),
        "#!/bin/sh\n# \u{0}gk-build-version=99.0.0\u{0}\nexit 0\n",
    );
    let (_, codes, doc) = h.codes(&[]);
    assert_eq!(codes, ["hook-binary-outdated"]);
    assert_eq!(doc["findings"][0]["fixable"], false);
    let before = std::fs::read(h.binary()).unwrap();
    h.doctor(&["--fix", "--yes", "--no-smoke"]);
    assert_eq!(std::fs::read(h.binary()).unwrap(), before);
}

// Unix only: the smoke test runs the program, and a shell script cannot
// stand in for gk.exe on Windows.
#[cfg(unix)]
#[test]
fn hook_smoke_failed() {
    let h = TestEnv::new();
    h.install();
    write_script(&h.binary(), "#!/bin/sh\necho boom >&2\nexit 3\n");
    let (code, codes, doc) = h.codes(&["--smoke"]);
    assert_eq!(code, 2);
    assert_eq!(
        codes.iter().filter(|c| *c == "hook-smoke-failed").count(),
        3,
        "{doc}"
    );
    assert!(doc.to_string().contains("exited with code 3: boom"));
    h.fix_then_clean();
}

// Unix only, as hook_smoke_failed: the stand-in program is a shell script.
#[cfg(unix)]
#[test]
fn hook_slow() {
    let h = TestEnv::new();
    h.install();
    let real = h.home().join("real-gk");
    std::fs::copy(h.binary(), &real).unwrap();
    write_script(
        &h.binary(),
        &format!(
            "#!/bin/sh\n# \u{0}gk-build-version={}\u{0}\nsleep 0.6\nexec '{}' \"$@\"\n",
            env!("CARGO_PKG_VERSION"),
            real.display()
        ),
    );
    let (code, codes, _) = h.codes(&["--smoke"]);
    assert_eq!(code, 1);
    assert_eq!(codes, ["hook-slow", "hook-slow", "hook-slow"]);
}

// ---------------------------------------------------------------- state

#[test]
fn state_unreadable_missing_and_malformed() {
    let h = TestEnv::new();
    h.install();
    let state = h.claude().join("hooks/task_state.json");
    h.write(&state, "{\"status\": ");
    let (code, codes, _) = h.codes(&[]);
    assert_eq!((code, codes), (1, vec!["state-unreadable".to_string()]));
    std::fs::remove_file(&state).unwrap();
    let (_, codes, _) = h.codes(&[]);
    assert_eq!(codes, ["state-unreadable"]);
    h.fix_then_clean();
}

#[test]
fn state_bad_status() {
    let h = TestEnv::new();
    h.install();
    h.write(
        h.claude().join("hooks/task_state.json"),
        r#"{"status": "in-progress"}"#,
    );
    let (code, codes, doc) = h.codes(&[]);
    assert_eq!((code, codes), (1, vec!["state-bad-status".to_string()]));
    assert!(doc["findings"][0]["message"]
        .as_str()
        .unwrap()
        .contains("'in-progress'"));
    h.write(h.claude().join("hooks/task_state.json"), r#"{"task": "x"}"#);
    let (_, codes, _) = h.codes(&[]);
    assert_eq!(codes, ["state-bad-status"]);
}

#[test]
fn state_stale_after_24_hours_in_progress() {
    let h = TestEnv::new();
    h.install();
    let state = h.claude().join("hooks/task_state.json");
    h.write(&state, r#"{"status": "in_progress", "task": "x"}"#);
    let (code, codes, _) = h.codes(&[]);
    assert_eq!((code, codes), (0, vec![]), "fresh in_progress is fine");
    last_written_hours_ago(&state, 30);
    let (code, codes, _) = h.codes(&[]);
    assert_eq!((code, codes), (1, vec!["state-stale".to_string()]));
}

// -------------------------------------------------------------- CLAUDE.md

#[test]
fn claude_md_missing_duplicated_outdated() {
    let h = TestEnv::new();
    h.install();
    let md = h.claude().join("CLAUDE.md");
    let good = h.read(&md);

    std::fs::remove_file(&md).unwrap();
    let (code, codes, _) = h.codes(&[]);
    assert_eq!(
        (code, codes),
        (1, vec!["claude-md-section-missing".to_string()])
    );
    h.fix_then_clean();

    h.write(&md, format!("# mine\n\n{good}\n{good}"));
    let (_, codes, _) = h.codes(&[]);
    assert_eq!(codes, ["claude-md-section-duplicated"]);
    h.fix_then_clean();
    assert!(h.read(&md).starts_with("# mine\n"));

    h.write(
        &md,
        good.replace("gk runs three hooks", "gk used to run hooks"),
    );
    let (_, codes, _) = h.codes(&[]);
    assert_eq!(codes, ["claude-md-section-outdated"]);
    h.fix_then_clean();

    h.write(
        &md,
        "# mine\n\n## Task State Convention (Gatekeeper Hooks)\nTwo global hooks (`gatekeeper.py`...)\n",
    );
    let (_, codes, _) = h.codes(&[]);
    assert_eq!(codes, ["claude-md-section-outdated"]);
    h.fix_then_clean();
}

#[test]
fn claude_md_damaged_markers_are_explained_not_edited() {
    let h = TestEnv::new();
    h.install();
    let md = h.claude().join("CLAUDE.md");
    let good = h.read(&md);
    let damaged = good.replace("<!-- gk:end -->", "");
    h.write(&md, &damaged);
    let (_, codes, doc) = h.codes(&[]);
    assert_eq!(codes, ["claude-md-section-outdated"]);
    assert_eq!(doc["findings"][0]["fixable"], false);
    let fix = h.doctor(&["--fix", "--yes", "--no-smoke"]);
    assert!(
        fix.stdout_text().contains("cannot fix"),
        "{}",
        fix.stdout_text()
    );
    assert_eq!(h.read(&md), damaged);
}

// ---------------------------------------------------------------- config

#[test]
fn config_invalid() {
    let h = TestEnv::new();
    h.install();
    h.write(
        h.claude().join("hooks/gk.json"),
        "{\n  \"stale_hours\": \"soon\"\n}\n",
    );
    let (code, codes, doc) = h.codes(&[]);
    assert_eq!((code, codes), (2, vec!["config-invalid".to_string()]));
    assert_eq!(doc["findings"][0]["line"], 2);
}

#[test]
fn a_hook_switched_off_in_gk_json_is_info_and_not_smoke_tested() {
    let h = TestEnv::new();
    h.install();
    let off = h.cmd().args(["disable", "stop", "--yes"]).output();
    assert!(off.status.success(), "{}", text(&off.stderr));
    let (code, codes, doc) = h.codes(&["--smoke"]);
    assert_eq!((code, codes), (0, vec![]), "{doc}");
    let info: Vec<&str> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap())
        .collect();
    assert_eq!(info, ["hook-switched-off"]);
    // Said without -v too: a hook someone switched off and forgot about is
    // the first thing to know when it "does nothing".
    let run = h.doctor(&["--no-smoke"]);
    assert_eq!(run.code, Some(0), "{}", run.stdout_text());
    assert!(
        !run.stdout_text().contains("[✓] gk config"),
        "{}",
        run.stdout_text()
    );
    assert!(
        run.stdout_text()
            .contains("[•] gk config\n    • the stop hook is switched off in "),
        "{}",
        run.stdout_text()
    );
    assert!(
        run.stdout_text().contains("fix: gk enable stop"),
        "{}",
        run.stdout_text()
    );
    assert!(
        run.stdout_text().contains("No issues found (1 note)."),
        "{}",
        run.stdout_text()
    );
    let run = h.doctor(&["-v"]);
    assert!(
        run.stdout_text()
            .contains("switched off in gk.json: not run"),
        "{}",
        run.stdout_text()
    );
}

// ----------------------------------------------------- output and exit codes

#[test]
fn json_schema_is_stable() {
    let h = TestEnv::new();
    h.register(
        &h.settings(),
        "UserPromptSubmit",
        "~/.claude/hooks/gk hook prompt",
    );
    let (code, _, doc) = h.codes(&[]);
    let top: Vec<&String> = doc.as_object().unwrap().keys().collect();
    assert_eq!(top, ["findings", "summary"]);
    for f in doc["findings"].as_array().unwrap() {
        let o = f.as_object().unwrap();
        for k in o.keys() {
            assert!(
                ["code", "severity", "message", "path", "line", "fix", "details", "fixable"]
                    .contains(&k.as_str()),
                "unexpected key {k}"
            );
        }
        assert!(o["code"].is_string() && o["message"].is_string());
        assert!(["error", "warning", "info"].contains(&o["severity"].as_str().unwrap()));
        assert!(o.get("line").is_none_or(Value::is_u64));
        assert!(o["fixable"].is_boolean());
    }
    let s = &doc["summary"];
    assert_eq!(s["exit_code"], code);
    for k in ["errors", "warnings", "info", "fixable"] {
        assert!(s[k].is_u64(), "{k}");
    }
    let names: Vec<&str> = s["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "settings",
            "registrations",
            "binaries",
            "smoke",
            "state",
            "claude-md",
            "config"
        ]
    );
    assert_eq!(s["checks"][3]["status"], "skipped");
}

#[test]
fn exit_codes_follow_the_worst_severity() {
    let h = TestEnv::new();
    h.install();
    assert_eq!(h.doctor(&["--no-smoke"]).code, Some(0));
    h.write(h.claude().join("hooks/task_state.json"), "{}");
    assert_eq!(h.doctor(&["--no-smoke"]).code, Some(1));
    h.write(h.claude().join("hooks/gk.json"), "nope");
    assert_eq!(h.doctor(&["--no-smoke"]).code, Some(2));
}

#[test]
fn human_report_has_ticks_problems_fixes_and_a_summary() {
    let h = TestEnv::new();
    h.install();
    h.register(
        &h.local(),
        "UserPromptSubmit",
        "~/.claude/hooks/gk hook prompt",
    );
    let run = h.doctor(&["--no-smoke"]);
    assert_eq!(run.code, Some(2));
    let out = &run.stdout_text();
    assert!(out.contains("[✓] Settings files\n"), "{out}");
    assert!(out.contains("[✗] Hook registrations\n"));
    assert!(out.contains("[hook-fires-twice]"));
    assert!(out.contains("fix: gk doctor --fix"));
    assert!(out.contains("[-] Smoke test (skipped: --no-smoke)"));
    assert!(out.contains("Doctor found 1 error and 0 warnings"));
    assert!(!out.contains('\u{1b}'), "NO_COLOR must mean no colour");
    let coloured = h
        .cmd()
        .args(["--color", "always", "doctor", "--no-smoke"])
        .output();
    assert!(text(&coloured.stdout).contains("\u{1b}[31m"));
}

#[test]
fn doctor_never_writes_without_fix() {
    let h = TestEnv::new();
    h.register(
        &h.settings(),
        "UserPromptSubmit",
        "~/.claude/hooks/gk hook prompt",
    );
    let before = h.read(h.settings());
    h.doctor(&[]);
    assert_eq!(h.read(h.settings()), before);
    assert!(!h.claude().join("CLAUDE.md").exists());
    assert!(!h.claude().join("hooks/task_state.json").exists());
}

// ------------------------------------------------------------------ --fix

#[test]
fn fix_dry_run_writes_nothing_and_no_tty_without_yes_refuses() {
    let h = TestEnv::new();
    h.register(
        &h.settings(),
        "UserPromptSubmit",
        "~/.claude/hooks/gk hook prompt",
    );
    let before = h.read(h.settings());
    let dry = h.doctor(&["--fix", "--dry-run", "--no-smoke"]);
    assert!(
        dry.stdout_text().contains("dry run: nothing written"),
        "{}",
        dry.stdout_text()
    );
    assert_eq!(h.read(h.settings()), before);
    let refused = h.doctor(&["--fix", "--no-smoke"]);
    assert_ne!(refused.code, Some(0));
    assert!(
        refused.stderr_text().contains("not a terminal"),
        "{}",
        refused.stderr_text()
    );
    assert_eq!(h.read(h.settings()), before);
    assert!(!h.binary().exists());
}

#[test]
fn fix_explains_an_unparseable_file_and_leaves_it() {
    let h = TestEnv::new();
    h.write(
        h.settings(),
        format!("{{\n  \"env\": {{\"ANTHROPIC_API_KEY\": \"{SECRET}\"}},\n}}\n"),
    );
    let before = h.read(h.settings());
    let run = h.doctor(&["--fix", "--yes", "--no-smoke"]);
    assert!(
        run.stdout_text().contains("cannot fix"),
        "{}",
        run.stdout_text()
    );
    assert!(
        run.stdout_text().contains("correct by hand"),
        "{}",
        run.stdout_text()
    );
    assert_eq!(h.read(h.settings()), before);
    assert!(!run.stdout_text().contains(SECRET) && !run.stderr_text().contains(SECRET));
}

#[test]
fn fix_keeps_other_tools_hooks_and_env() {
    let h = TestEnv::new();
    h.install_with_secrets();
    h.register(
        &h.settings(),
        "UserPromptSubmit",
        "/bin/echo other-tool --check",
    );
    h.register(
        &h.settings(),
        "UserPromptSubmit",
        "$HOME/.claude/hooks/gk hook prompt",
    );
    h.fix_then_clean();
    let s = h.read(h.settings());
    assert!(s.contains(SECRET) && s.contains(PROXY));
    assert!(s.contains("/bin/echo other-tool --check"));
}

// ---------------------------------------------------------------- secrets

#[test]
fn secret_values_never_appear_in_any_output() {
    let h = TestEnv::new();
    h.install_with_secrets();
    // Make lots of findings, some quoting commands that carry a secret.
    h.register(
        &h.settings(),
        "UserPromptSubmit",
        &format!("~/.claude/hooks/gk hook prompt --token {SECRET}"),
    );
    h.register(
        &h.local(),
        "Stop",
        &format!("cd /x && gk hook stop {PROXY} | cat"),
    );
    h.write(
        h.project_settings(),
        format!("{{\"env\": {{\"GITHUB_TOKEN\": \"ghp_{SECRET}\"}}, // broken\n}}"),
    );
    for args in [
        vec!["--no-smoke"],
        vec!["-v"],
        vec!["--json"],
        vec!["--json", "-v"],
        vec!["--fix", "--dry-run", "-v"],
    ] {
        let run = h.doctor(&args);
        for s in [SECRET, PROXY, "hunter2hunter2"] {
            assert!(
                !run.stdout_text().contains(s) && !run.stderr_text().contains(s),
                "{s} shown with {args:?}:\n{}\n{}",
                run.stdout_text(),
                run.stderr_text()
            );
        }
    }
}

#[test]
fn json_and_fix_do_not_mix() {
    let h = TestEnv::new();
    let run = h.doctor(&["--json", "--fix"]);
    assert_eq!(run.code, Some(1));
    assert!(run
        .stderr_text()
        .contains("--json cannot be combined with --fix"));
}

// ------------------------------------------------------ managed registrations

/// Register gk's (or the Python) hooks in the managed file, absolute paths.
fn managed_hooks(h: &TestEnv, prompt: Option<&str>, stop: Option<&str>) {
    if let Some(c) = prompt {
        h.register(&h.managed_settings(), "UserPromptSubmit", c);
    }
    if let Some(c) = stop {
        h.register(&h.managed_settings(), "Stop", c);
    }
}

/// gk's three hooks in managed settings, each `command(kind)`.
fn managed_gk(h: &TestEnv, command: impl Fn(&str) -> String) {
    managed_hooks(h, Some(&command("prompt")), Some(&command("stop")));
    h.register(&h.managed_settings(), "SessionStart", &command("session"));
}

#[test]
fn python_hooks_in_managed_settings_are_policy_and_fix_adds_no_second_copy() {
    let h = TestEnv::new();
    std::fs::create_dir_all(h.claude().join("hooks")).unwrap();
    for s in ["gatekeeper.py", "state_monitor.py"] {
        std::fs::write(h.claude().join("hooks").join(s), "print('{}')\n").unwrap();
    }
    let py = |s: &str| format!("python3 {}/.claude/hooks/{s}", h.home().display());
    managed_hooks(
        &h,
        Some(&py("gatekeeper.py")),
        Some(&py("state_monitor.py")),
    );
    let (_, codes, doc) = h.codes(&[]);
    assert_eq!(
        codes.iter().filter(|c| *c == "hook-legacy").count(),
        2,
        "{doc}"
    );
    // Managed policy is not gk's to change: not offered as fixable.
    for f in doc["findings"].as_array().unwrap() {
        if f["code"] == "hook-legacy" {
            assert_eq!(f["fixable"], false, "{f}");
            assert!(f["fix"].as_str().unwrap().contains("managed"), "{f}");
        }
    }
    h.doctor(&["--fix", "--yes", "--no-smoke"]);
    // --fix must not register gk in user settings beside the managed Python
    // hooks: each hook would then fire twice.
    let (_, codes, doc) = h.codes(&[]);
    assert!(!has(&codes, "hook-fires-twice"), "{doc}");
}

#[test]
#[cfg_attr(
    gk_wine,
    ignore = "Wine gap: Wine's powershell.exe runs nothing, and these shell-form registrations are smoke-tested through it"
)]
fn gk_in_managed_and_user_settings_fix_removes_the_user_entries() {
    let h = TestEnv::new();
    h.install();
    let abs = |k: &str| format!("{}/.claude/hooks/gk hook {k}", h.home().display());
    managed_gk(&h, abs);
    let (code, codes, doc) = h.codes(&[]);
    assert_eq!(code, 2);
    assert_eq!(
        codes,
        ["hook-fires-twice", "hook-fires-twice", "hook-fires-twice"],
        "{doc}"
    );
    h.fix_then_clean();
    assert!(!h.read(h.settings()).contains("gk hook"));
    // The managed file is never edited.
    assert!(h.read(h.managed_settings()).contains(&abs("prompt")));
}

#[test]
fn gk_in_managed_for_one_hook_is_explained_and_nothing_doubled() {
    let h = TestEnv::new();
    h.install();
    let abs = format!("{}/.claude/hooks/gk hook prompt", h.home().display());
    managed_hooks(&h, Some(&abs), None);
    let (_, codes, doc) = h.codes(&[]);
    assert_eq!(codes, ["hook-fires-twice"], "{doc}");
    assert_eq!(doc["findings"][0]["fixable"], false, "{doc}");
    h.fix_leaves_settings_saying("cannot fix");
}

#[test]
#[cfg_attr(
    gk_wine,
    ignore = "Wine gap: Wine's powershell.exe runs nothing, and these shell-form registrations are smoke-tested through it"
)]
fn switches_that_leave_managed_gk_running_are_not_an_error() {
    // The setup the hooks-disabled fix recommends: gk registered in managed
    // settings, allowManagedHooksOnly (or a user disableAllHooks) on.
    let h = TestEnv::new();
    h.install();
    std::fs::remove_file(h.settings()).unwrap();
    let canonical = |k: &str| format!("\"$HOME/.claude/hooks/gk\" hook {k}");
    managed_gk(&h, canonical);
    h.set_key(
        &h.managed_settings(),
        "allowManagedHooksOnly",
        Value::Bool(true),
    );
    // The task records' rule comes from policy too (user settings are gone).
    let rule = serde_json::json!({"allow": ["Edit(~/.local/state/gk/*.json)"]});
    h.set_key(&h.managed_settings(), "permissions", rule);
    let (code, codes, doc) = h.codes(&["--smoke"]);
    assert_eq!((code, codes), (0, vec![]), "{doc}");
    h.set_key(&h.settings(), "disableAllHooks", Value::Bool(true));
    let (code, codes, doc) = h.codes(&[]);
    assert_eq!((code, codes), (0, vec![]), "{doc}");
    // With only one hook in managed settings the other is switched off.
    h.write(h.managed_settings(), "{}");
    managed_hooks(&h, Some(&canonical("prompt")), None);
    h.set_key(
        &h.managed_settings(),
        "allowManagedHooksOnly",
        Value::Bool(true),
    );
    let (code, codes, doc) = h.codes(&[]);
    assert_eq!(code, 2, "{doc}");
    assert!(has(&codes, "hooks-disabled"), "{doc}");
}

#[test]
fn a_hook_registered_only_through_an_undecidable_command_is_not_called_missing() {
    // The prompt hook wrapped in a redirect: doctor cannot tell whether it
    // runs gk. Calling it missing is a guess, and --fix would then register
    // gk a second time beside it.
    let h = TestEnv::new();
    h.install();
    h.wrap_prompt_hook_in_a_redirect();
    let (code, codes, doc) = h.codes(&[]);
    assert_eq!(
        (code, codes),
        (1, vec!["hook-unrecognised".to_string()]),
        "{doc}"
    );
    assert!(doc["findings"][0]["message"]
        .as_str()
        .unwrap()
        .contains("if it does not"));
    h.doctor(&["--fix", "--yes", "--no-smoke"]);
    let s = h.read(h.settings());
    assert!(s.contains("2>/dev/null"), "{s}");
    assert_eq!(s.matches("hook prompt").count(), 1, "{s}");
}

#[test]
fn fix_for_one_hook_does_not_add_the_other_beside_an_undecidable_command() {
    let h = TestEnv::new();
    h.install();
    h.wrap_prompt_hook_in_a_redirect();
    // Something --fix would otherwise handle by rewriting user settings.
    h.register(&h.settings(), "Stop", "~/.claude/hooks/gk hook stop");
    let (_, codes, doc) = h.codes(&[]);
    assert!(has(&codes, "hook-fires-twice"), "{doc}");
    let fix = h.doctor(&["--fix", "--yes", "--no-smoke"]);
    assert!(
        fix.stdout_text().contains("cannot fix"),
        "{}",
        fix.stdout_text()
    );
    let s = h.read(h.settings());
    assert_eq!(s.matches("hook prompt").count(), 1, "{s}");
}

#[test]
fn another_tools_script_named_gatekeeper_is_not_the_python_hook() {
    // The v5 hooks took no arguments and ran only on UserPromptSubmit/Stop:
    // a script of the same name with its own arguments, or under another
    // event, belongs to another tool, and doctor and --fix (like install)
    // leave it alone.
    for extra in [" --policy strict", ""] {
        let h = TestEnv::new();
        h.install();
        let other = h.home().join("tools/gatekeeper.py");
        h.write(&other, "print('ok')\n");
        let cmd = format!("python3 {}{extra}", other.display());
        h.register(&h.settings(), "PreToolUse", &cmd);
        let (code, codes, doc) = h.codes(&[]);
        assert_eq!((code, codes), (0, vec![]), "{cmd}: {doc}");
        // Something for --fix to do in the same file.
        h.register(&h.settings(), "Stop", "~/.claude/hooks/gk hook stop");
        h.fix_then_clean();
        // As JSON in the file (a Windows path's backslashes are doubled).
        let quoted = serde_json::to_string(&cmd).unwrap();
        assert!(h.read(h.settings()).contains(&quoted), "{quoted}");
    }
}

#[test]
fn secrets_of_every_scope_stay_hidden_in_every_output_mode() {
    let h = TestEnv::new();
    h.install();
    let secrets = [
        "user-env-value-1a2b3c",
        "user-helper-key-4d5e6f",
        "project-env-value-7a8b9c",
        "project-token-value-0d1e2f",
        "local-env-value-3a4b5c",
        "local-password-value-6d7e8f",
        "managed-env-value-9a0b1c",
        "managed-secret-value-2d3e4f",
    ];
    // User settings: env and a *KEY* key, plus a variant for --fix to remove.
    edit_user_settings(&h, |user| {
        user["env"] = serde_json::json!({"ANTHROPIC_AUTH_TOKEN": secrets[0]});
        user["apiKeyHelper"] = Value::String(secrets[1].into());
    });
    h.register(&h.settings(), "Stop", "~/.claude/hooks/gk hook stop");
    // Project settings voided by a schema error (matcher array), quoting one.
    h.write(
        h.project_settings(),
        format!(
            r#"{{"env": {{"X": "{}"}}, "GH_TOKEN": "{}", "hooks": {{"Stop": [{{"matcher": [1], "hooks": [{{"type": "command", "command": "/nowhere/notify {}"}}]}}]}}}}"#,
            secrets[2], secrets[3], secrets[2]
        ),
    );
    // Local settings that do not parse (comment, trailing comma).
    h.write(
        h.local(),
        format!(
            "{{\"env\": {{\"Y\": \"{}\"}}, // mine\n \"DB_PASSWORD\": \"{}\",}}",
            secrets[4], secrets[5]
        ),
    );
    // Managed settings: a hook whose missing program quotes a value.
    h.write(
        h.managed_settings(),
        format!(
            r#"{{"env": {{"Z": "{}"}}, "CLIENT_SECRET": "{}", "hooks": {{"PreToolUse": [{{"hooks": [{{"type": "command", "command": "/nowhere/audit {} {}"}}]}}]}}}}"#,
            secrets[6], secrets[7], secrets[6], secrets[7]
        ),
    );
    for args in [
        vec![],
        vec!["-v"],
        vec!["--json"],
        vec!["--json", "-v"],
        vec!["--fix", "--dry-run", "-v"],
        vec!["--fix", "--yes", "-v"],
    ] {
        let run = h.doctor(&args);
        assert!(
            run.stdout_text().contains("[hook-") || run.stdout_text().contains("\"hook-"),
            "{args:?}: {}",
            run.stdout_text()
        );
        for s in secrets {
            assert!(
                !run.stdout_text().contains(s) && !run.stderr_text().contains(s),
                "{s} shown with {args:?}:\n{}\n{}",
                run.stdout_text(),
                run.stderr_text()
            );
        }
    }
}

#[test]
fn the_fix_diff_never_shows_an_env_value_quoted_elsewhere_in_the_file() {
    // An env value that also sits in another tool's hook command, next to a
    // gk entry --fix removes: the diff's context would show it.
    let h = TestEnv::new();
    h.install();
    let hookurl = "https://hooks.example/T000/B000/XXXXsecretpath";
    h.write(
        h.local(),
        format!(
            r#"{{
  "env": {{"SLACK_HOOK": "{hookurl}"}},
  "hooks": {{
    "Stop": [
      {{"hooks": [
        {{"type": "command", "command": "curl -s -d done {hookurl}"}},
        {{"type": "command", "command": "~/.claude/hooks/gk hook stop"}}
      ]}}
    ]
  }}
}}
"#
        ),
    );
    let before = h.read(h.local());
    let run = h.doctor(&["--fix", "--dry-run", "--no-smoke"]);
    assert!(
        !run.stdout_text().contains(hookurl) && !run.stderr_text().contains(hookurl),
        "dry run:\n{}",
        run.stdout_text()
    );
    // The diff shows the quoted value masked, so the fix can be reviewed.
    assert!(
        run.stdout_text().contains("curl -s -d done ********"),
        "{}",
        run.stdout_text()
    );
    assert_eq!(h.read(h.local()), before);

    let run = h.doctor(&["--fix", "--yes", "--no-smoke"]);
    assert!(
        !run.stdout_text().contains(hookurl) && !run.stderr_text().contains(hookurl),
        "fix:\n{}",
        run.stdout_text()
    );
    let after = h.read(h.local());
    assert!(
        after.contains(&format!("curl -s -d done {hookurl}")),
        "{after}"
    );
    assert!(!after.contains("gk hook stop"), "{after}");
}

/// Every file under `root` with its bytes, for whole-tree comparisons.
fn tree(root: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((p.clone(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn fix_dry_run_leaves_the_whole_tree_as_it_was_and_a_second_fix_has_nothing_to_do() {
    let h = TestEnv::new();
    h.register(
        &h.settings(),
        "UserPromptSubmit",
        "python3 ~/.claude/hooks/gatekeeper.py",
    );
    h.register(&h.local(), "Stop", "~/.claude/hooks/gk hook stop");
    h.register(
        &h.project_settings(),
        "UserPromptSubmit",
        "$HOME/.claude/hooks/gk hook prompt",
    );
    h.write(h.claude().join("CLAUDE.md"), "# mine\n");
    let root = h.home().parent().unwrap().to_path_buf();
    let before = tree(&root);
    let dry = h.doctor(&["--fix", "--dry-run", "--no-smoke"]);
    assert_eq!(dry.code, Some(2), "{}", dry.stdout_text());
    assert!(
        dry.stdout_text().contains("dry run: nothing written"),
        "{}",
        dry.stdout_text()
    );
    assert_eq!(tree(&root), before, "--dry-run changed a file");
    h.fix_then_clean();
    let again = h.doctor(&["--fix", "--yes"]);
    assert_eq!(again.code, Some(0), "{}", again.stdout_text());
    assert!(
        again.stdout_text().contains("Nothing for --fix to do."),
        "{}",
        again.stdout_text()
    );
}

#[test]
fn registrations_in_a_user_file_that_does_not_parse_are_not_offered_as_fixable() {
    let h = TestEnv::new();
    h.install();
    let broken = h.read(h.settings()).replacen("{\n", "{\n  // mine\n", 1);
    h.write(h.settings(), &broken);
    let (_, codes, doc) = h.codes(&[]);
    // --fix cannot add them until the file is corrected by hand: they are
    // listed under the one finding that says so.
    assert_eq!(codes, vec!["settings-unparseable".to_string()], "{doc}");
    let f = finding(&doc, "settings-unparseable");
    assert_eq!(f["fixable"], false, "{f}");
    assert_eq!(f.to_string().matches("is not registered").count(), 3, "{f}");
    assert_eq!(doc["summary"]["fixable"], 0, "{doc}");
}

#[test]
fn a_variant_beside_a_handler_the_client_ignores_is_fixed_and_the_handler_kept() {
    // Local settings hold a handler without `type` under Stop: the client
    // ignores that handler and loads the rest. The shape gk's editors walk
    // is intact, so install, uninstall and --fix all edit the file (one
    // schema check, `SchemaIssue::blocks_edit`), and the broken handler is
    // kept byte for byte.
    let h = TestEnv::new();
    h.install();
    let foreign = r#"{"command": "echo hi"}"#;
    h.write(
        h.local(),
        format!(
            r#"{{"hooks": {{"UserPromptSubmit": [{{"hooks": [{{"type": "command", "command": "~/.claude/hooks/gk hook prompt"}}]}}], "Stop": [{{"hooks": [{foreign}]}}]}}}}"#
        ),
    );
    let (_, codes, doc) = h.codes(&[]);
    assert!(has(&codes, "hook-fires-twice"), "{doc}");
    let f = doc_findings(&doc, "hook-fires-twice")[0];
    assert_eq!(f["fixable"], true, "{f}");
    // The broken handler is not gk's: it is still reported after the fix.
    let fix = h.doctor(&["--fix", "--yes", "--no-smoke"]);
    assert!(
        fix.stdout_text().contains("settings-part-dropped"),
        "{}",
        fix.stdout_text()
    );
    let local = h.read(h.local());
    assert!(!local.contains("gk hook prompt"), "{local}");
    assert!(local.contains(foreign), "{local}");
}

#[test]
fn a_registration_fix_never_downgrades_a_newer_registered_gk() {
    let h = TestEnv::new();
    h.install();
    write_script(
        &h.binary(),
        "#!/bin/sh\n# \u{0}gk-build-version=99.0.0\u{0}\nexit 0\n",
    );
    // Something that makes --fix rewrite registrations.
    h.register(&h.local(), "Stop", "~/.claude/hooks/gk hook stop");
    let before = std::fs::read(h.binary()).unwrap();
    let fix = h.doctor(&["--fix", "--yes", "--no-smoke"]);
    assert_eq!(
        std::fs::read(h.binary()).unwrap(),
        before,
        "the newer gk was replaced:\n{}",
        fix.stdout_text()
    );
    assert!(!h.read(h.local()).contains("gk hook stop"));
}

// ------------------------------------------------- what a new user meets

#[test]
fn a_project_folder_that_does_not_exist_is_an_error_not_a_clean_bill() {
    let h = TestEnv::new();
    h.install();
    let missing = h.home().join("no/such/project");
    let run = h.doctor(&["--project", missing.to_str().unwrap(), "--no-smoke"]);
    assert_eq!(
        run.code,
        Some(1),
        "{}\n{}",
        run.stdout_text(),
        run.stderr_text()
    );
    assert_eq!(
        run.stdout_text(),
        "",
        "no report for a folder that is not there"
    );
    assert!(
        run.stderr_text()
            .contains(&format!("{} does not exist", missing.display())),
        "{}",
        run.stderr_text()
    );
    // A file where the folder should be is no project either.
    let file = h.home().join("notes.txt");
    h.write(&file, "x");
    let run = h.doctor(&["--project", file.to_str().unwrap(), "--json"]);
    assert_eq!(run.code, Some(1), "{}", run.stdout_text());
    assert!(
        run.stderr_text().contains("is not a folder"),
        "{}",
        run.stderr_text()
    );
}

#[test]
fn verbose_output_reads_as_sentences_not_rust_debug_text() {
    let h = TestEnv::new();
    h.install();
    let state = h.claude().join("hooks/task_state.json");
    h.write(&state, r#"{"status": "in_progress", "task": "x"}"#);
    last_written_hours_ago(&state, 30);
    let run = h.doctor(&["-v", "--no-smoke"]);
    for debug in ["InProgress", "stale:", "Some(", "None", " { "] {
        assert!(
            !run.stdout_text().contains(debug),
            "{debug:?} in:\n{}",
            run.stdout_text()
        );
    }
    assert!(
        run.stdout_text()
            .contains("task_state.json: in progress for 30 hours (stale after 24)"),
        "{}",
        run.stdout_text()
    );
    h.write(&state, r#"{"status": "clean"}"#);
    let run = h.doctor(&["-v", "--no-smoke"]);
    assert!(
        run.stdout_text()
            .contains("task_state.json: clean, written less than an hour ago"),
        "{}",
        run.stdout_text()
    );
}

#[test]
fn a_settings_file_that_is_not_utf8_gets_an_encoding_hint() {
    let h = TestEnv::new();
    h.install();
    // "é" in Latin-1, as an editor on a Windows code page saves it.
    let mut bytes = h.read(h.settings()).into_bytes();
    let at = bytes.iter().position(|b| *b == b'{').unwrap() + 1;
    bytes.splice(at..at, b"\n  \"note\": \"caf\xe9\",".iter().copied());
    std::fs::write(h.settings(), &bytes).unwrap();
    let (_, codes, doc) = h.codes(&[]);
    assert!(has(&codes, "settings-unparseable"), "{codes:?}");
    let f = finding(&doc, "settings-unparseable");
    let fix = f["fix"].as_str().unwrap();
    assert!(!fix.contains("comment"), "{fix}");
    assert!(fix.contains("UTF-8"), "{fix}");
    assert!(f["message"].as_str().unwrap().contains(":2:15:"), "{f}");
}

#[test]
fn backups_an_older_gk_left_beside_settings_files_are_reported() {
    let h = TestEnv::new();
    h.install();
    let in_project = h
        .project()
        .join(".claude/settings.json.gk-backup-20250101-120000");
    let in_claude = h.claude().join("settings.json.gk-backup-20250101-120000");
    h.write(&in_project, "{\"env\": {}}\n");
    h.write(&in_claude, "{}\n");
    let (code, codes, doc) = h.codes(&[]);
    assert_eq!(code, 1, "{doc}");
    assert_eq!(codes, ["backup-beside-file", "backup-beside-file"], "{doc}");
    let all = doc.to_string();
    assert!(all.contains("committed"), "{all}");
    let paths: Vec<PathBuf> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| PathBuf::from(f["path"].as_str().unwrap()))
        .collect();
    // Path equality compares components: `/` and `\` alike on Windows.
    assert!(paths.contains(&in_project), "{all}");
    assert!(paths.contains(&in_claude), "{all}");
    let f = finding(&doc, "backup-beside-file");
    assert_eq!(f["fixable"], false);
    // gk's own backups, in its own folder, are nothing to report.
    std::fs::remove_file(&in_project).unwrap();
    std::fs::remove_file(&in_claude).unwrap();
    let (code, codes, _) = h.codes(&[]);
    assert_eq!((code, codes), (0, vec![]));
}

/// The issue-17 reproducer: a project's `settings.local.json` that is a
/// link to the user's settings.json. `--fix` took gk's user entries for
/// the project's and removed them (0 gk hooks left for the user, the plan
/// calling the user file "already up to date"). Now the file is read once,
/// as user settings, and nothing is removed from it.
#[cfg(unix)]
#[test]
fn fix_through_a_project_link_to_the_user_file_leaves_the_user_file_alone() {
    let h = TestEnv::new();
    h.install();
    let before = h.read(h.settings());
    std::fs::create_dir_all(h.project().join(".claude")).unwrap();
    std::os::unix::fs::symlink(h.settings(), h.local()).unwrap();
    let (code, codes, doc) = h.codes(&[]);
    assert_eq!((code, codes), (0, vec![]), "{doc}");
    assert_eq!(doc["findings"][0]["code"], "settings-same-file", "{doc}");
    let project = h.project();
    let project = project.to_str().unwrap();
    let fix = h.doctor(&["--fix", "--yes", "--no-smoke", "--project", project]);
    assert_eq!(
        fix.code,
        Some(0),
        "{}\n{}",
        fix.stdout_text(),
        fix.stderr_text()
    );
    assert_eq!(h.read(h.settings()), before, "{}", fix.stdout_text());
    assert!(std::fs::symlink_metadata(h.local()).unwrap().is_symlink());
}

/// A project's `settings.local.json` that is a hard link to the user's
/// settings.json is one file too: no path tells the two names apart (no
/// link to resolve), only what the file is on disk. Read once, as user
/// settings, its hooks are not counted twice and `--fix` takes nothing
/// out of it. (Under Wine this is the Windows file identity.)
#[test]
fn a_project_hard_link_to_the_user_file_is_one_file() {
    let h = TestEnv::new();
    h.install();
    let before = h.read(h.settings());
    std::fs::create_dir_all(h.project().join(".claude")).unwrap();
    std::fs::hard_link(h.settings(), h.local()).unwrap();
    let (code, codes, doc) = h.codes(&[]);
    assert_eq!((code, codes), (0, vec![]), "{doc}");
    assert_eq!(doc["findings"][0]["code"], "settings-same-file", "{doc}");
    let project = h.project();
    let project = project.to_str().unwrap();
    let fix = h.doctor(&["--fix", "--yes", "--no-smoke", "--project", project]);
    assert_eq!(
        fix.code,
        Some(0),
        "{}\n{}",
        fix.stdout_text(),
        fix.stderr_text()
    );
    assert_eq!(h.read(h.settings()), before, "{}", fix.stdout_text());
    assert_eq!(h.read(h.local()), before, "{}", fix.stdout_text());
}

/// A project or local settings file that leads out of the project folder
/// (here to another project's file) is never edited through the link:
/// doctor names it, and leaves it as it is.
#[cfg(unix)]
#[test]
fn fix_never_edits_a_project_file_that_resolves_outside_the_project() {
    let h = TestEnv::new();
    h.install();
    let elsewhere = h.home().join("elsewhere/settings.json");
    h.register(
        &elsewhere,
        "UserPromptSubmit",
        "~/.claude/hooks/gk hook prompt",
    );
    let theirs = h.read(&elsewhere);
    std::fs::create_dir_all(h.project().join(".claude")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, h.local()).unwrap();
    let (_, codes, doc) = h.codes(&[]);
    assert!(has(&codes, "hook-fires-twice"), "{doc}");
    let project = h.project();
    let project = project.to_str().unwrap();
    let fix = h.doctor(&["--fix", "--yes", "--no-smoke", "--project", project]);
    assert_eq!(h.read(&elsewhere), theirs, "{}", fix.stdout_text());
    let line = format!(
        "cannot fix: {} leads to {}, outside the project folder",
        h.local().display(),
        std::fs::canonicalize(&elsewhere).unwrap().display()
    );
    assert!(fix.stdout_text().contains(&line), "{}", fix.stdout_text());
}

/// `--fix` edits user settings in steps (hooks, then permission rules, then
/// the status line); a refusal names the place in the file as it is on
/// disk, not in the text after gk's own insertion (`1:431` for this
/// 36-byte file, before).
#[test]
fn a_fix_refusal_points_into_the_file_as_it_is_on_disk() {
    let h = TestEnv::new();
    let text = r#"{"model": "x", "permissions": {"allow": [], "allow": ["a"]}}"#;
    h.write(h.settings(), text);
    let fix = h.doctor(&["--fix", "--yes", "--no-smoke"]);
    let want = format!(
        "gk: {}:1:45: `permissions.allow` appears twice",
        h.settings().display()
    );
    assert!(
        fix.stderr_text().contains(&want),
        "{}\n{}",
        fix.stdout_text(),
        fix.stderr_text()
    );
    assert_eq!(h.read(h.settings()), text);
}

#[test]
fn under_disable_all_hooks_the_smoke_test_says_the_hooks_are_switched_off() {
    let h = TestEnv::new();
    h.install();
    h.set_key(&h.settings(), "disableAllHooks", Value::Bool(true));
    let run = h.doctor(&[]);
    assert!(
        !run.stdout_text().contains("no runnable gk hook registered"),
        "{}",
        run.stdout_text()
    );
    assert!(
        run.stdout_text()
            .contains("Smoke test (skipped: gk's hooks are registered but switched off"),
        "{}",
        run.stdout_text()
    );
}

#[test]
fn plain_gk_on_this_platform_gives_no_other_platforms_hint() {
    let h = TestEnv::new();
    let out = h.cmd().output();
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("no command given"), "{err}");
    assert_eq!(err.contains("gk.exe"), cfg!(windows), "{err}");
}

#[test]
fn a_rule_whose_model_command_cannot_resolve_or_is_remapped_is_said_without_the_value() {
    let h = TestEnv::new();
    h.install();
    h.write(
        h.claude().join("hooks/gk.json"),
        r#"{"models": [
  {"label": "Opus 5.5", "model": "claude-opus-5-5", "command": "opus", "purpose": "p", "keywords": ["deep"]},
  {"label": "Quick", "model": "Quick Model", "purpose": "p", "keywords": ["ok"]}
]}"#,
    );
    h.set_key(
        &h.settings(),
        "env",
        serde_json::json!({"ANTHROPIC_DEFAULT_OPUS_MODEL": "corp-secret-opus-route"}),
    );
    let run = h.doctor(&["--no-smoke"]);
    assert!(
        run.stdout_text().contains("[advice-alias-remapped]"),
        "{}",
        run.stdout_text()
    );
    assert!(
        run.stdout_text().contains("ANTHROPIC_DEFAULT_OPUS_MODEL"),
        "{}",
        run.stdout_text()
    );
    assert!(
        run.stdout_text().contains("[advice-command-unresolved]"),
        "{}",
        run.stdout_text()
    );
    assert!(
        run.stdout_text().contains("Quick Model"),
        "{}",
        run.stdout_text()
    );
    assert!(
        !run.stdout_text().contains("corp-secret-opus-route"),
        "{}",
        run.stdout_text()
    );
    // The built-in rules resolve: no such finding on a plain install.
    std::fs::remove_file(h.claude().join("hooks/gk.json")).unwrap();
    let run = h.doctor(&["--no-smoke"]);
    assert!(
        !run.stdout_text().contains("[advice-"),
        "{}",
        run.stdout_text()
    );
}

/// A directory marketplace holding plugin `name`, whose hooks file is
/// `hooks`, enabled in user settings (the shapes the client writes,
/// measured on 2.1.332: docs/maintainers/claude-code-facts.md, "Plugins").
fn add_plugin(h: &TestEnv, name: &str, hooks: &str) -> PathBuf {
    let mkt = h.home().join("mkt");
    let root = mkt.join("plugins").join(name);
    std::fs::create_dir_all(root.join("hooks")).unwrap();
    std::fs::create_dir_all(root.join(".claude-plugin")).unwrap();
    std::fs::create_dir_all(mkt.join(".claude-plugin")).unwrap();
    std::fs::write(
        root.join(".claude-plugin/plugin.json"),
        format!(r#"{{"name": "{name}"}}"#),
    )
    .unwrap();
    std::fs::write(root.join("hooks/hooks.json"), hooks).unwrap();
    let listed: Vec<Value> = std::fs::read_dir(mkt.join("plugins"))
        .unwrap()
        .map(|e| {
            let n = e.unwrap().file_name().to_string_lossy().into_owned();
            serde_json::json!({"name": n, "source": format!("./plugins/{n}")})
        })
        .collect();
    std::fs::write(
        mkt.join(".claude-plugin/marketplace.json"),
        serde_json::json!({"name": "mkt", "plugins": listed}).to_string(),
    )
    .unwrap();
    let plugins = h.claude().join("plugins");
    std::fs::create_dir_all(&plugins).unwrap();
    std::fs::write(
        plugins.join("known_marketplaces.json"),
        serde_json::json!({"mkt": {"source": {"source": "directory", "path": mkt}}}).to_string(),
    )
    .unwrap();
    let before = std::fs::read_to_string(h.settings()).unwrap_or_default();
    let mut v: Value = serde_json::from_str(&before).unwrap_or(serde_json::json!({}));
    v["enabledPlugins"][format!("{name}@mkt")] = Value::Bool(true);
    h.write(h.settings(), serde_json::to_string_pretty(&v).unwrap());
    root
}

/// gk's three hooks as a plugin registers them: the exec form of the
/// installed program's path (the same string install writes would do as well).
fn gk_plugin_hooks(h: &TestEnv) -> String {
    let gk = h.binary();
    let entry = |kind: &str| serde_json::json!([{"hooks": [{"type": "command", "command": gk, "args": ["hook", kind]}]}]);
    serde_json::json!({"hooks": {
        "UserPromptSubmit": entry("prompt"),
        "Stop": entry("stop"),
        "SessionStart": entry("session"),
    }})
    .to_string()
}

#[test]
fn gk_in_a_plugin_and_in_settings_fires_twice_and_fix_takes_out_the_settings_copy() {
    let h = TestEnv::new();
    h.install();
    let root = add_plugin(&h, "gkp", &gk_plugin_hooks(&h));
    let plugin_before = h.read(root.join("hooks/hooks.json"));
    let (code, codes, doc) = h.codes(&[]);
    assert_eq!(code, 2, "{doc}");
    assert!(has(&codes, "hook-in-plugin-and-settings"), "{doc}");
    let f = doc_findings(&doc, "hook-in-plugin-and-settings")[0];
    let details: Vec<&str> = f["details"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(details.iter().any(|d| d.contains("plugin gkp@mkt")), "{f}");
    let settings = h.settings().display().to_string();
    assert!(details.iter().any(|d| d.contains(&settings)), "{f}");
    assert_eq!(f["fixable"], true, "{f}");
    let fix = h.doctor(&["--fix", "--yes", "--no-smoke"]);
    assert!(
        fix.stdout_text()
            .contains("plugin gkp@mkt registers all of gk's hooks"),
        "{}",
        fix.stdout_text()
    );
    // The settings copies are gone, the plugin's file is as it was, and
    // doctor is content: the plugin does every job.
    assert!(
        !h.read(h.settings()).contains("hook prompt"),
        "{}",
        h.read(h.settings())
    );
    assert_eq!(h.read(root.join("hooks/hooks.json")), plugin_before);
    let (code, codes, doc) = h.codes(&[]);
    assert!(
        !has(&codes, "hook-in-plugin-and-settings") && !has(&codes, "hook-missing"),
        "{doc}"
    );
    assert!(code < 2, "{doc}");
}

/// Read user settings as JSON, change them with `f`, write them back.
fn edit_user_settings(h: &TestEnv, f: impl FnOnce(&mut Value)) {
    let mut user: Value = serde_json::from_str(&h.read(h.settings())).unwrap();
    f(&mut user);
    h.write(h.settings(), serde_json::to_string_pretty(&user).unwrap());
}

/// The events settings.json registers any hook for.
fn events_in(h: &TestEnv) -> Vec<String> {
    let user: Value = serde_json::from_str(&h.read(h.settings())).unwrap();
    user["hooks"]
        .as_object()
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default()
}

#[test]
fn the_rules_install_added_stay_its_own_through_a_plugin_coming_and_going() {
    // A settings file with something of the user's in it, as on most
    // machines: install has nothing of it to note, and writes its record
    // all the same.
    let h = TestEnv::new();
    h.write(h.settings(), r#"{"env": {"KEEP": "1"}}"#);
    h.install();
    let installed = h.read(h.settings());
    add_plugin(&h, "gkp", &gk_plugin_hooks(&h));
    // The plugin does every job: --fix takes the settings copies out, no
    // empty event list left behind, and leaves the rules (the plugin's
    // sessions write records too).
    let fix = h.doctor(&["--fix", "--yes", "--no-smoke"]);
    assert_eq!(events_in(&h), Vec::<String>::new(), "{}", fix.stdout_text());
    assert!(h.read(h.settings()).contains("state/gk"));
    // The plugin switched off: --fix puts the hooks back.
    edit_user_settings(&h, |user| {
        user["enabledPlugins"]["gkp@mkt"] = Value::Bool(false);
    });
    let fix = h.doctor(&["--fix", "--yes", "--no-smoke"]);
    assert_eq!(
        events_in(&h),
        ["SessionStart", "Stop", "UserPromptSubmit"],
        "{}",
        fix.stdout_text()
    );
    // Uninstall takes back everything install and --fix added, the rules
    // too: only the user's own key and the plugin switch are left.
    let left = uninstalled(&h);
    assert_eq!(
        left,
        serde_json::json!({"env": {"KEEP": "1"}, "enabledPlugins": {"gkp@mkt": false}}),
        "installed: {installed}"
    );
}

/// `gk uninstall --yes` run (and passed); the user settings then.
fn uninstalled(h: &TestEnv) -> Value {
    let out = h.cmd().args(["uninstall", "--yes"]).output();
    assert!(out.status.success(), "{}", text(&out.stderr));
    serde_json::from_str(&h.read(h.settings())).unwrap()
}

#[test]
fn an_empty_hooks_object_the_user_had_comes_back_after_a_plugin_took_gks_hooks() {
    // `"hooks": {}` was there, empty, before install filled it; --fix
    // gives gk's hooks to a plugin, and empties it back rather than
    // removing it; uninstall leaves it as the user had it.
    let h = TestEnv::new();
    h.write(h.settings(), "{\n  \"hooks\": {}\n}\n");
    h.install();
    add_plugin(&h, "gkp", &gk_plugin_hooks(&h));
    let fix = h.doctor(&["--fix", "--yes", "--no-smoke"]);
    let after_fix: Value = serde_json::from_str(&h.read(h.settings())).unwrap();
    assert_eq!(
        after_fix["hooks"],
        serde_json::json!({}),
        "{}",
        fix.stdout_text()
    );
    assert_eq!(
        uninstalled(&h),
        serde_json::json!({"hooks": {}, "enabledPlugins": {"gkp@mkt": true}})
    );
}

/// The rows of the registration table (doctor's verbose notes) that run
/// gk's prompt hook: one per copy the client starts.
fn prompt_rows(h: &TestEnv) -> Vec<String> {
    let run = h.doctor(&["--verbose", "--no-smoke"]);
    run.stdout_text()
        .lines()
        .filter(|l| l.contains("UserPromptSubmit `") && l.contains("(gk prompt)"))
        .map(str::to_string)
        .collect()
}

/// A team plugin registering gk's prompt hook and not the others; its root.
fn team_plugin_carrying_the_prompt_hook(h: &TestEnv) -> PathBuf {
    let prompt_only = serde_json::json!({"hooks": {"UserPromptSubmit": [{"hooks": [
        {"type": "command", "command": h.binary(), "args": ["hook", "prompt"]}]}]}})
    .to_string();
    add_plugin(h, "team", &prompt_only)
}

/// The end a fix beside that plugin reaches: the prompt hook once, from
/// the plugin; Stop and SessionStart in user settings (by event, not by
/// spelling: Windows registers the exec form, `"args": ["hook", "stop"]`,
/// elsewhere `… hook stop`); doctor content.
fn prompt_hook_from_the_plugin_and_the_rest_in_user_settings(h: &TestEnv) {
    let after = prompt_rows(h);
    assert_eq!(after.len(), 1, "{after:#?}");
    assert!(after[0].contains("plugin team@mkt"), "{after:#?}");
    let settings = h.read(h.settings());
    let events: Value = serde_json::from_str(&settings).unwrap();
    assert!(
        events["hooks"].get("UserPromptSubmit").is_none(),
        "{settings}"
    );
    assert!(events["hooks"].get("Stop").is_some(), "{settings}");
    assert!(events["hooks"].get("SessionStart").is_some(), "{settings}");
    let (code, codes, doc) = h.codes(&[]);
    assert!(
        !has(&codes, "hook-in-plugin-and-settings") && !has(&codes, "hook-missing"),
        "{doc}"
    );
    assert!(code < 2, "{doc}");
}

#[test]
fn a_team_plugin_carrying_the_prompt_hook_beside_install_loses_the_settings_copy_to_fix() {
    let h = TestEnv::new();
    h.install();
    // A team plugin registering gk's prompt hook, and not the others.
    let root = team_plugin_carrying_the_prompt_hook(&h);
    let plugin_before = h.read(root.join("hooks/hooks.json"));
    let before = prompt_rows(&h);
    assert_eq!(before.len(), 2, "{before:#?}");
    let (code, codes, doc) = h.codes(&[]);
    assert_eq!(code, 2, "{doc}");
    assert!(has(&codes, "hook-in-plugin-and-settings"), "{doc}");
    let f = doc_findings(&doc, "hook-in-plugin-and-settings")[0];
    assert_eq!(f["fixable"], true, "{f}");
    let fix = h.doctor(&["--fix", "--yes", "--no-smoke"]);
    assert!(
        fix.stdout_text()
            .contains("plugin team@mkt now carries gk's prompt hook"),
        "{}",
        fix.stdout_text()
    );
    // The plugin's file as it was; install's Stop and SessionStart
    // entries still there.
    assert_eq!(h.read(root.join("hooks/hooks.json")), plugin_before);
    prompt_hook_from_the_plugin_and_the_rest_in_user_settings(&h);
}

#[test]
fn beside_a_team_plugin_carrying_the_prompt_hook_fix_registers_a_missing_stop_hook() {
    let h = TestEnv::new();
    h.install();
    team_plugin_carrying_the_prompt_hook(&h);
    // The user took install's Stop entry out by hand.
    edit_user_settings(&h, |user| {
        user["hooks"].as_object_mut().unwrap().remove("Stop");
    });
    let (code, codes, doc) = h.codes(&[]);
    assert_eq!(code, 2, "{doc}");
    assert!(has(&codes, "hook-in-plugin-and-settings"), "{doc}");
    let missing = doc_findings(&doc, "hook-missing")[0];
    assert_eq!(missing["fixable"], true, "{missing}");
    assert!(
        missing["fix"]
            .as_str()
            .unwrap()
            .contains("plugins register gk's prompt (team@mkt) hook,"),
        "{missing}"
    );
    let fix = h.doctor(&["--fix", "--yes", "--no-smoke"]);
    assert_eq!(fix.code, Some(0), "{}", fix.stdout_text());
    // Stop back in user settings.
    prompt_hook_from_the_plugin_and_the_rest_in_user_settings(&h);
}

#[test]
fn beside_a_team_plugin_a_repeated_settings_copy_is_told_as_taken_out_not_kept() {
    let h = TestEnv::new();
    h.install();
    team_plugin_carrying_the_prompt_hook(&h);
    // install's prompt entry twice in user settings.
    edit_user_settings(&h, |user| {
        let group = user["hooks"]["UserPromptSubmit"][0].clone();
        user["hooks"]["UserPromptSubmit"]
            .as_array_mut()
            .unwrap()
            .push(group);
    });
    let (_, codes, doc) = h.codes(&[]);
    assert!(has(&codes, "hook-redundant"), "{doc}");
    let f = doc_findings(&doc, "hook-redundant")[0];
    let fix = f["fix"].as_str().unwrap();
    // --fix keeps none of them (the plugin runs the hook), and says so.
    assert!(!fix.contains("keeps one entry"), "{f}");
    assert!(
        fix.contains(
            "takes gk's settings copies of the prompt hook out: plugin team@mkt registers it"
        ),
        "{f}"
    );
    let out = h.doctor(&["--fix", "--yes", "--no-smoke"]);
    assert_eq!(out.code, Some(0), "{}", out.stdout_text());
    prompt_hook_from_the_plugin_and_the_rest_in_user_settings(&h);
}

#[test]
fn beside_a_team_plugin_a_user_settings_file_gk_cannot_edit_is_left_whole() {
    let h = TestEnv::new();
    h.install();
    let root = team_plugin_carrying_the_prompt_hook(&h);
    // `hooks` twice: the client reads the last copy (install's, so the
    // plugin is enabled and Stop is there), gk's editor would change the
    // first, so it edits nothing in this file. Stop taken out of the
    // copy the client reads: a finding --fix would otherwise fix here.
    let mut user: Value = serde_json::from_str(&h.read(h.settings())).unwrap();
    user["hooks"].as_object_mut().unwrap().remove("Stop");
    let text = serde_json::to_string_pretty(&user).unwrap();
    h.write(h.settings(), text.replacen('{', "{\n  \"hooks\": {},", 1));
    let (settings, plugin) = (h.read(h.settings()), h.read(root.join("hooks/hooks.json")));
    let (_, codes, doc) = h.codes(&[]);
    assert!(has(&codes, "hook-missing"), "{doc}");
    assert!(has(&codes, "hook-in-plugin-and-settings"), "{doc}");
    for f in doc["findings"].as_array().unwrap() {
        assert_eq!(f["fixable"], false, "{f}");
    }
    let fix = h.doctor(&["--fix", "--yes", "--no-smoke"]);
    assert_eq!(h.read(h.settings()), settings, "{}", fix.stdout_text());
    assert_eq!(h.read(root.join("hooks/hooks.json")), plugin);
    assert!(fix.stderr.is_empty(), "{}", fix.stderr_text());
}

/// `--fix` takes no settings copy out for a plugin copy that does not do
/// the job everywhere, and says why: the user's copy is the one that runs.
fn a_plugin_copy_that_does_not_count_leaves_the_users_copy(h: &TestEnv) {
    let (_, codes, doc) = h.codes(&[]);
    assert!(has(&codes, "hook-in-plugin-and-settings"), "{doc}");
    let f = doc_findings(&doc, "hook-in-plugin-and-settings")[0];
    assert_eq!(f["fixable"], false, "{f}");
    assert!(
        f["fix"]
            .as_str()
            .unwrap()
            .starts_with("by hand: plugin team@mkt"),
        "{f}"
    );
    let fix = h.doctor(&["--fix", "--yes", "--no-smoke"]);
    let settings = h.read(h.settings());
    let events: Value = serde_json::from_str(&settings).unwrap();
    assert!(
        events["hooks"].get("UserPromptSubmit").is_some(),
        "{}\n{settings}",
        fix.stdout_text()
    );
}

#[test]
fn a_plugin_whose_copy_cannot_run_does_not_take_the_users_copy_away() {
    let h = TestEnv::new();
    h.install();
    let gone = h.home().join("nowhere/gk");
    let hooks = serde_json::json!({"hooks": {"UserPromptSubmit": [{"hooks": [
        {"type": "command", "command": gone, "args": ["hook", "prompt"]}]}]}})
    .to_string();
    add_plugin(&h, "team", &hooks);
    a_plugin_copy_that_does_not_count_leaves_the_users_copy(&h);
}

#[test]
fn a_plugin_enabled_in_one_project_does_not_take_the_users_copy_away() {
    let h = TestEnv::new();
    h.install();
    team_plugin_carrying_the_prompt_hook(&h);
    // Enabled by the project's settings, not the user's.
    let mut enabled = Value::Null;
    edit_user_settings(&h, |user| {
        enabled = user
            .as_object_mut()
            .unwrap()
            .remove("enabledPlugins")
            .unwrap();
    });
    let project = h.project().join(".claude/settings.json");
    h.write(
        &project,
        serde_json::json!({"enabledPlugins": enabled}).to_string(),
    );
    a_plugin_copy_that_does_not_count_leaves_the_users_copy(&h);
}

#[test]
fn what_is_wrong_inside_a_plugin_is_told_as_the_plugins_to_mend() {
    type Hooks = fn(&TestEnv) -> Value;
    let cases: [(&str, Hooks); 3] = [
        ("hook-wrong-event", |h| {
            serde_json::json!({"hooks": {"UserPromptSubmit": [{"hooks": [
                {"type": "command", "command": format!("{} hook stop", h.binary().display())}]}]}})
        }),
        ("hook-fires-twice", |_| {
            serde_json::json!({"hooks": {"Stop": [{"hooks": [
                {"type": "command", "command": "$HOME/.claude/hooks/gk hook stop"},
                {"type": "command", "command": "~/.claude/hooks/gk hook stop"}]}]}})
        }),
        ("hook-binary-missing", |h| {
            serde_json::json!({"hooks": {"Stop": [{"hooks": [
                {"type": "command", "command": h.home().join("nowhere/gk"), "args": ["hook", "stop"]}]}]}})
        }),
    ];
    for (code, hooks) in cases {
        let h = TestEnv::new();
        h.install();
        if code == "hook-fires-twice" {
            // The plugin's two spellings alone: no settings copy beside.
            edit_user_settings(&h, |user| {
                user["hooks"].as_object_mut().unwrap().remove("Stop");
            });
        }
        add_plugin(&h, "team", &hooks(&h).to_string());
        let (_, codes, doc) = h.codes(&[]);
        assert!(has(&codes, code), "{code}: {doc}");
        let f = doc_findings(&doc, code)
            .into_iter()
            .find(|f| {
                f["details"].to_string().contains("plugin team@mkt")
                    || f["message"].to_string().contains("plugin team@mkt")
            })
            .unwrap_or_else(|| panic!("{code}: no finding about the plugin: {doc}"));
        assert_eq!(f["fixable"], false, "{code}: {f}");
        assert!(
            f["fix"].as_str().unwrap().contains("plugin team@mkt"),
            "{code}: {f}"
        );
        if code == "hook-fires-twice" {
            assert!(!has(&codes, "hook-in-plugin-and-settings"), "{doc}");
        }
    }
}

#[test]
fn beside_two_plugins_and_a_settings_copy_the_fix_says_what_it_takes_out_and_what_is_left() {
    let h = TestEnv::new();
    h.install();
    // Two plugins carrying the prompt hook alone.
    let prompt_only = serde_json::json!({"hooks": {"UserPromptSubmit": [{"hooks": [
        {"type": "command", "command": h.binary(), "args": ["hook", "prompt"]}]}]}})
    .to_string();
    add_plugin(&h, "gkp", &prompt_only);
    add_plugin(&h, "gkq", &prompt_only);
    let (_, codes, doc) = h.codes(&[]);
    assert!(has(&codes, "hook-in-plugin-and-settings"), "{doc}");
    let fix = doc_findings(&doc, "hook-in-plugin-and-settings")[0]["fix"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(fix.contains("removes gk's settings copy"), "{fix}");
    assert!(fix.contains("`claude plugin disable gkq@mkt`"), "{fix}");
    assert!(!fix.contains("keeps one canonical entry"), "{fix}");
    // What it says is what it does: the settings copies go, both plugins stay.
    h.doctor(&["--fix", "--yes", "--no-smoke"]);
    assert!(
        !h.read(h.settings()).contains("hook prompt"),
        "{}",
        h.read(h.settings())
    );
    let (_, codes, doc) = h.codes(&[]);
    assert!(has(&codes, "hook-in-two-plugins"), "{doc}");
    assert!(!has(&codes, "hook-in-plugin-and-settings"), "{doc}");
}

#[test]
fn gk_in_two_plugins_is_told_with_the_clients_command_and_not_fixed() {
    let h = TestEnv::new();
    h.install();
    let hooks = gk_plugin_hooks(&h);
    add_plugin(&h, "gkp", &hooks);
    add_plugin(&h, "gkq", &hooks);
    // Install's own entries out of the way: only the plugins register gk.
    let out = h.cmd().args(["uninstall", "--yes"]).output();
    assert!(out.status.success(), "{}", text(&out.stderr));
    std::fs::create_dir_all(h.binary().parent().unwrap()).unwrap();
    std::fs::copy(assert_cmd::cargo::cargo_bin("gk"), h.binary()).unwrap();
    let (_, codes, doc) = h.codes(&[]);
    assert!(has(&codes, "hook-in-two-plugins"), "{doc}");
    let f = doc_findings(&doc, "hook-in-two-plugins")[0];
    assert!(
        f["fix"]
            .as_str()
            .unwrap()
            .contains("claude plugin disable gkq@mkt"),
        "{f}"
    );
    assert_eq!(f["fixable"], false, "{f}");
}

#[test]
fn an_enabled_plugin_whose_folder_is_gone_and_a_broken_plugin_file_are_reported() {
    let h = TestEnv::new();
    h.install();
    let root = add_plugin(&h, "gone", "{}");
    std::fs::remove_dir_all(&root).unwrap();
    let broken = add_plugin(&h, "broken", "{\"hooks\": {},}");
    let (_, codes, doc) = h.codes(&[]);
    assert!(has(&codes, "plugin-missing"), "{doc}");
    assert!(
        doc_findings(&doc, "plugin-missing")[0]["message"]
            .as_str()
            .unwrap()
            .contains("gone@mkt"),
        "{doc}"
    );
    assert!(has(&codes, "plugin-hooks-unparseable"), "{doc}");
    let f = doc_findings(&doc, "plugin-hooks-unparseable")[0];
    assert!(
        f["message"].as_str().unwrap().contains(
            &broken
                .join("hooks")
                .join("hooks.json")
                .display()
                .to_string()
        ),
        "{f}"
    );
}

#[test]
fn install_sees_gks_plugin_registers_no_hooks_and_uninstall_says_how_to_remove_it() {
    let h = TestEnv::new();
    // gk's own plugin files, as the repository's marketplace holds them.
    add_plugin(&h, "gk", include_str!("../../plugin/hooks/hooks.json"));
    h.install();
    let settings = h.read(h.settings());
    assert!(!settings.contains("hook prompt"), "{settings}");
    assert!(
        settings.contains("Edit("),
        "the permission rules are still added: {settings}"
    );
    let (_, codes, doc) = h.codes(&[]);
    assert!(
        !has(&codes, "hook-missing") && !has(&codes, "hook-in-plugin-and-settings"),
        "{doc}"
    );
    // An install from before the plugin: its entries go.
    h.register(&h.settings(), "Stop", "~/.claude/hooks/gk hook stop");
    let out = h.cmd().args(["install", "--yes", "--no-smoke"]).output();
    assert!(
        text(&out.stdout).contains("plugin gk@mkt registers gk's hooks"),
        "{}",
        text(&out.stdout)
    );
    assert!(!h.read(h.settings()).contains("hook stop"));
    let out = h.cmd().args(["uninstall", "--yes"]).output();
    assert!(
        text(&out.stdout).contains("claude plugin uninstall gk@mkt"),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
}

/// gk's status line under a managed `allowManagedHooksOnly`: the client
/// shows no custom status line then (measured on 2.1.332), so doctor names
/// the managed file and key; without the policy there is nothing to say.
#[test]
fn a_managed_allow_managed_hooks_only_switches_gks_status_line_off() {
    let h = TestEnv::new();
    let out = h
        .cmd()
        .args(["install", "--yes", "--no-smoke", "--statusline"])
        .output();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let (_, codes, _) = h.codes(&[]);
    assert!(!has(&codes, "statusline-disabled"), "{codes:?}");
    h.write(
        h.managed_settings(),
        "{\n  \"allowManagedHooksOnly\": true\n}\n",
    );
    let (_, codes, doc) = h.codes(&[]);
    assert!(has(&codes, "statusline-disabled"), "{doc}");
    let finding = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "statusline-disabled")
        .unwrap();
    let message = finding["message"].as_str().unwrap();
    assert!(
        message.contains(&format!("{}:2", h.managed_settings().display()))
            && message.contains("allowManagedHooksOnly"),
        "{message}"
    );
    assert_eq!(finding["fixable"], false, "{finding}");
}

/// Doctor's words, whole, for a file the client skips, a part it drops and
/// a plugin the project enables that this machine never installed: an
/// error, a warning and a note (which changes no exit code).
#[test]
fn the_words_for_a_skipped_file_a_dropped_part_and_a_never_installed_plugin() {
    let h = TestEnv::new();
    h.install();
    h.write(
        h.project_settings(),
        "{\n  \"permissions\": {\"allow\": [\"Bash(ls:*)\"]},\n  \"model\": 5\n}\n",
    );
    h.write(
        h.local(),
        "{\n  \"hooks\": {\n    \"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"notify.sh\", \"timeout\": \"30\"}]}]\n  },\n  \"enabledPlugins\": {\"formatter@acme-tools\": true}\n}\n",
    );
    let run = h.doctor(&["--no-smoke"]);
    let (p, l) = (h.project_settings(), h.local());
    let (p, l) = (p.display(), l.display());
    let stdout = run.stdout_text();
    let words: Vec<&str> = stdout
        .lines()
        .take_while(|line| !line.starts_with("[✓] Hook programs"))
        .collect();
    assert_eq!(
        words.join("\n"),
        format!(
            "[✗] Settings files
    ✗ project settings {p}:3:12: model: `model` must be a string, not a number; Claude Code skips this whole file: none of its hooks, permissions or env are in effect [settings-schema]
      fix: correct by hand: model in {p}
    ! local settings {l}:3:25: hooks.Stop[0].hooks[0]: `timeout` of a command hook must be a number; Claude Code ignores this entry (its hooks never run); the rest of the file is in effect [settings-part-dropped]
      fix: correct by hand: hooks.Stop[0].hooks[0] in {l}
[•] Hook registrations
    • this project enables plugin formatter from marketplace acme-tools ({l}), which this machine has not installed; `claude plugin install formatter@acme-tools` to use it [plugin-not-installed]"
        ),
        "{}",
        run.stdout_text()
    );
    assert_eq!(run.code, Some(2));
    // The note alone changes nothing: exit 0.
    h.write(h.project_settings(), "{}\n");
    h.write(
        h.local(),
        "{\"enabledPlugins\": {\"formatter@acme-tools\": true}}\n",
    );
    let (code, codes, doc) = h.codes(&[]);
    assert_eq!((code, codes), (0, vec![]), "{doc}");
    assert_eq!(finding(&doc, "plugin-not-installed")["severity"], "info");
}

/// The commonest project hook: a script through `$CLAUDE_PROJECT_DIR`,
/// looked up in the project being checked; and a bare program name,
/// looked up on PATH. Missing, each is named; present, nothing is said.
#[test]
fn project_hooks_through_claude_project_dir_and_bare_names_are_looked_up() {
    let h = TestEnv::new();
    h.install();
    // A program every machine of the platform has on PATH.
    let present = if cfg!(windows) {
        "cmd /c exit 0"
    } else {
        "sh -c true"
    };
    h.write(
        h.project_settings(),
        r#"{"hooks": {
  "Stop": [{"hooks": [{"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/notify.sh"}]}],
  "PostToolUse": [{"matcher": "Edit", "hooks": [
    {"type": "command", "command": "gk-test-no-such-tool --fix"},
    {"type": "command", "command": "PRESENT"},
    {"type": "command", "command": "cd \"$CLAUDE_PROJECT_DIR\" && make lint"}
  ]}]
}}"#
        .replace("PRESENT", present),
    );
    let (code, codes, doc) = h.codes(&[]);
    assert_eq!(code, 2, "{doc}");
    assert_eq!(
        codes,
        ["hook-binary-missing", "hook-program-not-found"],
        "{doc}"
    );
    let script = h.project().join(".claude").join("hooks").join("notify.sh");
    // On Windows the program is named as gk compares Windows file names
    // (lower case, forward slashes).
    let named = match cfg!(windows) {
        true => script
            .display()
            .to_string()
            .to_lowercase()
            .replace('\\', "/"),
        false => script.display().to_string(),
    };
    let f = finding(&doc, "hook-binary-missing");
    assert_eq!(
        f["message"],
        format!(
            "{} does not exist ($CLAUDE_PROJECT_DIR is {} here); project settings {}:2 fails on every Stop",
            named,
            h.project().display(),
            h.project_settings().display()
        ),
        "{f}"
    );
    let f = finding(&doc, "hook-program-not-found");
    assert_eq!(
        f["message"],
        format!(
            "`gk-test-no-such-tool` is not found on PATH here; project settings {}:4 fails on every PostToolUse unless the PATH Claude Code runs hooks with has it",
            h.project_settings().display()
        ),
        "{f}"
    );
    // The script there: nothing said of it.
    std::fs::create_dir_all(script.parent().unwrap()).unwrap();
    write_script(&script, "#!/bin/sh\nexit 0\n");
    let (_, codes, doc) = h.codes(&[]);
    assert_eq!(codes, ["hook-program-not-found"], "{doc}");
}

#[test]
fn beside_a_team_plugin_a_project_copy_of_a_hook_it_does_not_carry_goes_as_told() {
    // The plugin carries the prompt hook only. gk's stop hook in shared
    // project settings: doctor says --fix removes it there (user settings
    // keeps the one entry), so --fix must, and leave doctor content.
    let h = TestEnv::new();
    h.install();
    team_plugin_carrying_the_prompt_hook(&h);
    h.register(
        &h.project_settings(),
        "Stop",
        "$HOME/.claude/hooks/gk hook stop",
    );
    let (_, _, doc) = h.codes(&[]);
    let told = doc_findings(&doc, "hook-redundant")
        .into_iter()
        .find(|f| {
            f["message"]
                .as_str()
                .unwrap()
                .contains("shared project settings")
        })
        .unwrap_or_else(|| panic!("{doc}"));
    assert!(
        told["fix"].as_str().unwrap().contains("removes it there"),
        "{told}"
    );
    let fix = h.doctor(&["--fix", "--yes", "--no-smoke"]);
    assert!(
        !h.read(h.project_settings()).contains("hook stop"),
        "{}",
        fix.stdout_text()
    );
    assert_eq!(fix.code, Some(0), "{}", fix.stdout_text());
}
