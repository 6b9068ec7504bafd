//! The state folder is gk's own (issue 17, items 6 and 9): `gk state` and
//! `gk install` refuse a folder that is `/`, the home folder, the Claude
//! config folder or inside it, or that holds JSON files that are not task
//! records; they only ever rewrite or delete records; a session id that
//! would name another program's file gets a hashed name; and what gk makes
//! there is private to the user. Every run has a temporary HOME; each case
//! has a time limit.

use std::path::{Path, PathBuf};
use std::time::Duration;

mod hooks_common;
mod support;
use serde_json::json;

const UUID_A: &str = "3f2a9c1e-5b7d-4e8a-9c2f-1a2b3c4d5e6f";
const LIMIT: Duration = Duration::from_secs(60);

struct Env {
    dir: tempfile::TempDir,
}

struct Out {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Env {
    fn new() -> Env {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("home/.claude/hooks")).unwrap();
        Env { dir }
    }
    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }
    fn run_in(&self, state_dir: &Path, args: &[&str]) -> Out {
        let out = support::gk(&self.home())
            .args(args)
            .env("GK_STATE_DIR", state_dir)
            .env("XDG_DATA_HOME", self.dir.path().join("data"))
            .current_dir(self.dir.path())
            .write_stdin("")
            .timeout(LIMIT)
            .output()
            .unwrap();
        Out {
            code: out.status.code(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
    /// Every file under the temp root, with its bytes.
    fn files(&self) -> Vec<(PathBuf, Vec<u8>)> {
        hooks_common::files_under(self.dir.path())
    }
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
fn assert_refused(env: &Env, dir: &Path, args: &[&str], why: &str) {
    let before = env.files();
    let out = env.run_in(dir, args);
    assert_ne!(
        out.code,
        Some(0),
        "{args:?} in {}: {}",
        dir.display(),
        out.stdout
    );
    assert_eq!(
        out.stderr.lines().count(),
        1,
        "{args:?}: one line: {:?}",
        out.stderr
    );
    assert!(
        out.stderr.contains(why),
        "{args:?} in {}: {:?}",
        dir.display(),
        out.stderr
    );
    assert_eq!(env.files(), before, "{args:?} in {}", dir.display());
}

#[test]
fn a_folder_holding_json_that_is_no_record_is_refused_and_left_as_it_is() {
    let env = Env::new();
    let proj = env.dir.path().join("proj");
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

/// What makes a folder gk's is what the convention writes there: a record
/// Claude gave a key of its own (beside a `status` the convention knows)
/// is still a record, and the folder pointer Claude writes beside the
/// records is gk's too; neither makes `gk state` refuse the folder, and
/// cleaning leaves the pointer alone.
#[test]
fn a_record_with_a_key_of_its_own_and_a_folder_pointer_keep_the_folder_gks() {
    let env = Env::new();
    let dir = env.dir.path().join("st");
    let record = dir.join(format!("{UUID_A}.json"));
    write(
        &record,
        &json!({"status": "in_progress", "task": "t", "notes": "Claude's own key"}).to_string(),
    );
    let pointer = dir.join(gk::testing::paths::folder_pointer_name("/w/p").unwrap());
    let pointed = json!({"session": UUID_A}).to_string();
    write(&pointer, &pointed);
    let out = env.run_in(&dir, &["state"]);
    assert_eq!(out.code, Some(0), "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains(UUID_A), "{}", out.stdout);
    let out = env.run_in(&dir, &["state", "clean", "--all", "--yes"]);
    assert_eq!(out.code, Some(0), "{}{}", out.stdout, out.stderr);
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
    let env = Env::new();
    let proj = env.dir.path().join("proj");
    write(&proj.join("package.json"), "{\"name\":\"app\"}");
    let home = env.home();
    for dir in [proj.clone(), home.clone(), home.join(".claude/hooks")] {
        assert_refused(
            &env,
            &dir,
            &["install", "--yes", "--no-smoke"],
            "not a state folder",
        );
    }
    // Without the rules, install has no business with that folder.
    let out = env.run_in(
        &proj,
        &["install", "--yes", "--no-smoke", "--no-permissions"],
    );
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
}

#[test]
fn the_home_and_claude_folders_and_the_root_are_never_state_folders() {
    let env = Env::new();
    let home = env.home();
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
    let env = Env::new();
    let dir = env.dir.path().join("state");
    write(
        &env.home().join(".claude/hooks/gk.json"),
        "{\"state\": {\"scope\": \"session\"}}",
    );
    for id in ["settings", "gk", "task_state", "gk-install"] {
        let event =
            json!({"session_id": id, "hook_event_name": "UserPromptSubmit", "prompt": "hi"});
        let out = support::gk(&env.home())
            .args(["hook", "prompt"])
            .env("GK_STATE_DIR", &dir)
            .write_stdin(event.to_string())
            .timeout(LIMIT)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
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
    let env = Env::new();
    let dir = env.dir.path().join("new/state");
    let out = env.run_in(
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
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&dir), 0o700, "folder");
    assert_eq!(mode(&dir.join(format!("{UUID_A}.json"))), 0o600, "record");
}

#[cfg(unix)]
#[test]
fn install_makes_the_state_folder_private_where_claude_writes_its_records() {
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    let env = Env::new();
    for made_by_the_client in [false, true] {
        let dir = env.dir.path().join(format!("state-{made_by_the_client}"));
        if made_by_the_client {
            // As the client's Write tool leaves it (measured: 0755 / 0644).
            write(
                &dir.join(format!("{UUID_A}.json")),
                "{\"status\":\"clean\"}",
            );
            std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let dry = env.run_in(&dir, &["install", "--dry-run", "--no-smoke"]);
        assert!(
            dry.stdout.contains(&dir.display().to_string()),
            "{}",
            dry.stdout
        );
        let out = env.run_in(&dir, &["install", "--yes", "--no-smoke"]);
        assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
        assert_eq!(mode(&dir), 0o700, "{}", out.stdout);
        let again = env.run_in(&dir, &["install", "--yes", "--no-smoke"]);
        assert!(again.stdout.contains("nothing to do"), "{}", again.stdout);
    }
}

#[cfg(unix)]
#[test]
fn doctor_names_a_state_folder_others_can_read() {
    use std::os::unix::fs::PermissionsExt;
    let env = Env::new();
    let dir = env.dir.path().join("state");
    let out = env.run_in(&dir, &["install", "--yes", "--no-smoke"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let doctor = |env: &Env| env.run_in(&dir, &["doctor", "--no-smoke"]).stdout;
    assert!(!doctor(&env).contains("state-folder-readable"));
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let text = doctor(&env);
    assert!(text.contains("state-folder-readable"), "{text}");
    assert!(text.contains("mode 755"), "{text}");
    // The home folder as the state folder: named for what it is.
    let home = env.home();
    let text = env.run_in(&home, &["doctor", "--no-smoke"]).stdout;
    assert!(
        text.contains("is not a folder of gk's own (it is the home folder)"),
        "{text}"
    );
}
