//! Install, uninstall and `doctor --fix`, whole: the plan (what each file
//! becomes, and why), the diffs, and what the real run says it did.
//!
//! The settings diffs hold the registered commands, which Windows spells
//! in the exec form (`gk.exe` and `args`): those snapshots have a Windows
//! twin (suffix `windows`), not recorded yet.

use crate::common::TestEnv;
use crate::snapshots::{
    gk_in_project, installed, second_spelling_of_the_prompt_hook, settings, transcript,
};

/// The settings of these snapshots: [`settings`], with the Windows suffix
/// (the registered commands differ there).
fn platform_settings(env: &TestEnv) -> insta::Settings {
    let mut s = settings(env);
    if cfg!(windows) {
        s.set_snapshot_suffix("windows");
    }
    s
}

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
#[cfg_attr(
    gk_wine,
    ignore = "Wine gap: the Windows snapshots are not recorded yet"
)]
fn install_dry_run_on_a_fresh_home_shows_each_file_it_would_create() {
    let env = TestEnv::new();
    snap(&env, "install_dry_run_fresh_home", ["install", "--dry-run"]);
    assert!(!env.settings().exists(), "--dry-run wrote settings.json");
}

#[test]
#[cfg_attr(
    gk_wine,
    ignore = "Wine gap: the Windows snapshots are not recorded yet"
)]
fn install_on_a_fresh_home_shows_the_plan_then_what_it_created() {
    let env = TestEnv::new();
    snap(
        &env,
        "install_fresh_home",
        ["install", "--yes", "--no-smoke"],
    );
}

#[test]
#[cfg_attr(
    gk_wine,
    ignore = "Wine gap: the Windows snapshots are not recorded yet"
)]
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
#[cfg_attr(
    gk_wine,
    ignore = "Wine gap: the Windows snapshots are not recorded yet"
)]
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
#[cfg_attr(
    gk_wine,
    ignore = "Wine gap: the Windows snapshots are not recorded yet"
)]
fn install_statusline_dry_run_adds_the_status_line_to_the_settings() {
    let env = TestEnv::new();
    snap(
        &env,
        "install_statusline_dry_run",
        ["install", "--statusline", "--dry-run"],
    );
}

#[test]
#[cfg_attr(
    gk_wine,
    ignore = "Wine gap: the Windows snapshots are not recorded yet"
)]
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
#[cfg_attr(
    gk_wine,
    ignore = "Wine gap: the Windows snapshots are not recorded yet"
)]
fn uninstall_dry_run_after_install_shows_what_it_would_take_back() {
    let env = installed();
    snap(
        &env,
        "uninstall_dry_run_after_install",
        ["uninstall", "--dry-run"],
    );
}

#[test]
#[cfg_attr(
    gk_wine,
    ignore = "Wine gap: the Windows snapshots are not recorded yet"
)]
fn uninstall_after_install_takes_back_what_install_added() {
    let env = installed();
    snap(&env, "uninstall_after_install", ["uninstall", "--yes"]);
}

#[test]
#[cfg_attr(
    gk_wine,
    ignore = "Wine gap: the Windows snapshots are not recorded yet"
)]
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
