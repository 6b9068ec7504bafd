//! gk against hostile plugins: a cloned repository whose
//! `.claude/settings.json` declares a folder marketplace (a relative path)
//! and enables its plugins, each plugin built to make a reader run away —
//! a manifest naming 37,000 hooks paths, `${CLAUDE_PLUGIN_ROOT}` thousands
//! of times under a folder whose own name holds `$CLAUDE_PLUGIN_ROOT`,
//! 18,900 `enabledPlugins` ids in each of two settings files, a hundred
//! hooks files of 5,300 handlers. The session check reads all of that
//! within one budget: under 0.5 s and a 64 MiB address space on each, the
//! source past the budget named in one line, and no hook called "not
//! registered" while something is unread. Doctor reads it all, linearly
//! (under 3 s on 100,000 ids or 37,000 hooks paths), names what it could
//! not read (`source-unread`) and offers no registration fix that depends
//! on it.
//!
//! Every run has a kill limit ([`LIMIT`], far above the limits asserted:
//! a reader that runs away fails its case instead of stalling the suite)
//! and on Unix an address-space limit through `ulimit -v`. The times are
//! those of a debug build on a shared machine; the release figures are
//! scripts/bench-hooks.sh's (docs/maintainers/benchmarks.md).
//!
//! The runs are processes built from the one environment ([`TestEnv`],
//! [`crate::common::Gk::to_command`]): only a process can be killed or
//! held under an address-space limit (hence the lint below).
#![allow(clippy::disallowed_types)]

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use serde_json::{json, Value};

use crate::common::limited::{self, Stdin};
use crate::common::{Run, TestEnv};

/// A run still going after this is killed and fails its case.
const LIMIT: Duration = Duration::from_secs(60);

/// The session check's limits on a hostile repository: 0.5 s for an
/// optimized gk (`cargo test --release`); a debug build parses JSON about
/// eight times slower (two 245 KiB settings files alone take it 0.26 s
/// here), so it gets four times that. The readers this file guards took
/// 2.5 s to minutes, optimized.
/// Under Wine (a debug build) every file call and the process start are
/// emulated: 100 hooks files took 2.6 s there on a loaded 2-core machine,
/// so Wine gets 10 s, still a fraction of what the old readers took.
const SESSION_TIME: Duration = Duration::from_millis(if cfg!(gk_wine) {
    10_000
} else if cfg!(debug_assertions) {
    2_000
} else {
    500
});
const SESSION_MEMORY_KIB: u64 = 64 << 10;

/// Doctor's limit on 100,000 ids or 37,000 hooks paths: 3 s optimized;
/// twice that for a debug build (which parses the 1.3 MB settings file of
/// 100,000 ids alone in 1.2 s here under a load of 13).
/// Under Wine, 30 s (37,000 paths took 9.9 s there on a loaded machine).
const DOCTOR_TIME: Duration = Duration::from_secs(if cfg!(gk_wine) {
    30
} else if cfg!(debug_assertions) {
    6
} else {
    3
});
const DOCTOR_MEMORY_KIB: u64 = 1 << 20;

/// Run `cmd` with `stdin` under `ulimit -v kib` (Unix), killed after
/// [`LIMIT`]: the run and the time it took.
fn run_limited(cmd: Command, stdin: &[u8], kib: u64, what: &str) -> (Run, Duration) {
    limited::run_limited(cmd, Stdin::Bytes(stdin.to_vec()), kib, LIMIT, what)
}

/// A home with gk installed as `gk install` registers it (the program a
/// stand-in file: the session check only looks it up), and a cloned
/// repository `project` whose settings declare the folder marketplace
/// `mkt` (relative) and enable `ids`.
fn plugin_repo(gk_in_settings: bool) -> TestEnv {
    let env = TestEnv::new();
    let project = env.project();
    std::fs::create_dir_all(env.hooks_dir()).unwrap();
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    std::fs::create_dir_all(project.join("mkt/.claude-plugin")).unwrap();
    std::fs::write(env.hooks_dir().join("gk"), "").unwrap();
    if gk_in_settings {
        let entry = |kind: &str| json!([{"hooks": [{"type": "command", "command": format!("{GK} hook {kind}")}]}]);
        let user = json!({"hooks": {
            "UserPromptSubmit": entry("prompt"),
            "Stop": entry("stop"),
            "SessionStart": entry("session"),
        }});
        std::fs::write(env.settings(), user.to_string()).unwrap();
    }
    env
}

const GK: &str = "\"$HOME/.claude/hooks/gk\"";

