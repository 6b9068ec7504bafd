//! Install, uninstall and `doctor --fix`, whole: the plan (what each file
//! becomes, and why), the diffs, and what the real run says it did.
//!
//! The settings diffs hold the registered commands, which Windows spells
//! in the exec form (`gk.exe` and `args`): those snapshots have a Windows
//! twin (suffix `windows`), recorded under Wine.

use crate::common::TestEnv;
use crate::snapshots::{
    gk_in_project, installed, platform_settings, second_spelling_of_the_prompt_hook, transcript,
};

/// Run gk with `args` in `env`'s project and snapshot what it printed as `name`.
fn snap<const N: usize>(env: &TestEnv, name: &str, args: [&str; N]) {
    let run = gk_in_project(env, args).run();
    platform_settings(env).bind(|| insta::assert_snapshot!(name, transcript(&run)));
}

const SECRET: &str = "sk-ant-api03-SECRETVALUE-do-not-print";

/// A user's settings before gk: an `env` block with a key and a proxy
/// password, a model, a permission rule of their own.
fn existing_settings(env: &TestEnv) {
    env.write(
        env.settings(),
        format!(
            "{{\n  \"env\": {{\n    \"ANTHROPIC_API_KEY\": \"{SECRET}\",\n    \"HTTPS_PROXY\": \"http://alice:hunter2hunter2@proxy.internal:8080\",\n    \"EDITOR\": \"vim\"\n  }},\n  \"model\": \"opus\",\n  \"permissions\": {{\n    \"allow\": [\"Bash(cargo test:*)\"]\n  }}\n}}\n"
        ),
    );
}

#[test]
fn install_dry_run_on_a_fresh_home_shows_each_file_it_would_create() {
    let env = TestEnv::new();
    snap(&env, "install_dry_run_fresh_home", ["install", "--dry-run"]);
    assert!(!env.settings().exists(), "--dry-run wrote settings.json");
}

#[test]
fn install_on_a_fresh_home_shows_the_plan_then_what_it_created() {
    let env = TestEnv::new();
    snap(
        &env,
        "install_fresh_home",
        ["install", "--yes", "--no-smoke"],
    );
}

#[test]
fn install_dry_run_beside_existing_settings_masks_the_secrets() {
    let env = TestEnv::new();
    existing_settings(&env);
    snap(
        &env,
        "install_dry_run_existing_settings",
        ["install", "--dry-run"],
    );
}

#[test]
fn install_beside_existing_settings_edits_them_and_names_the_backup() {
    let env = TestEnv::new();
    existing_settings(&env);
    let run = gk_in_project(&env, ["install", "--yes", "--no-smoke"]).run();
    assert!(
        !run.stdout_text().contains(SECRET) && !run.stderr_text().contains(SECRET),
        "the secret was printed"
    );
    platform_settings(&env)
        .bind(|| insta::assert_snapshot!("install_existing_settings", transcript(&run)));
}

#[test]
fn install_statusline_dry_run_adds_the_status_line_to_the_settings() {
    let env = TestEnv::new();
    snap(
        &env,
        "install_statusline_dry_run",
        ["install", "--statusline", "--dry-run"],
    );
}

#[test]
fn install_managed_output_dry_run_shows_the_drop_in() {
    let env = TestEnv::new();
    let out = env.root().join("dist").join("gk-managed.json");
    let out = out.to_str().unwrap();
    snap(
        &env,
        "install_managed_output_dry_run",
        ["install", "--managed", "--output", out, "--dry-run"],
    );
}

#[test]
fn install_managed_output_dry_run_with_switch_guard_shows_both_events() {
    let env = TestEnv::new();
    let out = env.root().join("dist").join("gk-managed.json");
    let out = out.to_str().unwrap();
    snap(
        &env,
        "install_managed_output_dry_run_with_switch_guard",
        [
            "install",
            "--managed",
            "--with-switch-guard",
            "--output",
            out,
            "--dry-run",
        ],
    );
}

#[test]
fn uninstall_dry_run_after_install_shows_what_it_would_take_back() {
    let env = installed();
    snap(
        &env,
        "uninstall_dry_run_after_install",
        ["uninstall", "--dry-run"],
    );
}

