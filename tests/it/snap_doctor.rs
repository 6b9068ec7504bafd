//! `gk doctor`, whole: the report and `--json` (every key: dropping
//! `path` or `details` fails here) on the machines a user meets.
//! Smoke runs are off (`--no-smoke`): their timing varies.

use serde_json::json;

use crate::common::TestEnv;
use crate::snapshots::{
    gk_in_project, installed, installed_handler, register, second_spelling_of_the_prompt_hook,
    settings, trailing_comma_in_settings, transcript,
};

/// `gk doctor --no-smoke` and `gk doctor --no-smoke --json` on `env`,
/// as the snapshots `<name>` and `<name>_json`.
fn doctor_both(env: &TestEnv, name: &str) {
    doctor_both_in(settings(env), env, name)
}

/// [`doctor_both`] for a machine whose report shows the registered
/// commands, which Windows spells in the exec form: a `windows` twin.
fn doctor_both_per_platform(env: &TestEnv, name: &str) {
    let mut s = settings(env);
    if cfg!(windows) {
        s.set_snapshot_suffix("windows");
    }
    doctor_both_in(s, env, name)
}

fn doctor_both_in(s: insta::Settings, env: &TestEnv, name: &str) {
    let text = gk_in_project(env, ["doctor", "--no-smoke"]).run();
    let json = gk_in_project(env, ["doctor", "--no-smoke", "--json"]).run();
    // The JSON is one object (and the exit code the report's).
    let _: serde_json::Value = serde_json::from_slice(&json.stdout)
        .unwrap_or_else(|e| panic!("--json is not JSON ({e}): {}", json.stdout_text()));
    assert_eq!(text.code, json.code, "the report and --json exit alike");
    s.bind(|| {
        insta::assert_snapshot!(name, transcript(&text));
        insta::assert_snapshot!(format!("{name}_json"), transcript(&json));
    });
}

#[test]
fn doctor_on_a_fresh_machine_says_the_hooks_are_missing_and_fix_adds_them() {
    doctor_both(&TestEnv::new(), "doctor_fresh_machine");
}

#[test]
fn doctor_after_install_finds_no_issues() {
    doctor_both(&installed(), "doctor_after_install");
}

#[test]
fn doctor_verbose_after_install_lists_each_settings_file_and_registration() {
    let env = installed();
    let run = gk_in_project(&env, ["doctor", "--no-smoke", "--verbose"]).run();
    let mut s = settings(&env);
    if cfg!(windows) {
        s.set_snapshot_suffix("windows");
    }
    s.bind(|| insta::assert_snapshot!("doctor_verbose_after_install", transcript(&run)));
}

#[test]
fn doctor_on_a_settings_file_with_a_trailing_comma_says_claude_code_skips_it() {
    let env = installed();
    trailing_comma_in_settings(&env);
    doctor_both(&env, "doctor_trailing_comma");
}

/// A settings file the client skips for another reason than a parse
/// error: what waits for it is listed under it too, and `--fix` is not
/// offered for what it cannot do until the file is corrected.
#[test]
fn doctor_on_a_settings_file_a_schema_issue_voids_lists_what_waits_for_it_under_it() {
    let env = installed();
    // First in the file, so its place is the same on every platform.
    let text = env.read(env.settings());
    let voided = text.replacen('{', "{\n  \"model\": 5,", 1);
    assert_ne!(voided, text);
    env.write(env.settings(), voided);
    doctor_both(&env, "doctor_schema_void");
}

#[test]
fn doctor_on_a_settings_path_that_is_a_folder_lists_what_waits_for_it_under_it() {
    let env = installed();
    std::fs::remove_file(env.settings()).unwrap();
    std::fs::create_dir(env.settings()).unwrap();
    doctor_both(&env, "doctor_settings_unreadable");
}

#[test]
fn doctor_on_gk_registered_twice_says_the_prompt_hook_fires_twice() {
    let env = installed();
    second_spelling_of_the_prompt_hook(&env);
    doctor_both_per_platform(&env, "doctor_registered_twice");
}

/// Copy the handlers install registered for gk's three hooks into the
/// managed settings file, as an administrator's rollout would.
fn managed_copy_of_the_install(env: &TestEnv) {
    for event in ["UserPromptSubmit", "Stop", "SessionStart"] {
        let handler = installed_handler(env, event);
        register(env, &env.managed_settings(), event, handler);
    }
}

#[test]
fn doctor_on_gk_in_managed_settings_only_finds_no_issues() {
    let env = installed();
    managed_copy_of_the_install(&env);
    // The user's settings keep gk's permission rules and no hooks.
    let mut user: serde_json::Value = serde_json::from_str(&env.read(env.settings())).unwrap();
    user.as_object_mut().unwrap().remove("hooks");
    env.write(env.settings(), serde_json::to_string_pretty(&user).unwrap());
    doctor_both(&env, "doctor_managed_settings_only");
}

#[test]
fn doctor_on_gk_in_managed_and_user_settings_says_each_hook_fires_twice() {
    let env = installed();
    managed_copy_of_the_install(&env);
    doctor_both_per_platform(&env, "doctor_managed_and_user_settings");
}

/// A directory marketplace `mkt` holding plugin `name` with `hooks` as its
/// hooks file, enabled in the user's settings (the shapes the client
/// writes: docs/maintainers/claude-code-facts.md, "Plugins").
fn add_plugin(env: &TestEnv, name: &str, hooks: &serde_json::Value) {
    let mkt = env.home().join("mkt");
    let root = mkt.join("plugins").join(name);
    env.write(
        root.join(".claude-plugin").join("plugin.json"),
        json!({"name": name}).to_string(),
    );
    env.write(root.join("hooks").join("hooks.json"), hooks.to_string());
    env.write(
        mkt.join(".claude-plugin").join("marketplace.json"),
        json!({"name": "mkt", "plugins": [{"name": name, "source": format!("./plugins/{name}")}]})
            .to_string(),
    );
    env.write(
        env.claude().join("plugins").join("known_marketplaces.json"),
        json!({"mkt": {"source": {"source": "directory", "path": mkt}}}).to_string(),
    );
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(env.settings()).unwrap_or("{}".into()))
            .unwrap();
    v["enabledPlugins"][format!("{name}@mkt")] = json!(true);
    env.write(env.settings(), serde_json::to_string_pretty(&v).unwrap());
}

#[test]
fn doctor_on_gk_in_a_plugin_and_in_settings_says_each_hook_fires_twice() {
    let env = installed();
    let gk = env.binary();
    let entry = |kind: &str| json!([{"hooks": [{"type": "command", "command": gk, "args": ["hook", kind]}]}]);
    add_plugin(
        &env,
        "gkp",
        &json!({"hooks": {
            "UserPromptSubmit": entry("prompt"),
            "Stop": entry("stop"),
            "SessionStart": entry("session"),
        }}),
    );
    doctor_both_per_platform(&env, "doctor_plugin_and_settings");
}
