//! Plans that say what they do: the managed drop-in written for each
//! platform with `--output --platform` and taken back, install adding only
//! the status line, a backup of an `--output ./file` named visibly, and
//! `gk rules` refusing a broken gk.json, and `gk doctor --fix` plans in
//! the user-settings and managed channels.

use crate::common::TestEnv;
use crate::snapshots::{gk_in_project, installed, platform_settings, settings, transcript};

/// [`snap`] with a Windows twin: for plans that show registered commands
/// (the exec form on Windows).
fn snap_per_platform<const N: usize>(env: &TestEnv, name: &str, args: [&str; N]) {
    let run = gk_in_project(env, args).run();
    platform_settings(env).bind(|| insta::assert_snapshot!(name, transcript(&run)));
}

/// The one line of stderr of a run that failed and printed nothing on stdout.
fn refusal(run: &crate::common::Run) -> String {
    assert_ne!(run.code, Some(0));
    assert!(
        run.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&run.stdout)
    );
    let err = String::from_utf8_lossy(&run.stderr).into_owned();
    assert_eq!(err.lines().count(), 1, "{err}");
    err
}

fn snap<const N: usize>(env: &TestEnv, name: &str, args: [&str; N]) {
    let run = gk_in_project(env, args).run();
    settings(env).bind(|| insta::assert_snapshot!(name, transcript(&run)));
}

#[test]
fn a_managed_dropin_is_written_and_taken_back_for_each_platform() {
    for platform in ["windows", "macos", "linux"] {
        let env = TestEnv::new();
        let file = format!("./gk-{platform}.json");
        snap(
            &env,
            &format!("managed_output_platform_{platform}"),
            [
                "install",
                "--managed",
                "--output",
                &file,
                "--platform",
                platform,
                "--yes",
            ],
        );
        // The snapshots hide `.exe`: the program path, as the file has it.
        let written = env.read(env.project().join(&file));
        let program = match platform {
            "windows" => r#""command": "C:\\Program Files\\gk\\gk.exe","#,
            _ => r#""command": "/usr/local/bin/gk","#,
        };
        assert_eq!(written.matches(program).count(), 3, "{written}");
        assert!(written.contains("\"args\""), "{written}");
        snap(
            &env,
            &format!("managed_output_platform_{platform}_uninstall"),
            ["uninstall", "--managed", "--output", &file, "--yes"],
        );
        assert!(!env.project().join(&file).exists());
    }
}

#[test]
fn platform_without_output_is_refused_in_one_line() {
    let env = TestEnv::new();
    let err =
        refusal(&gk_in_project(&env, ["install", "--managed", "--platform", "windows"]).run());
    assert!(err.contains("--output FILE"), "{err}");
}

#[test]
fn a_backup_of_an_output_file_is_named_visibly_and_printed_before_the_edit() {
    let env = TestEnv::new();
    env.write(
        env.project().join("gk.json"),
        "{\n  \"allowManagedHooksOnly\": true\n}\n",
    );
    let run = gk_in_project(
        &env,
        ["install", "--managed", "--output", "./gk.json", "--yes"],
    )
    .run();
    let out = String::from_utf8_lossy(&run.stdout);
    let backed = out.find("backed up ").expect(&out);
    let edited = out.find("edited ").expect(&out);
    assert!(backed < edited, "{out}");
    let line = out[backed..].lines().next().unwrap();
    let name = line.rsplit(['/', '\\']).next().unwrap();
    assert!(!name.starts_with('.'), "{line}");
    assert!(!line.contains("/./"), "{line}");
}

#[test]
fn statusline_on_an_installed_machine_plans_only_the_status_line() {
    let env = installed();
    let run = gk_in_project(&env, ["install", "--statusline", "--dry-run", "--no-smoke"]).run();
    // The status line is spelled for the platform's shell.
    platform_settings(&env)
        .bind(|| insta::assert_snapshot!("install_statusline_when_installed", transcript(&run)));
}