/// What these tests do in a plugin repository.
trait PluginRepo {
    fn plugin(&self, name: &str, folder: &str, files: &[(&str, &str)]);
    fn enable(&self, file: &str, ids: &[String]);
    fn gk_limited(&self, args: &[&str]) -> Command;
    fn session(&self, what: &str) -> String;
    fn doctor(&self, what: &str) -> (i32, Vec<String>, Value);
}

impl PluginRepo for TestEnv {
    /// Plugin `name` at `mkt/<folder>` holding `files` (relative path, text).
    fn plugin(&self, name: &str, folder: &str, files: &[(&str, &str)]) {
        let root = self.project().join("mkt").join(folder);
        for (rel, text) in files {
            let p = root.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        let listing = self.project().join("mkt/.claude-plugin/marketplace.json");
        let mut m: Value = std::fs::read_to_string(&listing)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or(json!({"name": "m", "plugins": []}));
        m["plugins"]
            .as_array_mut()
            .unwrap()
            .push(json!({"name": name, "source": format!("./{folder}")}));
        std::fs::write(listing, m.to_string()).unwrap();
    }

    /// The project's settings: the marketplace declared, `ids` enabled.
    fn enable(&self, file: &str, ids: &[String]) {
        let enabled: serde_json::Map<String, Value> = ids
            .iter()
            .map(|id| (id.clone(), Value::Bool(true)))
            .collect();
        let settings = json!({
            "extraKnownMarketplaces": {"m": {"source": {"source": "directory", "path": "mkt"}}},
            "enabledPlugins": enabled,
        });
        std::fs::write(
            self.project().join(".claude").join(file),
            settings.to_string(),
        )
        .unwrap();
    }

    /// gk in the repository, as a process to put limits around.
    fn gk_limited(&self, args: &[&str]) -> Command {
        self.gk(args)
            .current_dir(self.project())
            .process()
            .to_command()
    }

    /// `gk hook session` for a session in the repository, under the
    /// session limits: its message (empty when it printed nothing).
    fn session(&self, what: &str) -> String {
        let event =
            json!({"hook_event_name": "SessionStart", "source": "startup", "cwd": self.project()});
        let (out, took) = run_limited(
            self.gk_limited(&["hook", "session"]),
            event.to_string().as_bytes(),
            SESSION_MEMORY_KIB,
            what,
        );
        assert_eq!(out.code, Some(0), "{what}: {}", out.stderr_text());
        assert!(
            out.stderr_text().is_empty(),
            "{what}: stderr {}",
            out.stderr_text()
        );
        eprintln!("{what}: session check {:?}", took);
        assert!(
            took < SESSION_TIME,
            "{what}: the session check took {:?}",
            took
        );
        if out.stdout_text().trim().is_empty() {
            return String::new();
        }
        let v: Value = serde_json::from_str(&out.stdout_text())
            .unwrap_or_else(|e| panic!("{what}: {e}: {}", out.stdout_text()));
        v["systemMessage"].as_str().unwrap_or_default().to_string()
    }

    /// `gk doctor --json --no-smoke` under doctor's limits: exit code and
    /// finding codes, and the document.
    fn doctor(&self, what: &str) -> (i32, Vec<String>, Value) {
        let (out, took) = run_limited(
            self.gk_limited(&["doctor", "--json", "--no-smoke"]),
            b"",
            DOCTOR_MEMORY_KIB,
            what,
        );
        eprintln!("{what}: doctor {:?}", took);
        assert!(took < DOCTOR_TIME, "{what}: doctor took {:?}", took);
        let doc: Value = serde_json::from_str(&out.stdout_text())
            .unwrap_or_else(|e| panic!("{what}: {e}: {}{}", out.stdout_text(), out.stderr_text()));
        let codes = doc["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|f| f["code"].as_str().map(str::to_string))
            .collect();
        (out.code.unwrap(), codes, doc)
    }
}

/// The message names a source past the budget in one line, with the
/// command that reads it, and calls no hook unregistered.
fn assert_named_not_missing(message: &str, source_ends: &str, what: &str) {
    assert!(
        message.lines().any(|l| l.contains(source_ends)
            && l.contains(" too large to check at session start")
            && l.contains(" -- gk doctor")),
        "{what}: no line names {source_ends}:\n{message}"
    );
    assert!(
        !message.contains("not registered"),
        "{what}: a hook called missing while a source is unread:\n{message}"
    );
}

/// `i` in base 36: 37,000 names in three characters.
fn short(mut i: usize) -> String {
    let digits = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        out.push(digits[i % 36]);
        i /= 36;
        if i == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).unwrap()
}

fn manifest_with_hooks_paths(n: usize) -> String {
    let list: Vec<String> = (0..n).map(short).collect();
    json!({"name": "p", "hooks": list}).to_string()
}

#[test]
fn a_manifest_naming_37000_hooks_paths_is_named_not_followed() {
    let repo = plugin_repo(true);
    let manifest = manifest_with_hooks_paths(37_000);
    assert!(manifest.len() < 256 << 10);
    repo.plugin("p", "p", &[(".claude-plugin/plugin.json", &manifest)]);
    repo.enable("settings.json", &["p@m".to_string()]);
    let msg = repo.session("37,000 hooks paths");
    assert_named_not_missing(&msg, "plugin.json", "37,000 hooks paths");
    // Doctor follows every one of them, once each, in time.
    let (_, codes, doc) = repo.doctor("37,000 hooks paths");
    assert!(!codes.iter().any(|c| c == "source-unread"), "{doc:#}");
}

#[test]
fn the_plugin_root_put_in_eleven_thousand_times_under_a_folder_named_after_it() {
    let repo = plugin_repo(true);
    // Four folder levels, each named with `$CLAUDE_PLUGIN_ROOT` twelve times.
    let level = format!("d{}", "$CLAUDE_PLUGIN_ROOT".repeat(12));
    let folder = [level.as_str(); 4].join("/");
    let command = format!("gk {}", "${CLAUDE_PLUGIN_ROOT}".repeat(11_000));
    let hooks = json!({"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": command}]}]}});
    repo.plugin("p", &folder, &[("hooks/hooks.json", &hooks.to_string())]);
    repo.enable("settings.json", &["p@m".to_string()]);
    let msg = repo.session("a nested root put in 11,000 times");
    assert_named_not_missing(&msg, "hooks.json", "a nested root put in 11,000 times");
    // Doctor names it too (the command would be megabytes long).
    let (_, codes, doc) = repo.doctor("a nested root put in 11,000 times");
    assert!(codes.iter().any(|c| c == "source-unread"), "{doc:#}");
}