#[test]
fn uninstall_after_install_takes_back_what_install_added() {
    let env = installed();
    snap(&env, "uninstall_after_install", ["uninstall", "--yes"]);
}

#[test]
fn doctor_fix_dry_run_on_a_broken_machine_shows_the_repairs() {
    // After an install: a second spelling of the prompt hook in the local
    // settings, the CLAUDE.md block and the shared task record gone.
    let env = installed();
    second_spelling_of_the_prompt_hook(&env);
    std::fs::remove_file(env.claude().join("CLAUDE.md")).unwrap();
    std::fs::remove_file(env.state_path()).unwrap();
    let before = env.files();
    snap(
        &env,
        "doctor_fix_dry_run_broken_machine",
        ["doctor", "--fix", "--dry-run", "--no-smoke"],
    );
    assert!(env.files() == before, "--dry-run changed a file");
}

/// The Task State Convention block as an earlier gk wrote it ("gk runs two
/// global hooks", and a rule for "any hook written for this user"), with
/// this machine's state file in place of `{{STATE_FILE}}`.
fn block_before_the_session_hook(env: &TestEnv) -> String {
    let template = include_str!("../fixtures/claude_md/section-two-hooks.md");
    template.replace("{{STATE_FILE}}", &env.state_path().display().to_string())
}

/// The block between the markers of a CLAUDE.md.
fn block_body(text: &str) -> &str {
    let start = text.find('\n').map_or(0, |i| i + 1);
    let end = text.find("<!-- gk:end -->").unwrap_or(text.len());
    &text[start..end]
}

#[test]
fn the_claude_md_block_install_writes_binds_gk_hooks_only_and_counts_three() {
    let env = installed();
    let text = env.read(env.claude().join("CLAUDE.md"));
    platform_settings(&env).bind(|| insta::assert_snapshot!("claude_md_block", text));
    assert!(text.contains("gk runs three hooks"), "{text}");
    assert!(!text.contains("any hook written for"), "{text}");
}

#[test]
fn an_old_claude_md_block_is_outdated_replaced_by_install_and_removed_by_uninstall() {
    let env = installed();
    let md = env.claude().join("CLAUDE.md");
    let current = env.read(&md);
    let old = current.replace(block_body(&current), &block_before_the_session_hook(&env));
    assert_ne!(old, current, "the old block differs from the current one");
    let with_mine = format!("# My rules\n\nAnswer in French.\n\n{old}");

    // Doctor calls it outdated; install's plan shows the replacement.
    env.write(&md, &with_mine);
    let doctor = gk_in_project(&env, ["doctor"]).run();
    assert!(
        doctor.stdout_text().contains("claude-md-section-outdated")
            || transcript(&doctor).contains("is outdated"),
        "{}",
        transcript(&doctor)
    );
    snap(
        &env,
        "claude_md_old_block_install_dry_run",
        ["install", "--dry-run"],
    );
    assert_eq!(env.read(&md), with_mine, "--dry-run wrote CLAUDE.md");

    // install and doctor --fix both put the current block in its place.
    for args in [
        ["install", "--yes", "--no-smoke"].as_slice(),
        ["doctor", "--fix", "--yes"].as_slice(),
    ] {
        env.write(&md, &with_mine);
        env.gk(args.iter().copied())
            .current_dir(env.project())
            .run()
            .ok();
        assert_eq!(
            env.read(&md),
            format!("# My rules\n\nAnswer in French.\n\n{current}"),
            "{args:?}"
        );
    }

    // Uninstall takes the old block out too: the file install created goes,
    // and a file with the user's text keeps exactly that text.
    env.write(&md, &old);
    gk_in_project(&env, ["uninstall", "--yes"]).run().ok();
    assert!(!md.exists(), "uninstall left the old block's file");
    let env = installed();
    let md = env.claude().join("CLAUDE.md");
    let current = env.read(&md);
    let old = current.replace(block_body(&current), &block_before_the_session_hook(&env));
    env.write(&md, format!("# My rules\n\n{old}"));
    gk_in_project(&env, ["uninstall", "--yes"]).run().ok();
    assert_eq!(env.read(&md), "# My rules\n");
}