#[test]
fn rules_refuses_a_broken_gk_json_and_prints_nothing_on_stdout() {
    let env = TestEnv::new();
    env.write(env.claude().join("hooks/gk.json"), "{\"models\": [,]}");
    let err = refusal(&env.gk(["rules"]).run());
    assert!(err.contains("gk.json:1:13"), "{err}");
}

/// `gk install` at a terminal, typing `typed`.
fn install_at_a_terminal(env: &TestEnv, typed: &str) -> crate::common::Run {
    gk_in_project(env, ["install", "--no-smoke"])
        .terminal()
        .stdin(typed)
        .run()
}

#[test]
fn install_at_a_terminal_offers_both_rule_sets_and_writes_the_chosen_one() {
    let env = TestEnv::new();
    let run = install_at_a_terminal(&env, "2\ny\n");
    platform_settings(&env)
        .bind(|| insta::assert_snapshot!("install_offers_presets_software", transcript(&run)));
    let written = env.read(env.claude().join("hooks/gk.json"));
    let software = env.gk(["rules", "--preset", "software"]).run().ok();
    assert_eq!(written, software);
    assert!(written.contains("claude-haiku-4-5"), "{written}");
}

#[test]
fn enter_at_the_offer_keeps_the_current_rules_and_yes_asks_nothing() {
    let env = TestEnv::new();
    let run = install_at_a_terminal(&env, "\ny\n");
    let out = String::from_utf8_lossy(&run.stdout);
    assert!(out.contains("  2  general software work"), "{out}");
    assert!(!env.claude().join("hooks/gk.json").exists(), "{out}");
    let env = TestEnv::new();
    let run = gk_in_project(&env, ["install", "--no-smoke", "--yes"])
        .terminal()
        .run();
    let out = String::from_utf8_lossy(&run.stdout);
    assert!(!out.contains("Which rules"), "{out}");
}

/// `gk doctor --fix --dry-run` per channel, beside the plugin channel's
/// (tests/it/snap_plugin.rs): the channel that registers gk keeps its
/// entries and every stray copy elsewhere goes, and the plan says which
/// channel that is.
///
/// User settings: install registered gk there, and the project's shared
/// settings (`.claude/settings.json`) hold a copy of the prompt hook in
/// another spelling: the plan edits only the project's file.
#[test]
fn doctor_fix_in_the_user_settings_channel_removes_a_project_copy() {
    let env = installed();
    let project = env.project().join(".claude").join("settings.json");
    crate::snapshots::register(
        &env,
        &project,
        "UserPromptSubmit",
        serde_json::json!({"type": "command", "command": "~/.claude/hooks/gk hook prompt"}),
    );
    let user = env.read(env.settings());
    snap_per_platform(
        &env,
        "doctor_fix_dry_run_user_channel",
        ["doctor", "--fix", "--dry-run", "--no-smoke"],
    );
    assert_eq!(env.read(env.settings()), user, "--dry-run wrote");
}

/// Managed settings: an administrator's rollout registered gk's hooks
/// there, and the user's own install from before is still in user
/// settings, so each hook fires twice. The plan takes gk's entries out of
/// user settings, keeps the permission rules, and names managed settings
/// as what registers them; it never plans an edit of the managed file.
#[test]
fn doctor_fix_in_the_managed_channel_removes_the_user_copies() {
    let env = installed();
    for event in ["UserPromptSubmit", "Stop", "SessionStart"] {
        let handler = crate::snapshots::installed_handler(&env, event);
        crate::snapshots::register(&env, &env.managed_settings(), event, handler);
    }
    let managed = env.read(env.managed_settings());
    let run = gk_in_project(&env, ["doctor", "--fix", "--dry-run", "--no-smoke"]).run();
    let text = transcript(&run);
    platform_settings(&env)
        .bind(|| insta::assert_snapshot!("doctor_fix_dry_run_managed_channel", text));
    assert!(
        text.contains("(managed settings register gk's hooks;"),
        "{text}"
    );
    assert!(
        !text
            .lines()
            .any(|l| l.starts_with("  edit") && l.contains("managed-settings.json")),
        "{text}"
    );
    assert_eq!(env.read(env.managed_settings()), managed);
}
