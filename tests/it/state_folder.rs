//! The state folder is gk's own (issue 17, items 6 and 9): `gk state` and
//! `gk install` refuse a folder that is `/`, the home folder, the Claude
//! config folder or inside it, or that holds JSON files that are not task
//! records; they only ever rewrite or delete records; a session id that
//! would name another program's file gets a hashed name; and what gk makes
//! there is private to the user. Every run has a temporary HOME.

use std::path::Path;

use serde_json::json;

use crate::common::{Run, TestEnv};

const UUID_A: &str = "3f2a9c1e-5b7d-4e8a-9c2f-1a2b3c4d5e6f";

/// gk with `state_dir` as its state folder, started in the temporary root.
fn run_in(env: &TestEnv, state_dir: &Path, args: &[&str]) -> Run {
    env.gk(args)
        .env("GK_STATE_DIR", state_dir)
        .current_dir(env.root())
        .run()
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

const CHANGES: [&[&str]; 4] = [
    &["state", "clean", "--all", "--yes"],
    &["state", "prune", "--days", "0", "--yes"],
    &["state", "set", "clean", "--session", UUID_A, "--yes"],
    &["state"],
];

/// One line on stderr naming the folder, a non-zero exit, no file changed.
fn assert_refused(env: &TestEnv, dir: &Path, args: &[&str], why: &str) {
    let before = env.files();
    let out = run_in(env, dir, args);
    assert_ne!(
        out.code,
        Some(0),
        "{args:?} in {}: {}",
        dir.display(),
        out.stdout_text()
    );
    assert_eq!(
        out.stderr_text().lines().count(),
        1,
        "{args:?}: one line: {:?}",
        out.stderr_text()
    );
    assert!(
        out.stderr_text().contains(why),
        "{args:?} in {}: {:?}",
        dir.display(),
        out.stderr_text()
    );
    assert_eq!(env.files(), before, "{args:?} in {}", dir.display());
}

#[test]
fn a_folder_holding_json_that_is_no_record_is_refused_and_left_as_it_is() {
    let env = TestEnv::new();
    let proj = env.root().join("proj");
    write(&proj.join("package.json"), "{\"name\":\"app\"}");
    // A record beside it, and a clean one: neither is touched either.
    write(
        &proj.join(format!("{UUID_A}.json")),
        &json!({"status": "in_progress", "task": "t"}).to_string(),
    );
    write(&proj.join("clean-one.json"), "{\"status\":\"clean\"}");
    for args in CHANGES {
        assert_refused(&env, &proj, args, "package.json");
    }
    // Valid JSON of another kind under a record's name is not a record either.
    std::fs::remove_file(proj.join("package.json")).unwrap();
    write(&proj.join("data.json"), "[1, 2]");
    assert_refused(
        &env,
        &proj,
        &["state", "prune", "--days", "0", "--yes"],
        "data.json",
    );
}

/// A folder whose name holds a line break and an escape: the refusal is
/// still one line (assert_refused counts them), both written out.
#[cfg(unix)]
#[test]
fn a_refusal_naming_a_folder_with_a_line_break_stays_one_line() {
    let env = TestEnv::new();
    let dir = env.root().join("st\nate\u{1b}[2J");
    write(&dir.join("package.json"), "{\"name\":\"app\"}");
    assert_refused(
        &env,
        &dir,
        &["state"],
        "st\\nate\\x1b[2J is not a state folder",
    );
}

/// What makes a folder gk's is what the convention writes there: a record
/// Claude gave a key of its own (beside a `status` the convention knows)
/// is still a record, and the folder pointer Claude writes beside the
/// records is gk's too; neither makes `gk state` refuse the folder, and
/// cleaning leaves the pointer alone.
#[test]
fn a_record_with_a_key_of_its_own_and_a_folder_pointer_keep_the_folder_gks() {
    let env = TestEnv::new();
    let dir = env.root().join("st");
    let record = dir.join(format!("{UUID_A}.json"));
    write(
        &record,
        &json!({"status": "in_progress", "task": "t", "notes": "Claude's own key"}).to_string(),
    );
    let pointer = dir.join(gk::testing::paths::folder_pointer_name("/w/p").unwrap());
    let pointed = json!({"session": UUID_A}).to_string();
    write(&pointer, &pointed);
    let out = run_in(&env, &dir, &["state"]);
    out.ok();
    assert!(out.stdout_text().contains(UUID_A), "{}", out.stdout_text());
    let out = run_in(&env, &dir, &["state", "clean", "--all", "--yes"]);
    out.ok();
    let cleaned: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
    assert_eq!(cleaned["status"], "clean");
    assert_eq!(std::fs::read_to_string(&pointer).unwrap(), pointed);
    // The same key with no status the convention knows: another program's.
    write(
        &record,
        &json!({"status": "shipped", "notes": "x"}).to_string(),
    );
    assert_refused(&env, &dir, &["state"], "\"notes\"");
}

#[test]
fn install_refuses_to_grant_claude_a_folder_that_is_not_gks() {
    let env = TestEnv::new();
    let proj = env.root().join("proj");
    write(&proj.join("package.json"), "{\"name\":\"app\"}");
    let home = env.home().to_path_buf();
    for dir in [proj.clone(), home.clone(), home.join(".claude/hooks")] {
        assert_refused(
            &env,
            &dir,
            &["install", "--yes", "--no-smoke"],
            "not a state folder",
        );
    }
    // Without the rules, install has no business with that folder.
    let out = run_in(
        &env,
        &proj,
        &["install", "--yes", "--no-smoke", "--no-permissions"],
    );
    out.ok();
}

/// A state folder that cannot be made where it is: Claude's every record
/// write would fail there, so install says so before it writes anything.
#[cfg(unix)]
#[test]
fn install_refuses_a_state_folder_that_cannot_be_made_where_it_is() {
    let env = TestEnv::new();
    let file = env.root().join("a-file");
    write(&file, "x");
    let target = env.root().join("unmounted/gk");
    let link = env.root().join("synced-state");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let dangling = format!(
        "{} is a link to {}, which is not there",
        link.display(),
        target.display()
    );
    for (dir, why) in [
        (
            link.clone(),
            format!(
                "the state folder {dangling}; make it a folder you can write, or point GK_STATE_DIR at one; nothing written"
            ),
        ),
        (
            link.join("gk"),
            format!("the state folder {} cannot be made: {dangling};", link.join("gk").display()),
        ),
        (
            file.join("gk"),
            format!("cannot be made: {} is not a folder;", file.display()),
        ),
    ] {
        assert_refused(&env, &dir, &["install", "--yes", "--no-smoke"], &why);
    }
    assert!(
        !env.root().join("unmounted").exists(),
        "nothing made through the link"
    );
    // A target named with an escape and a line break: still one line
    // (assert_refused counts them), the escape shown, not sent.
    let hostile = env.root().join("hostile");
    std::os::unix::fs::symlink(env.root().join("evil\u{1b}[31mred\nline"), &hostile).unwrap();
    assert_refused(
        &env,
        &hostile,
        &["install", "--yes", "--no-smoke"],
        "evil?[31mred line, which is not there;",
    );
    // Once the link leads somewhere, install goes through.
    std::fs::create_dir_all(&target).unwrap();
    run_in(&env, &link, &["install", "--yes", "--no-smoke"]).ok();
}

#[test]
fn the_home_and_claude_folders_and_the_root_are_never_state_folders() {
    let env = TestEnv::new();
    let home = env.home().to_path_buf();
    write(&home.join(".claude/settings.json"), "{\"model\": \"opus\"}");
    write(&home.join(".claude/hooks/gk.json"), "{}");
    write(
        &home.join(".claude/hooks/task_state.json"),
        "{\"status\":\"clean\"}",
    );
    for dir in [
        home.clone(),
        home.join(".claude"),
        home.join(".claude/hooks"),
    ] {
        for args in CHANGES {
            assert_refused(&env, &dir, args, "not a state folder");
        }
    }
    // The root: looked at only (a dry run), never changed.
    for args in [
        &["state"][..],
        &["state", "clean", "--all", "--dry-run"],
        &["state", "prune", "--days", "0", "--dry-run"],
    ] {
        // On Windows `/` is no absolute path (gk takes none from the
        // variable); the root there is a drive's.
        let root = if cfg!(windows) { r"C:\" } else { "/" };
        assert_refused(&env, Path::new(root), args, "not a state folder");
    }
}

#[test]
fn a_session_named_like_another_programs_file_gets_a_hashed_record() {
    let env = TestEnv::new();
    let dir = env.root().join("state");
    write(
        &env.home().join(".claude/hooks/gk.json"),
        "{\"state\": {\"scope\": \"session\"}}",
    );
    for id in ["settings", "gk", "task_state", "gk-install"] {
        let event =
            json!({"session_id": id, "hook_event_name": "UserPromptSubmit", "prompt": "hi"});
        let text = env
            .gk(["hook", "prompt"])
            .env("GK_STATE_DIR", &dir)
            .stdin(event.to_string())
            .run()
            .stdout_text();
        assert!(
            !text.contains(&format!("/{id}.json")),
            "{id}: the hook names {id}.json: {text}"
        );
        let name = gk::testing::paths::record_file_name(id).unwrap();
        assert!(name.starts_with('_'), "{id}: {name}");
        assert!(text.contains(&name), "{id}: {text}");
    }
}

#[cfg(unix)]
#[test]
fn records_and_the_folder_gk_makes_are_private_to_the_user() {
    use std::os::unix::fs::PermissionsExt;
    let env = TestEnv::new();
    let dir = env.root().join("new/state");
    let out = run_in(
        &env,
        &dir,
        &[
            "state",
            "set",
            "in_progress",
            "t",
            "--session",
            UUID_A,
            "--yes",
        ],
    );
    out.ok();
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&dir), 0o700, "folder");
    assert_eq!(mode(&dir.join(format!("{UUID_A}.json"))), 0o600, "record");
}

