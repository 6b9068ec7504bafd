//! gk's plugin as a channel, whole: what install, uninstall and doctor
//! say and do on a machine where gk's own plugin (the repository's
//! `plugin/` files) is enabled. Beside the plugin install adds only what a
//! plugin cannot carry (the permission rules, the CLAUDE.md block): no
//! program copy in `<claude dir>/hooks/`, no hooks in settings.json; doctor
//! words the plugin's findings as the plugin's.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::TestEnv;
use crate::snapshots::{gk_in_project, platform_settings, register, transcript};

/// A directory marketplace `mkt` holding gk's plugin as the repository
/// ships it, enabled in user settings (the shapes the client writes,
/// measured on 2.1.332). Returns the plugin's folder.
fn with_gks_plugin(env: &TestEnv) -> PathBuf {
    let mkt = env.home().join("mkt");
    let root = mkt.join("plugins").join("gk");
    env.write(
        root.join(".claude-plugin/plugin.json"),
        include_str!("../../plugin/.claude-plugin/plugin.json"),
    );
    env.write(
        root.join("hooks/hooks.json"),
        include_str!("../../plugin/hooks/hooks.json"),
    );
    env.write(
        mkt.join(".claude-plugin/marketplace.json"),
        serde_json::json!({"name": "mkt", "plugins": [{"name": "gk", "source": "./plugins/gk"}]})
            .to_string(),
    );
    env.write(
        env.claude().join("plugins/known_marketplaces.json"),
        serde_json::json!({"mkt": {"source": {"source": "directory", "path": mkt}}}).to_string(),
    );
    let before = std::fs::read_to_string(env.settings()).unwrap_or_default();
    let mut v: Value = serde_json::from_str(&before).unwrap_or(serde_json::json!({}));
    v["enabledPlugins"]["gk@mkt"] = Value::Bool(true);
    env.write(env.settings(), serde_json::to_string_pretty(&v).unwrap());
    root
}

/// gk's switch guard plugin (the repository's `plugin-switch-guard/`
/// files) beside [`with_gks_plugin`]'s in marketplace `mkt`, enabled in
/// user settings; with `main`, gk's main plugin too.
fn with_switch_plugin(env: &TestEnv, main: bool) {
    if main {
        with_gks_plugin(env);
    }
    let mkt = env.home().join("mkt");
    let root = mkt.join("plugins").join("gk-switch-guard");
    env.write(
        root.join(".claude-plugin/plugin.json"),
        include_str!("../../plugin-switch-guard/.claude-plugin/plugin.json"),
    );
    env.write(
        root.join("hooks/hooks.json"),
        include_str!("../../plugin-switch-guard/hooks/hooks.json"),
    );
    let mut listed =
        vec![serde_json::json!({"name": "gk-switch-guard", "source": "./plugins/gk-switch-guard"})];
    if main {
        listed.push(serde_json::json!({"name": "gk", "source": "./plugins/gk"}));
    }
    env.write(
        mkt.join(".claude-plugin/marketplace.json"),
        serde_json::json!({"name": "mkt", "plugins": listed}).to_string(),
    );
    env.write(
        env.claude().join("plugins/known_marketplaces.json"),
        serde_json::json!({"mkt": {"source": {"source": "directory", "path": mkt}}}).to_string(),
    );
    let before = std::fs::read_to_string(env.settings()).unwrap_or_default();
    let mut v: Value = serde_json::from_str(&before).unwrap_or(serde_json::json!({}));
    v["enabledPlugins"]["gk-switch-guard@mkt"] = Value::Bool(true);
    env.write(env.settings(), serde_json::to_string_pretty(&v).unwrap());
}