#[test]
fn ten_plugins_with_12000_expansions_each() {
    let repo = plugin_repo(true);
    let command = format!("gk {}", "${CLAUDE_PLUGIN_ROOT}".repeat(12_000));
    let hooks = json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": command}]}]}})
        .to_string();
    assert!(hooks.len() < 256 << 10);
    let mut ids = Vec::new();
    for i in 0..10 {
        let name = format!("p{i}");
        repo.plugin(&name, &name, &[("hooks/hooks.json", &hooks)]);
        ids.push(format!("{name}@m"));
    }
    repo.enable("settings.json", &ids);
    let msg = repo.session("ten plugins, 12,000 expansions each");
    assert_named_not_missing(&msg, "hooks.json", "ten plugins, 12,000 expansions each");
}

#[test]
fn two_settings_files_enabling_18900_plugins_each() {
    let repo = plugin_repo(true);
    let ids: Vec<String> = (0..18_900).map(|i| format!("{}@m", short(i))).collect();
    repo.enable("settings.json", &ids);
    repo.enable("settings.local.json", &ids);
    for f in ["settings.json", "settings.local.json"] {
        let len = std::fs::metadata(repo.project().join(".claude").join(f))
            .unwrap()
            .len();
        assert!(len < 256 << 10, "{f}: {len}");
    }
    let msg = repo.session("18,900 ids in two files");
    assert!(
        msg.lines()
            .any(|l| l.contains("more enabled plugins are too many to check at session start")),
        "{msg}"
    );
    assert!(!msg.contains("not registered"), "{msg}");
}

#[test]
fn doctor_merges_100000_enabled_plugin_ids_in_time() {
    let repo = plugin_repo(true);
    let ids: Vec<String> = (0..100_000).map(|i| format!("plugin-{i:06}@m")).collect();
    repo.enable("settings.json", &ids);
    let (_, codes, doc) = repo.doctor("100,000 ids");
    // It reads a thousand plugins and names the rest as not read.
    assert!(codes.iter().any(|c| c == "source-unread"), "{doc:#}");
    assert!(!codes.iter().any(|c| c == "hook-missing"), "{doc:#}");
}

#[test]
fn a_hundred_plugins_of_5300_handlers_each() {
    let repo = plugin_repo(true);
    let one = json!({"type": "command", "command": "gk"});
    let hooks = json!({"hooks": {"Stop": [{"hooks": vec![one; 5_300]}]}}).to_string();
    assert!(hooks.len() < 256 << 10, "{}", hooks.len());
    let mut ids = Vec::new();
    for i in 0..100 {
        let name = format!("p{i:03}");
        repo.plugin(&name, &name, &[("hooks/hooks.json", &hooks)]);
        ids.push(format!("{name}@m"));
    }
    repo.enable("settings.json", &ids);
    let msg = repo.session("100 plugins x 5,300 handlers");
    assert_named_not_missing(&msg, "hooks.json", "100 plugins x 5,300 handlers");
}

