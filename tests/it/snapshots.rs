//! What a person or Claude reads, whole: reviewed snapshot files in
//! `tests/it/snapshots/`. A change to a message shows up as a snapshot
//! diff (`cargo insta review`, or `INSTA_UPDATE=always` then `git diff`).
//!
//! The snapshots by area are in the `snap_*` modules; this one holds what
//! they share: the settings ([`settings`]: the common filters and the few
//! more a snapshot of gk's plans needs) and how a run is written down
//! ([`transcript`], [`hook_output`]).

use std::path::Path;

use crate::common::{gk_bin, snapshot_settings, Gk, Run, TestEnv};

/// [`snapshot_settings`] and: the size and fingerprint of a program (they
/// change with every build), a backup's name (the backed-up file's path
/// folded into one name, and the time), a folder's pointer file (named
/// after a hash of the folder's path), the folder of the gk under test,
/// and on Windows the separators
/// after `[HOME]` and `[ROOT]` (so one snapshot fits both where only the
/// path spelling differs).
pub fn settings(env: &TestEnv) -> insta::Settings {
    let mut s = snapshot_settings(env);
    s.add_filter(
        r"\b\d+ bytes, fingerprint [0-9a-f]{16}\b",
        "[N] bytes, fingerprint [FINGERPRINT]",
    );
    s.add_filter(
        r"(backups[/\\]+)[^\s]*?%([^%\s]+)\.gk-backup-\d{8}-\d{6}(-\d+)?",
        "${1}[..]%${2}.gk-backup-[STAMP]",
    );
    // A folder's pointer file is named after a hash of the folder's path.
    s.add_filter(r"\bfolder\.[0-9a-f]{32}\.json\b", "folder.[HASH].json");
    // The gk under test (uninstall names it: "gk itself is still at …").
    if let Some(dir) = gk_bin().parent() {
        let shown = dir.display().to_string();
        let mut forms = vec![shown.clone(), shown.replace('\\', "/")];
        // Under Wine the build's Unix path reaches gk as Wine's drive Z:.
        if cfg!(windows) && shown.starts_with('/') {
            forms.push(format!("Z:{}", shown.replace('/', "\\")));
        }
        for form in forms {
            s.add_filter(&regex::escape(&form), "[TARGET]");
        }
    }
    if cfg!(windows) {
        // One separator a pass: a filter is one `replace_all`, and each
        // match starts at the placeholder.
        for _ in 0..8 {
            s.add_filter(r"(\[(?:HOME|ROOT|TARGET)\][^\s\\`'\x22]*)\\+", "${1}/");
        }
    }
    s
}

/// [`settings`], with the suffix `windows` on Windows: for snapshots that
/// hold what differs there (the exec form of a registered command, the
/// PowerShell status line, where a managed drop-in goes).
pub fn platform_settings(env: &TestEnv) -> insta::Settings {
    let mut s = settings(env);
    if cfg!(windows) {
        s.set_snapshot_suffix("windows");
    }
    s
}

/// The exit code and both streams of a run, as a reader sees them.
pub fn transcript(run: &Run) -> String {
    let mut out = format!("exit: {}\n", code(run));
    for (name, bytes) in [("stdout", &run.stdout), ("stderr", &run.stderr)] {
        if !bytes.is_empty() {
            out.push_str(&format!("--- {name}\n{}", String::from_utf8_lossy(bytes)));
            if !bytes.ends_with(b"\n") {
                out.push_str("\n[no newline at the end]\n");
            }
        }
    }
    out
}

fn code(run: &Run) -> String {
    run.code.map_or("killed".into(), |c| c.to_string())
}

/// A hook's answer: the hook contract checked (exit 0, nothing on
/// stderr, one JSON line or nothing), then the JSON pretty-printed so the
/// messages read as text; `(no output)` when the hook is silent.
pub fn hook_output(run: &Run) -> String {
    run.assert_hook_contract("hook");
    if run.stdout.is_empty() {
        return "(no output)\n".into();
    }
    let v: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    let mut out = serde_json::to_string_pretty(&v).unwrap();
    out.push('\n');
    // The messages themselves, as the client shows them (the JSON above
    // has them escaped on one line).
    for (name, text) in [
        ("systemMessage", v["systemMessage"].as_str()),
        (
            "additionalContext",
            v["hookSpecificOutput"]["additionalContext"].as_str(),
        ),
    ] {
        if let Some(text) = text {
            out.push_str(&format!("--- {name}\n{text}\n"));
        }
    }
    out
}

/// gk in the machine's project folder (doctor reads that folder's
/// settings; the test program's own folder is nobody's project).
pub fn gk_in_project<const N: usize>(env: &TestEnv, args: [&str; N]) -> Gk {
    let mut g = env.gk(args);
    g.current_dir(env.project());
    g
}

/// A fresh machine after `gk install --yes --no-smoke`.
pub fn installed() -> TestEnv {
    let env = TestEnv::new();
    gk_in_project(&env, ["install", "--yes", "--no-smoke"])
        .run()
        .ok();
    env
}

/// Add a command handler for `event` to the settings file at `file`
/// (made when missing), after what is there.
pub fn register(env: &TestEnv, file: &Path, event: &str, handler: serde_json::Value) {
    let mut v: serde_json::Value = match std::fs::read_to_string(file) {
        Ok(t) => serde_json::from_str(&t).unwrap(),
        Err(_) => serde_json::json!({}),
    };
    let groups = v["hooks"][event].as_array().cloned().unwrap_or_default();
    let mut groups = groups;
    groups.push(serde_json::json!({"hooks": [handler]}));
    v["hooks"][event] = serde_json::Value::Array(groups);
    env.write(file, serde_json::to_string_pretty(&v).unwrap());
}

/// Register gk's prompt hook a second time, spelled `~/…`, in the
/// project's local settings: the client runs both spellings.
pub fn second_spelling_of_the_prompt_hook(env: &TestEnv) {
    let local = env.project().join(".claude").join("settings.local.json");
    register(
        env,
        &local,
        "UserPromptSubmit",
        serde_json::json!({"type": "command", "command": "~/.claude/hooks/gk hook prompt"}),
    );
}

/// Put a trailing comma after the last permission rule install wrote (the
/// same line on every platform): Claude Code then skips the whole file.
pub fn trailing_comma_in_settings(env: &TestEnv) {
    let text = env.read(env.settings());
    let rule = "\"Edit(~/.local/state/gk/*.json)\"";
    assert!(text.contains(rule), "{text}");
    env.write(env.settings(), text.replacen(rule, &format!("{rule},"), 1));
}

/// The handler install registered for `event` in the user settings.
pub fn installed_handler(env: &TestEnv, event: &str) -> serde_json::Value {
    let v: serde_json::Value = serde_json::from_str(&env.read(env.settings())).unwrap();
    v["hooks"][event][0]["hooks"][0].clone()
}

#[test]
fn rules_lists_the_default_table() {
    let env = TestEnv::new();
    let out = env.gk(["rules"]).run().ok();
    snapshot_settings(&env).bind(|| insta::assert_snapshot!("rules", out));
}