/// A folder holding a stand-in `claude` that says it is `version`, and
/// nothing else (no gk).
#[cfg(unix)]
fn client_only(env: &TestEnv, version: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let dir = env.home().join("client-bin");
    let path = dir.join("claude");
    env.write(
        &path,
        format!("#!/bin/sh\necho '{version} (Claude Code)'\n"),
    );
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

/// `gk install` with a client that knows the switch events (they go
/// into settings), then the switch guard's plugin enabled alone. Returns
/// the machine and the client's folder.
#[cfg(unix)]
fn installed_then_switch_plugin() -> (TestEnv, PathBuf) {
    let env = TestEnv::new();
    let client = client_only(&env, "2.1.332");
    gk_in_project(&env, ["install", "--yes", "--no-smoke"])
        .env("PATH", &client)
        .run()
        .ok();
    assert!(env.read(env.settings()).contains("PreModelSwitch"));
    with_switch_plugin(&env, false);
    // gk on PATH beside the client: the plugin's copies run.
    gk_in(&client);
    (env, client)
}

/// Run gk with `args` in `env`'s project, with no gk on PATH (a folder
/// with nothing in it), and snapshot what it printed as `name`.
fn snap<const N: usize>(env: &TestEnv, name: &str, args: [&str; N]) -> String {
    let empty = env.home().join("empty-bin");
    std::fs::create_dir_all(&empty).unwrap();
    snap_with_path(env, &empty, name, args)
}

/// [`snap`] with `path` as PATH.
fn snap_with_path<const N: usize>(
    env: &TestEnv,
    path: &Path,
    name: &str,
    args: [&str; N],
) -> String {
    let run = gk_in_project(env, args).env("PATH", path).run();
    let text = transcript(&run);
    platform_settings(env).bind(|| insta::assert_snapshot!(name, text));
    text
}

/// Put this gk in `dir`, so a plugin's bare `gk` finds it on PATH there.
fn gk_in(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let name = if cfg!(windows) { "gk.exe" } else { "gk" };
    std::fs::copy(assert_cmd::cargo::cargo_bin("gk"), dir.join(name)).unwrap();
}

#[test]
fn install_beside_gks_plugin_adds_the_rules_and_block_and_no_program_or_hooks() {
    let env = TestEnv::new();
    with_gks_plugin(&env);
    let plan = snap(&env, "plugin_install_dry_run", ["install", "--dry-run"]);
    // No program: no line names it (install's record, hooks/gk-install.json,
    // is another file).
    assert!(
        !plan
            .lines()
            .any(|l| l.contains("hooks/gk ") || l.ends_with("hooks/gk") || l.contains("gk.exe")),
        "{plan}"
    );
    snap(&env, "plugin_install", ["install", "--yes", "--no-smoke"]);
    assert!(
        !env.binary().exists(),
        "a second program copy: {}",
        env.binary().display()
    );
    let s: Value = serde_json::from_str(&env.read(env.settings())).unwrap();
    assert_eq!(s.get("hooks"), None, "{s:#}");
    assert_eq!(
        s["permissions"]["allow"].as_array().unwrap().len(),
        2,
        "{s:#}"
    );
    assert!(env
        .read(env.claude().join("CLAUDE.md"))
        .contains("gk:begin"));
    // Uninstall takes back exactly that: the rules and the block; the
    // plugin and its enabling stay (gk never edits them).
    snap(&env, "plugin_uninstall", ["uninstall", "--yes"]);
    let s: Value = serde_json::from_str(&env.read(env.settings())).unwrap();
    assert_eq!(s.get("permissions"), None, "{s:#}");
    assert_eq!(s["enabledPlugins"]["gk@mkt"], true, "{s:#}");
    let md = env.claude().join("CLAUDE.md");
    assert!(!md.exists() || !env.read(&md).contains("gk:begin"));
}

#[test]
fn doctor_with_only_gks_plugin_says_the_plugin_hands_claude_the_convention() {
    let env = TestEnv::new();
    with_gks_plugin(&env);
    let text = snap(&env, "plugin_doctor_plugin_only", ["doctor", "--no-smoke"]);
    assert!(
        !text.contains("Claude will not keep task_state.json up to date"),
        "{text}"
    );
    assert!(
        text.contains("plugin gk@mkt's session hook hands it to Claude"),
        "{text}"
    );
    assert!(
        text.contains("gk is not on PATH; plugin gk@mkt's hooks fail"),
        "{text}"
    );
    assert!(!text.contains("removes gk's entries"), "{text}");
}

#[test]
fn doctor_fix_beside_gks_plugin_says_the_plugin_registers_the_hooks() {
    let env = TestEnv::new();
    with_gks_plugin(&env);
    // An install from before the plugin: its settings copies.
    gk_in_project(&env, ["install", "--yes", "--no-smoke"]).run();
    for (event, kind) in [("UserPromptSubmit", "prompt"), ("Stop", "stop")] {
        register(
            &env,
            &env.settings(),
            event,
            serde_json::json!({"type": "command", "command": format!("~/.claude/hooks/gk hook {kind}")}),
        );
    }
    // gk on PATH: the plugin's copies run.
    let bin = env.home().join("gk-bin");
    gk_in(&bin);
    let text = snap_with_path(
        &env,
        &bin,
        "plugin_doctor_fix_dry_run",
        ["doctor", "--fix", "--dry-run", "--no-smoke"],
    );
    assert!(!text.contains("managed settings register"), "{text}");
}

#[test]
fn doctor_with_both_of_gks_plugins_finds_nothing_missing_or_twice() {
    let env = TestEnv::new();
    with_switch_plugin(&env, true);
    let text = snap(&env, "plugin_doctor_both_plugins", ["doctor", "--no-smoke"]);
    for wrong in [
        "[hook-missing]",
        "[hook-fires-twice]",
        "[hook-in-plugin-and-settings]",
        "[hook-in-two-plugins]",
        "[plugin-missing]",
        "[plugin-not-installed]",
    ] {
        assert!(!text.contains(wrong), "{wrong}: {text}");
    }
    // Both plugins named where gk is not on PATH, neither taken for the
    // other.
    assert!(
        text.contains("the hooks of plugins gk-switch-guard@mkt and gk@mkt fail"),
        "{text}"
    );
}

#[cfg(unix)]
#[test]
fn install_beside_both_of_gks_plugins_registers_no_hook() {
    let env = TestEnv::new();
    with_switch_plugin(&env, true);
    let client = client_only(&env, "2.1.332");
    gk_in_project(&env, ["install", "--yes", "--no-smoke"])
        .env("PATH", &client)
        .run()
        .ok();
    let s: Value = serde_json::from_str(&env.read(env.settings())).unwrap();
    assert_eq!(s.get("hooks"), None, "{s:#}");
    assert!(!env.binary().exists());
}

#[cfg(unix)]
#[test]
fn install_beside_only_the_switch_guard_plugin_registers_the_other_hooks_once() {
    // An install from before the plugin registered the switch hooks in
    // settings; with the plugin enabled, install takes them out.
    let (env, client) = installed_then_switch_plugin();
    let out = gk_in_project(&env, ["install", "--yes", "--no-smoke"])
        .env("PATH", &client)
        .run()
        .ok();
    let s: Value = serde_json::from_str(&env.read(env.settings())).unwrap();
    let mut events: Vec<&String> = s["hooks"].as_object().unwrap().keys().collect();
    events.sort();
    assert_eq!(
        events,
        ["SessionStart", "Stop", "UserPromptSubmit"],
        "{out}\n{s:#}"
    );
    let doctor = gk_in_project(&env, ["doctor", "--no-smoke"])
        .env("PATH", &client)
        .run()
        .stdout_text();
    assert!(
        out.contains("plugin gk-switch-guard@mkt registers gk's switch hooks"),
        "{out}"
    );
    for wrong in [
        "[hook-in-plugin-and-settings]",
        "[hook-fires-twice]",
        "[hook-missing]",
    ] {
        assert!(!doctor.contains(wrong), "{doctor}");
    }
}

/// An older client fails to load a plugin that names an event it does not
/// know (measured on 2.1.250: `claude plugin list` shows the switch guard
/// plugin "failed to load", gk's main plugin enabled): doctor says that of
/// the plugin, once, with the plugin's fix, not install's.
#[cfg(unix)]
#[test]
fn doctor_with_an_older_client_says_the_switch_guard_plugin_does_not_load() {
    let env = TestEnv::new();
    with_switch_plugin(&env, true);
    let client = client_only(&env, "2.1.250");
    let text = gk_in_project(&env, ["doctor"])
        .env("PATH", &client)
        .run()
        .stdout_text();
    let said = "plugin gk-switch-guard@mkt registers PreModelSwitch and PostModelSwitch, which Claude Code 2.1.250 does not know (they came in 2.1.251): the client does not load the plugin at all";
    assert_eq!(text.matches(said).count(), 1, "{text}");
    assert!(
        text.contains("`claude plugin disable gk-switch-guard@mkt`"),
        "{text}"
    );
    assert!(!text.contains("run `gk install` again"), "{text}");
    assert!(!text.contains("plugin gk@mkt registers"), "{text}");
}

/// An install from before the switch guard's plugin (the switch hooks in
/// settings), then the plugin enabled alone: doctor finds each switch hook
/// in both places, and install's plan takes the settings copies out and
/// says why.
#[cfg(unix)]
#[test]
fn beside_the_switch_guard_plugin_the_settings_copies_of_its_hooks_go() {
    let (env, client) = installed_then_switch_plugin();
    let shown = |name: &str, run: crate::common::Run| {
        let text = transcript(&run);
        platform_settings(&env).bind(|| insta::assert_snapshot!(name, text));
        text
    };
    let doctor = shown(
        "plugin_switch_guard_doctor_fix_dry_run",
        gk_in_project(&env, ["doctor", "--fix", "--dry-run", "--no-smoke"])
            .env("PATH", &client)
            .run(),
    );
    assert!(doctor.contains("[hook-in-plugin-and-settings]"), "{doctor}");
    // The fix it offers is one it makes: the settings copies go.
    assert!(
        doctor.contains("gk doctor --fix will change 1 file"),
        "{doctor}"
    );
    let plan = shown(
        "plugin_switch_guard_install_dry_run",
        gk_in_project(&env, ["install", "--dry-run", "--no-smoke"])
            .env("PATH", &client)
            .run(),
    );
    assert!(
        plan.contains("plugin gk-switch-guard@mkt registers gk's switch hooks"),
        "{plan}"
    );
}