/// gk's three hooks in a plugin's hooks file (the exec form of gk's own
/// plugin), the file padded to `bytes` with a key the client ignores.
fn gk_plugin_hooks(bytes: usize) -> String {
    let entry = |kind: &str| json!([{"hooks": [{"type": "command", "command": "gk", "args": ["hook", kind]}]}]);
    let mut v = json!({"hooks": {
        "UserPromptSubmit": entry("prompt"),
        "Stop": entry("stop"),
        "SessionStart": entry("session"),
    }});
    let len = v.to_string().len();
    v["description"] = Value::String("x".repeat(bytes.saturating_sub(len + 20)));
    v.to_string()
}

#[test]
fn gks_own_plugin_past_the_budget_is_named_and_not_called_unregistered() {
    // No gk in settings: the plugin is gk's only registration.
    let repo = plugin_repo(false);
    let hooks = gk_plugin_hooks(300 << 10);
    repo.plugin("gk", "gk", &[("hooks/hooks.json", &hooks)]);
    repo.enable("settings.json", &["gk@m".to_string()]);
    let msg = repo.session("gk's plugin over 256 KiB");
    assert_named_not_missing(&msg, "hooks.json", "gk's plugin over 256 KiB");
    // Doctor reads it whole: every hook registered, by the plugin.
    let (_, codes, doc) = repo.doctor("gk's plugin over 256 KiB");
    assert!(!codes.iter().any(|c| c == "hook-missing"), "{doc:#}");
    assert!(!codes.iter().any(|c| c == "source-unread"), "{doc:#}");
}

/// A plugin hooks file larger than doctor reads (sparse: no disk).
fn huge_hooks_file(repo: &TestEnv) -> PathBuf {
    repo.plugin("gk", "gk", &[("hooks/hooks.json", "")]);
    let path = repo
        .project()
        .join("mkt")
        .join("gk")
        .join("hooks")
        .join("hooks.json");
    let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    f.set_len(17 << 20).unwrap();
    repo.enable("settings.json", &["gk@m".to_string()]);
    path
}

#[test]
fn a_plugin_hooks_file_past_what_doctor_reads_is_named_and_fix_registers_nothing() {
    // gk's only registration may be in the file doctor cannot read.
    let repo = plugin_repo(false);
    let path = huge_hooks_file(&repo);
    let (code, codes, doc) = repo.doctor("a 17 MiB plugin hooks file");
    assert!(codes.iter().any(|c| c == "source-unread"), "{doc:#}");
    assert!(!codes.iter().any(|c| c == "hook-missing"), "{doc:#}");
    assert!(code >= 1, "{doc:#}");
    let named = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "source-unread")
        .unwrap();
    // Named as the settings name the marketplace: relative to the project.
    let shown = path.strip_prefix(repo.project()).unwrap();
    assert!(
        named["message"]
            .as_str()
            .unwrap()
            .starts_with(&format!("{} is past what gk doctor reads", shown.display())),
        "{named:#}"
    );
    let settings = repo.settings();
    let (out, _) = run_limited(
        repo.gk_limited(&["doctor", "--fix", "--yes", "--no-smoke"]),
        b"",
        DOCTOR_MEMORY_KIB,
        "--fix beside a 17 MiB plugin hooks file",
    );
    assert!(
        !std::fs::read_to_string(&settings)
            .unwrap_or_default()
            .contains("hook prompt"),
        "--fix registered gk beside a file it did not read:\n{}",
        out.stdout_text()
    );
}

#[test]
fn beside_settings_a_plugin_file_doctor_cannot_read_is_not_a_clean_bill() {
    let repo = plugin_repo(true);
    huge_hooks_file(&repo);
    let (code, codes, doc) = repo.doctor("gk in settings, a 17 MiB plugin hooks file");
    assert!(codes.iter().any(|c| c == "source-unread"), "{doc:#}");
    assert!(code >= 1, "{doc:#}");
}

#[test]
fn the_session_check_on_a_healthy_repository_with_plugins_says_nothing() {
    // The control: the same layout, small and healthy, reads whole.
    let repo = plugin_repo(true);
    let hooks = json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/bin/lint"}]}]}}).to_string();
    let mut ids = Vec::new();
    for i in 0..50 {
        let name = format!("p{i:02}");
        repo.plugin(
            &name,
            &name,
            &[
                ("hooks/hooks.json", &hooks),
                (
                    ".claude-plugin/plugin.json",
                    &json!({"name": name}).to_string(),
                ),
            ],
        );
        ids.push(format!("{name}@m"));
    }
    repo.enable("settings.json", &ids);
    assert_eq!(repo.session("50 healthy plugins"), "");
}