#[cfg(unix)]
#[test]
fn install_makes_the_state_folder_private_where_claude_writes_its_records() {
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    let env = TestEnv::new();
    for made_by_the_client in [false, true] {
        let dir = env.root().join(format!("state-{made_by_the_client}"));
        if made_by_the_client {
            // As the client's Write tool leaves it (measured: 0755 / 0644).
            write(
                &dir.join(format!("{UUID_A}.json")),
                "{\"status\":\"clean\"}",
            );
            std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let dry = run_in(&env, &dir, &["install", "--dry-run", "--no-smoke"]);
        assert!(
            dry.stdout_text().contains(&dir.display().to_string()),
            "{}",
            dry.stdout_text()
        );
        let out = run_in(&env, &dir, &["install", "--yes", "--no-smoke"]);
        out.ok();
        assert_eq!(mode(&dir), 0o700, "{}", out.stdout_text());
        let again = run_in(&env, &dir, &["install", "--yes", "--no-smoke"]);
        assert!(
            again.stdout_text().contains("nothing to do"),
            "{}",
            again.stdout_text()
        );
    }
}

#[cfg(unix)]
#[test]
fn doctor_names_a_state_folder_others_can_read() {
    use std::os::unix::fs::PermissionsExt;
    let env = TestEnv::new();
    let dir = env.root().join("state");
    let out = run_in(&env, &dir, &["install", "--yes", "--no-smoke"]);
    out.ok();
    let doctor = |env: &TestEnv| run_in(env, &dir, &["doctor", "--no-smoke"]).stdout_text();
    assert!(!doctor(&env).contains("state-folder-readable"));
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let text = doctor(&env);
    assert!(text.contains("state-folder-readable"), "{text}");
    assert!(text.contains("mode 755"), "{text}");
    // The home folder as the state folder: named for what it is.
    let home = env.home().to_path_buf();
    let text = run_in(&env, &home, &["doctor", "--no-smoke"]).stdout_text();
    assert!(
        text.contains("is not a folder of gk's own (it is the home folder)"),
        "{text}"
    );
}
