//! One task record per session, through the gk binary: the hooks and the
//! status line read this session's record (and only inside the state
//! folder, whatever the session id says), fall back to the shared record,
//! and `gk state` lists, cleans, prunes and sets records through the usual
//! plan → diff → confirm → write path. Every run has a temporary HOME and
//! its own state folder (`GK_STATE_DIR`); nothing reads the real profile.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::common::hooks::state_dir;
use crate::common::{set_age, Gk, Run, TestEnv};

/// What these tests ask of a run beyond [`Run`]'s own checks.
trait Quiet {
    /// The hook contract as far as the status line keeps it too: exit 0,
    /// nothing on stderr.
    fn quiet(&self) -> &Self;
    /// stdout as one JSON value (`gk state --json` prints it on several
    /// lines).
    fn value(&self) -> Value;
}

impl Quiet for Run {
    fn quiet(&self) -> &Self {
        assert_eq!(
            self.code,
            Some(0),
            "exit code; stderr {:?}",
            self.stderr_text()
        );
        assert!(
            self.stderr_text().is_empty(),
            "stderr: {:?}",
            self.stderr_text()
        );
        self
    }

    fn value(&self) -> Value {
        serde_json::from_slice(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "not JSON ({e}): {:?} / {:?}",
                self.stdout_text(),
                self.stderr_text()
            )
        })
    }
}

/// The context after the per-session sentence that opens it (naming this
/// session's record): the v5 text.
fn v5_part(context: &str) -> &str {
    assert!(context.starts_with("[Task state] "), "{context}");
    context
        .split_once(".json. ")
        .map_or(context, |(_, rest)| rest)
}

const UUID_A: &str = "3f2a9c1e-5b7d-4e8a-9c2f-1a2b3c4d5e6f";
const UUID_B: &str = "9b1c2d3e-4f50-4a6b-8c7d-0e1f2a3b4c5d";

/// A task record in progress, as the convention writes one.
fn dirty(task: &str) -> String {
    json!({"status": "in_progress", "task": task, "detail": "", "project": "P", "cwd": "/w", "updated": ""}).to_string()
}

/// The records of a [`TestEnv`] whose runs keep them in `<root>/state`
/// and start in `<root>`.
trait Records {
    /// The shared (global-scope) record.
    fn shared(&self) -> PathBuf;
    fn record(&self, session: &str) -> PathBuf;
    /// Write `text` to `path` and set its mtime `age_secs` before now.
    fn write_aged(&self, path: &Path, text: &str, age_secs: u64);
    fn gk_here(&self, args: &[&str]) -> Gk;
    fn run_here(&self, args: &[&str], stdin: &str) -> Run;
    fn prompt_as(&self, session: Value) -> Run;
    fn stop_as(&self, session: Value) -> Run;
    fn statusline_as(&self, session: Value) -> Run;
}

impl Records for TestEnv {
    fn shared(&self) -> PathBuf {
        self.state_path()
    }
    fn record(&self, session: &str) -> PathBuf {
        state_dir(self).join(gk::testing::paths::record_file_name(session).unwrap())
    }
    fn write_aged(&self, path: &Path, text: &str, age_secs: u64) {
        self.write(path, text);
        set_age(path, age_secs);
    }
    fn gk_here(&self, args: &[&str]) -> Gk {
        let mut gk = self.gk(args);
        gk.env("GK_STATE_DIR", state_dir(self))
            .current_dir(self.root());
        gk
    }
    fn run_here(&self, args: &[&str], stdin: &str) -> Run {
        self.gk_here(args).stdin(stdin).run()
    }
    fn prompt_as(&self, session: Value) -> Run {
        let event = json!({"session_id": session, "hook_event_name": "UserPromptSubmit", "prompt": "update the readme"});
        self.run_here(&["hook", "prompt"], &event.to_string())
    }
    fn stop_as(&self, session: Value) -> Run {
        let event = json!({"session_id": session, "hook_event_name": "Stop"});
        self.run_here(&["hook", "stop"], &event.to_string())
    }
    fn statusline_as(&self, session: Value) -> Run {
        let event = json!({"session_id": session, "cwd": "/w", "model": {"display_name": "Opus"}});
        self.run_here(&["statusline"], &event.to_string())
    }
}

/// The `.json` paths an additionalContext names.
fn json_paths(context: &str) -> Vec<String> {
    let re = regex::Regex::new(r"(/|[A-Za-z]:\\)[^\s'`]*?\.json").unwrap();
    re.find_iter(context)
        .map(|m| m.as_str().to_string())
        .collect()
}

#[test]
fn the_context_names_this_sessions_record_once_in_one_added_sentence() {
    let env = TestEnv::new();
    let context = env.prompt_as(json!(UUID_A)).quiet().context();
    let record = env.record(UUID_A);
    assert_eq!(
        json_paths(&context),
        [record.display().to_string()],
        "{context}"
    );
    let sentence = format!(
        "[Task state] This session's task_state.json is {}. ",
        record.display()
    );
    // It opens the context; everything after it is the v5 text (the shared
    // file is missing here). Which model it suggests is the recommender's
    // call (src/hooks/advice.rs), not this test's.
    let v5 = context
        .strip_prefix(&sentence)
        .unwrap_or_else(|| panic!("{context}"));
    assert!(
        v5.starts_with(
            "[Gatekeeper] State: clean (task_state.json missing or unreadable -- assuming clean) -- safe to switch model or effort. Suggested model: "
        ),
        "{v5}"
    );
}

#[test]
fn two_sessions_records_never_mix() {
    let env = TestEnv::new();
    env.write_aged(&env.record(UUID_A), &dirty("task of A"), 60);
    env.write_aged(
        &env.record(UUID_B),
        &json!({"status": "clean", "task": "", "detail": "", "project": "", "cwd": "", "updated": ""}).to_string(),
        60,
    );
    let a = env.stop_as(json!(UUID_A)).quiet().system_message();
    assert!(
        a.starts_with("STATE [DIRTY] task in progress: 'task of A' [P]"),
        "{a}"
    );
    let b = env.stop_as(json!(UUID_B)).quiet().system_message();
    assert!(b.starts_with("STATE [CLEAN]"), "{b}");
    let ctx_b = env.prompt_as(json!(UUID_B)).quiet().context();
    assert!(!ctx_b.contains("task of A"), "{ctx_b}");
    assert!(
        v5_part(&ctx_b).starts_with("[Gatekeeper] State: clean -- safe"),
        "{ctx_b}"
    );
    let ctx_a = env.prompt_as(json!(UUID_A)).quiet().context();
    assert!(
        ctx_a.contains("DIRTY (task in progress: 'task of A' [P])"),
        "{ctx_a}"
    );
    assert!(env
        .statusline_as(json!(UUID_A))
        .quiet()
        .stdout_text()
        .starts_with("gk DIRTY 'task of A' [P]"));
    assert_eq!(
        env.statusline_as(json!(UUID_B)).quiet().stdout_text(),
        "gk CLEAN\n"
    );
    // A third session has no record: the shared one (missing here) speaks.
    let c = env
        .stop_as(json!("c0ffee00-0000-4000-8000-000000000000"))
        .quiet()
        .system_message();
    assert_eq!(
        c,
        "STATE [CLEAN] no task recorded in this session yet -- safe to switch model or effort"
    );
    assert_eq!(
        env.statusline_as(json!("c0ffee00-0000-4000-8000-000000000000"))
            .quiet()
            .stdout_text(),
        "gk CLEAN (no task yet)\n"
    );
    // No session id: no session to speak of, the shared record's words.
    assert_eq!(
        env.stop_as(Value::Null).quiet().system_message(),
        "STATE [UNKNOWN] task_state.json missing -- assuming clean"
    );
}

#[test]
fn a_session_without_a_record_shows_the_shared_one_and_its_own_record_wins() {
    let env = TestEnv::new();
    env.write_aged(&env.shared(), &dirty("from the Python days"), 120);
    let stop = env.stop_as(json!(UUID_A)).quiet().system_message();
    assert!(
        stop.starts_with("STATE [DIRTY] task in progress: 'from the Python days'"),
        "{stop}"
    );
    assert!(
        stop.ends_with(
            "\n ! saved outside any session (an older setup); `gk state clean --shared` clears it"
        ),
        "{stop}"
    );
    let ctx = env.prompt_as(json!(UUID_A)).quiet().context();
    assert!(ctx.contains("'from the Python days'"), "{ctx}");
    assert!(env
        .statusline_as(json!(UUID_A))
        .quiet()
        .stdout_text()
        .contains("(older setup)"));
    // Once the session writes its own record, that is what it sees.
    env.write_aged(
        &env.record(UUID_A),
        &json!({"status": "clean", "task": "", "detail": "", "project": "", "cwd": "", "updated": ""}).to_string(),
        5,
    );
    assert!(env
        .stop_as(json!(UUID_A))
        .quiet()
        .system_message()
        .starts_with("STATE [CLEAN]"));
    // A corrupt record of its own still wins: UNKNOWN, as v5 reads a bad file.
    env.write_aged(&env.record(UUID_A), "{not json", 5);
    assert_eq!(
        env.stop_as(json!(UUID_A)).quiet().system_message(),
        "STATE [UNKNOWN] task_state.json unreadable (JSONDecodeError) -- assuming clean"
    );
    assert!(
        v5_part(&env.prompt_as(json!(UUID_A)).quiet().context()).starts_with(
            "[Gatekeeper] State: clean (task_state.json missing or unreadable -- assuming clean)"
        )
    );
}

#[test]
fn hostile_session_ids_never_read_or_name_a_file_outside_the_folder() {
    let env = TestEnv::new();
    // Planted where a careless join would land.
    let outside = env.root().join("outside.json");
    env.write_aged(&outside, &dirty("PLANTED"), 60);
    env.write_aged(&env.home().join("outside.json"), &dirty("PLANTED"), 60);
    let stem = outside.with_extension("");
    let ids = [
        json!("../outside"),
        json!("..\\outside"),
        json!("../../outside"),
        json!("a/../../outside"),
        json!(stem.display().to_string()),
        json!(format!("{}\u{0}", stem.display())),
        json!(".."),
        json!("."),
        json!("/"),
        json!("con"),
        json!("x".repeat(5000)),
        json!("UPPER-case"),
    ];
    for id in &ids {
        let ctx = env.prompt_as(id.clone()).quiet().context();
        assert!(!ctx.contains("PLANTED"), "{id}: {ctx}");
        let named = json_paths(&ctx);
        assert_eq!(named.len(), 1, "{id}: {ctx}");
        let named = PathBuf::from(&named[0]);
        assert_eq!(named.parent().unwrap(), state_dir(&env), "{id}: {ctx}");
        let name = named.file_name().unwrap().to_str().unwrap();
        assert!(
            gk::testing::paths::is_record_file_name(name),
            "{id}: {name}"
        );
        let stop = env.stop_as(id.clone()).quiet().system_message();
        assert!(!stop.contains("PLANTED"), "{id}: {stop}");
        assert!(!env
            .statusline_as(id.clone())
            .quiet()
            .stdout_text()
            .contains("PLANTED"));
    }
    // A link in the folder that points outside is not followed.
    std::fs::create_dir_all(state_dir(&env)).unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&outside, env.record(UUID_A)).unwrap();
        let stop = env.stop_as(json!(UUID_A)).quiet().system_message();
        assert_eq!(
            stop,
            "STATE [UNKNOWN] task_state.json unreadable (not a regular file) -- assuming clean"
        );
    }
}

#[test]
fn an_event_without_a_usable_session_id_reads_the_shared_record_and_names_none() {
    let env = TestEnv::new();
    env.write_aged(&env.shared(), &dirty("shared task"), 60);
    for id in [
        json!(42),
        json!(null),
        json!({"a": 1}),
        json!(["x"]),
        json!(true),
        json!(""),
    ] {
        let ctx = env.prompt_as(id.clone()).quiet().context();
        assert!(ctx.contains("'shared task'"), "{id}: {ctx}");
        assert!(
            !ctx.contains("This session's task_state.json is"),
            "{id}: {ctx}"
        );
        let stop = env.stop_as(id.clone()).quiet().system_message();
        assert!(
            stop.starts_with("STATE [DIRTY] task in progress: 'shared task'"),
            "{id}"
        );
        assert!(!stop.contains("from the shared record"), "{id}: {stop}");
    }
    // Not JSON at all on Stop: the shared record, as v5.
    let out = env.run_here(&["hook", "stop"], "not json");
    assert!(out.quiet().system_message().starts_with("STATE [DIRTY]"));
}

#[test]
fn global_scope_is_v5_and_survives_a_broken_gk_json() {
    let env = TestEnv::new();
    env.write_aged(&env.shared(), &dirty("shared task"), 60);
    env.write_aged(&env.record(UUID_A), &dirty("session task"), 60);
    let config = env.home().join(".claude/hooks/gk.json");
    for text in [
        r#"{"state": {"scope": "global"}}"#,
        // A typo elsewhere does not undo the choice.
        r#"{"state": {"scope": "global"}, "modles": []}"#,
    ] {
        env.write_aged(&config, text, 0);
        let ctx = env.prompt_as(json!(UUID_A)).quiet().context();
        assert!(
            ctx.contains("'shared task'") && !ctx.contains("[Task state]"),
            "{ctx}"
        );
        let stop = env.stop_as(json!(UUID_A)).quiet().system_message();
        assert!(
            stop.starts_with("STATE [DIRTY] task in progress: 'shared task'"),
            "{stop}"
        );
        assert!(!stop.contains("from the shared record"), "{stop}");
        assert!(env
            .statusline_as(json!(UUID_A))
            .quiet()
            .stdout_text()
            .contains("'shared task'"));
    }
    env.write_aged(&config, r#"{"modles": []}"#, 0);
    assert!(env
        .prompt_as(json!(UUID_A))
        .quiet()
        .context()
        .contains("'session task'"));
}

#[test]
fn thousands_of_records_change_nothing_about_what_a_session_sees() {
    let env = TestEnv::new();
    for i in 0..2000 {
        env.write_aged(
            &state_dir(&env).join(format!("{i:08x}-0000-4000-8000-000000000000.json")),
            &dirty(&format!("other {i}")),
            60,
        );
    }
    env.write_aged(&env.record(UUID_A), &dirty("mine"), 60);
    assert!(env
        .stop_as(json!(UUID_A))
        .quiet()
        .system_message()
        .contains("'mine'"));
    let listed = env.run_here(&["state", "--json"], "");
    assert_eq!(listed.value()["records"].as_array().unwrap().len(), 2001);
}

#[test]
fn the_default_state_folder_is_under_home_and_a_relative_override_is_ignored() {
    let env = TestEnv::new();
    let out = env
        .gk_here(&["hook", "prompt"])
        .env_remove("GK_STATE_DIR")
        .stdin(json!({"session_id": UUID_A, "prompt": "hi"}).to_string())
        .output();
    let ctx: Value = serde_json::from_slice(&out.stdout).unwrap();
    let ctx = ctx["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    let default = env
        .home()
        .join(".local")
        .join("state")
        .join("gk")
        .join(format!("{UUID_A}.json"));
    assert_eq!(json_paths(ctx), [default.display().to_string()]);
    let out = env
        .gk_here(&["hook", "prompt"])
        .env("GK_STATE_DIR", "relative/dir")
        .env("XDG_STATE_HOME", env.root().join("xdg"))
        .stdin(json!({"session_id": UUID_A, "prompt": "hi"}).to_string())
        .output();
    let ctx: Value = serde_json::from_slice(&out.stdout).unwrap();
    let ctx = ctx["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    // Then XDG_STATE_HOME speaks, on Linux and macOS; Windows has no XDG
    // folders, so the default stays.
    let want = if cfg!(windows) {
        default
    } else {
        env.root().join("xdg/gk").join(format!("{UUID_A}.json"))
    };
    assert_eq!(json_paths(ctx), [want.display().to_string()]);
}

#[test]
fn gk_state_lists_records_newest_first_with_the_shared_one_last() {
    let env = TestEnv::new();
    env.write_aged(&env.record(UUID_A), &dirty("older task"), 3 * 3600);
    env.write_aged(&env.record(UUID_B), &dirty("newer task"), 60);
    env.write_aged(&env.record("c0ffee"), &dirty("stale task"), 30 * 3600);
    env.write_aged(&env.shared(), &json!({"status": "clean"}).to_string(), 60);
    // Not records: another file, and a folder.
    env.write_aged(&state_dir(&env).join("notes.txt"), "x", 0);
    std::fs::create_dir_all(state_dir(&env).join("sub.json")).unwrap();
    let out = env.run_here(&["state"], "");
    out.ok();
    let stdout = out.stdout_text();
    let rows: Vec<&str> = stdout.lines().skip(2).collect();
    assert!(
        rows[0].starts_with(UUID_B) && rows[0].contains("newer task"),
        "{}",
        out.stdout_text()
    );
    assert!(
        rows[1].starts_with(UUID_A) && rows[1].contains("3h ago"),
        "{}",
        out.stdout_text()
    );
    assert!(
        rows[2].starts_with("c0ffee") && rows[2].contains("in_progress (stale)"),
        "{}",
        out.stdout_text()
    );
    assert!(
        rows[3].starts_with("(shared)") && rows[3].contains("clean"),
        "{}",
        out.stdout_text()
    );
    assert_eq!(rows.len(), 4, "{}", out.stdout_text());
    let v = env.run_here(&["state", "--json"], "").value();
    let records = v["records"].as_array().unwrap();
    assert_eq!(records[0]["session"], UUID_B);
    assert_eq!(records[0]["status"], "in_progress");
    assert_eq!(records[0]["project"], "P");
    assert_eq!(records[2]["stale"], true);
    assert_eq!(records[3]["shared"], true);
    assert_eq!(v["scope"], "session");
    assert_eq!(v["state_dir"], state_dir(&env).display().to_string());
}

#[test]
fn gk_state_clean_sets_one_or_all_records_clean_through_the_engine() {
    let env = TestEnv::new();
    env.write_aged(&env.record(UUID_A), &dirty("a"), 60);
    env.write_aged(&env.record(UUID_B), &dirty("b"), 60);
    env.write_aged(&env.shared(), &dirty("s"), 60);
    let before = env.files();
    // No --yes and no terminal: refused, nothing written.
    let out = env.run_here(&["state", "clean", UUID_A], "");
    assert_eq!(out.code, Some(1));
    assert!(out.stderr_text().contains("--yes"), "{}", out.stderr_text());
    let out = env.run_here(&["state", "clean", UUID_A, "--dry-run"], "");
    assert_eq!(out.code, Some(0));
    assert!(
        out.stdout_text().contains("+  \"status\": \"clean\","),
        "{}",
        out.stdout_text()
    );
    assert_eq!(env.files(), before);

    let out = env.run_here(&["state", "clean", UUID_A, "--yes"], "");
    out.ok();
    let a: Value =
        serde_json::from_str(&std::fs::read_to_string(env.record(UUID_A)).unwrap()).unwrap();
    assert_eq!(a["status"], "clean");
    assert_eq!(a["task"], "");
    assert_eq!(a["project"], "P", "where the session was is kept");
    assert!(env
        .stop_as(json!(UUID_A))
        .quiet()
        .system_message()
        .starts_with("STATE [CLEAN]"));
    assert!(env
        .stop_as(json!(UUID_B))
        .quiet()
        .system_message()
        .starts_with("STATE [DIRTY]"));
    // No backup beside a record: the folder holds records only.
    let names: Vec<String> = std::fs::read_dir(state_dir(&env))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");

    let out = env.run_here(&["state", "clean", "--shared", "--yes"], "");
    out.ok();
    assert!(std::fs::read_to_string(env.shared())
        .unwrap()
        .contains("\"clean\""));
    assert!(env
        .stop_as(json!(UUID_B))
        .quiet()
        .system_message()
        .starts_with("STATE [DIRTY]"));

    env.write_aged(&env.shared(), &dirty("s"), 60);
    let out = env.run_here(&["state", "clean", "--all", "--yes"], "");
    out.ok();
    for p in [env.record(UUID_B), env.shared()] {
        let v: Value = serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
        assert_eq!(v["status"], "clean");
    }
    // Nothing left to clean: nothing to do.
    let out = env.run_here(&["state", "clean", "--all", "--yes"], "");
    assert!(
        out.stdout_text().contains("nothing to do"),
        "{}",
        out.stdout_text()
    );

    let out = env.run_here(&["state", "clean", "no-such-session", "--yes"], "");
    assert_eq!(out.code, Some(1));
    assert!(
        out.stderr_text().contains("no task record for session"),
        "{}",
        out.stderr_text()
    );
}

#[test]
fn gk_state_prune_deletes_clean_and_old_records_only() {
    let env = TestEnv::new();
    let clean = json!({"status": "clean", "task": "", "detail": "", "project": "", "cwd": "", "updated": ""}).to_string();
    env.write_aged(&env.record("clean-one"), &clean, 60);
    env.write_aged(&env.record("fresh-dirty"), &dirty("x"), 60);
    env.write_aged(&env.record("old-dirty"), &dirty("x"), 8 * 24 * 3600);
    env.write_aged(&env.record("old-corrupt"), "{", 8 * 24 * 3600);
    env.write_aged(&env.shared(), &clean, 30 * 24 * 3600);
    env.write_aged(
        &state_dir(&env).join("keep.txt"),
        "not a record",
        30 * 24 * 3600,
    );
    // Past the bound a record is read to: passed over with a note, never
    // a stop for the rest (anyone may write the folder).
    let huge = format!(
        "{{\"status\": \"clean\", \"task\": \"{}\"}}",
        "x".repeat(5 << 20)
    );
    env.write_aged(&env.record("huge"), &huge, 8 * 24 * 3600);
    let out = env.run_here(&["state", "prune", "--yes"], "");
    out.ok();
    let note = format!(
        "note: left {} as it is (larger than 4 MiB)\n",
        env.record("huge").display()
    );
    assert!(
        out.stdout_text().starts_with(&note),
        "{}",
        out.stdout_text()
    );
    assert_eq!(std::fs::read_to_string(env.record("huge")).unwrap(), huge);
    assert!(!env.record("clean-one").exists());
    assert!(!env.record("old-dirty").exists());
    assert!(!env.record("old-corrupt").exists());
    assert!(env.record("fresh-dirty").exists());
    assert!(env.shared().exists(), "the shared record is never pruned");
    assert!(state_dir(&env).join("keep.txt").exists());
    env.write_aged(&env.record("week-old"), &dirty("x"), 3 * 24 * 3600);
    let out = env.run_here(&["state", "prune", "--days", "2", "--yes"], "");
    out.ok();
    assert!(!env.record("week-old").exists());
    assert!(env.record("fresh-dirty").exists());
}

#[test]
fn gk_state_set_writes_the_shared_record_or_one_sessions() {
    let env = TestEnv::new();
    let out = env.run_here(
        &[
            "state",
            "set",
            "in_progress",
            "Deploying",
            "--detail",
            "step 2",
            "--project",
            "Ops",
            "--yes",
        ],
        "",
    );
    out.ok();
    let v: Value = serde_json::from_str(&std::fs::read_to_string(env.shared()).unwrap()).unwrap();
    assert_eq!(
        (
            v["status"].as_str(),
            v["task"].as_str(),
            v["detail"].as_str(),
            v["project"].as_str()
        ),
        (
            Some("in_progress"),
            Some("Deploying"),
            Some("step 2"),
            Some("Ops")
        )
    );
    assert_eq!(v["cwd"], env.root().display().to_string());
    let stop = env.stop_as(json!(UUID_A)).quiet().system_message();
    assert!(
        stop.starts_with(
            "STATE [DIRTY] task in progress: 'Deploying' [Ops] (updated just now)\n step 2"
        ),
        "{stop}"
    );

    let out = env.run_here(
        &[
            "state",
            "set",
            "in_progress",
            "Mine",
            "--session",
            UUID_B,
            "--yes",
        ],
        "",
    );
    out.ok();
    assert!(env
        .stop_as(json!(UUID_B))
        .quiet()
        .system_message()
        .contains("'Mine'"));
    let out = env.run_here(&["state", "set", "clean", "--session", UUID_B, "--yes"], "");
    out.ok();
    assert!(env
        .stop_as(json!(UUID_B))
        .quiet()
        .system_message()
        .starts_with("STATE [CLEAN]"));
    // in_progress needs a task.
    assert_eq!(
        env.run_here(&["state", "set", "in_progress", "--yes"], "")
            .code,
        Some(2)
    );
}

#[test]
fn a_state_folder_that_cannot_be_written_gives_one_line_and_changes_nothing() {
    let env = TestEnv::new();
    env.write_aged(&env.shared(), &dirty("s"), 60);
    // A file where the state folder's parent should be: nothing can be
    // created below it, not even by root.
    let blocked = env.root().join("a-file");
    std::fs::write(&blocked, "x").unwrap();
    let state = blocked.join("gk");
    let before = env.files();
    for args in [
        vec![
            "state",
            "set",
            "in_progress",
            "x",
            "--session",
            UUID_A,
            "--yes",
        ],
        vec!["state", "clean", "--all", "--yes"],
    ] {
        let out = env
            .gk_here(&args)
            .env("GK_STATE_DIR", &state)
            .stdin("")
            .output();
        let stderr = String::from_utf8_lossy(&out.stderr);
        if cfg!(windows) && args[1] == "clean" {
            // Windows reports a folder below a file as not found
            // (ERROR_PATH_NOT_FOUND), as it does a missing folder: there
            // are no session records to clean, which is not an error, and
            // `--all` cleans the one record there is, the shared one.
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert_eq!(out.status.code(), Some(0), "{args:?}: {stdout}{stderr}");
            assert!(stderr.is_empty(), "{args:?}: {stderr}");
            let shared = env
                .home()
                .join(".claude")
                .join("hooks")
                .join("task_state.json");
            let shared = shared.display().to_string();
            assert!(
                stdout.contains(&format!("edited    {shared}")),
                "{args:?}: {stdout}"
            );
            assert!(
                !stdout.contains(&blocked.display().to_string()),
                "{args:?}: {stdout}"
            );
            let after = env.files();
            // gk's own empty lock in its data folder aside (the run took it
            // to write the shared record).
            let others = |files: &[(PathBuf, Vec<u8>)]| -> Vec<(PathBuf, Vec<u8>)> {
                files
                    .iter()
                    .filter(|(p, b)| {
                        *p != env.shared() && !(p.ends_with("gk.lock") && b.is_empty())
                    })
                    .cloned()
                    .collect()
            };
            assert_eq!(others(&after), others(&before), "{args:?}");
            assert!(env
                .stop_as(json!(UUID_A))
                .quiet()
                .system_message()
                .starts_with("STATE [CLEAN]"));
            continue;
        }
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.starts_with("gk: could not "), "{args:?}: {stderr}");
        assert!(
            stderr.contains(&blocked.display().to_string()),
            "{args:?}: {stderr}"
        );
        // Every file as it was, but for gk's own empty lock in its data
        // folder: on Windows the folder below a file is found missing only
        // when the write is tried, after the run took the lock (elsewhere
        // the plan already fails).
        let without_lock = |files: Vec<(PathBuf, Vec<u8>)>| -> Vec<(PathBuf, Vec<u8>)> {
            files
                .into_iter()
                .filter(|(p, b)| !(p.ends_with("gk.lock") && b.is_empty()))
                .collect()
        };
        assert_eq!(
            without_lock(env.files()),
            without_lock(before.clone()),
            "{args:?}"
        );
    }
}

#[test]
fn a_huge_record_is_listed_cut_down_and_odd_files_are_skipped() {
    let env = TestEnv::new();
    // Under the 64 KiB a record is shown from: listed, each field cut down.
    let long = "x".repeat(30_000);
    env.write_aged(
        &env.record(UUID_A),
        &json!({"status": "in_progress", "task": long, "project": "P", "detail": long}).to_string(),
        60,
    );
    // Over it: listed as unreadable, not parsed.
    let big = "x".repeat(3 << 19);
    env.write_aged(
        &env.record(UUID_B),
        &json!({"status": "in_progress", "task": big}).to_string(),
        120,
    );
    // Named like a record but not one: a link and a named pipe.
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(env.record(UUID_A), env.record("linked")).unwrap();
        let fifo = env.record("a-pipe");
        crate::common::hooks::mkfifo(&fifo);
    }
    let out = env.run_here(&["state", "--json"], "");
    out.ok();
    let v = out.value();
    let records = v["records"].as_array().unwrap();
    assert_eq!(records.len(), 2, "{v}");
    let task = records[0]["task"].as_str().unwrap();
    assert!(
        task.len() <= 1027 && task.ends_with("..."),
        "{}",
        task.len()
    );
    assert_eq!(records[0]["status"], "in_progress");
    assert_eq!(records[1]["status"], "unknown");
    assert_eq!(records[1]["problem"], "unreadable (larger than 64 KiB)");
    assert!(
        out.stdout_text().len() < 10_000,
        "{} bytes",
        out.stdout_text().len()
    );
}

#[cfg(unix)]
#[test]
fn a_link_planted_in_the_state_folder_is_never_written_through() {
    let env = TestEnv::new();
    let victim = env.root().join("victim.txt");
    std::fs::write(&victim, "precious").unwrap();
    std::fs::create_dir_all(state_dir(&env)).unwrap();
    std::os::unix::fs::symlink(&victim, env.record(UUID_A)).unwrap();
    let out = env.run_here(
        &[
            "state",
            "set",
            "in_progress",
            "x",
            "--session",
            UUID_A,
            "--yes",
        ],
        "",
    );
    assert_eq!(out.code, Some(1), "{}", out.stdout_text());
    assert!(
        out.stderr_text().contains("a link, not a task record"),
        "{}",
        out.stderr_text()
    );
    for args in [
        vec!["state", "clean", "--all", "--yes"],
        vec!["state", "prune", "--days", "0", "--yes"],
    ] {
        let out = env.run_here(&args, "");
        assert_eq!(out.code, Some(0), "{args:?}: {}", out.stderr_text());
    }
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    assert!(std::fs::symlink_metadata(env.record(UUID_A))
        .unwrap()
        .file_type()
        .is_symlink());
}

#[test]
fn a_record_is_named_by_the_start_of_its_id_when_only_one_starts_so() {
    let env = TestEnv::new();
    env.write_aged(&env.record(UUID_A), &dirty("a"), 60);
    env.write_aged(&env.record(UUID_B), &dirty("b"), 60);
    let out = env.run_here(&["state", "clean", &UUID_A[..8], "--yes"], "");
    out.ok();
    let a = std::fs::read_to_string(env.record(UUID_A)).unwrap();
    assert!(a.contains("\"clean\""), "{a}");
    let b = std::fs::read_to_string(env.record(UUID_B)).unwrap();
    assert!(b.contains("in_progress"), "{b}");
    // Too short to tell two apart: named, nothing written.
    let c = "3f2a9c1e-0000-4000-8000-000000000000";
    env.write_aged(&env.record(c), &dirty("c"), 60);
    env.write_aged(&env.record(UUID_A), &dirty("a"), 60);
    let before = env.files();
    let out = env.run_here(&["state", "clean", "3f2a", "--yes"], "");
    assert_ne!(out.code, Some(0));
    assert!(
        out.stderr_text().contains("more than one"),
        "{}",
        out.stderr_text()
    );
    assert!(
        out.stderr_text().contains(UUID_A) && out.stderr_text().contains(c),
        "{}",
        out.stderr_text()
    );
    assert_eq!(env.files(), before);
}

#[test]
fn prune_with_nothing_to_prune_says_so_in_its_own_words() {
    let env = TestEnv::new();
    env.write_aged(&env.record(UUID_A), &dirty("a"), 60);
    let out = env.run_here(&["state", "prune", "--yes"], "");
    out.ok();
    assert!(
        !out.stdout_text().contains("every file is up to date"),
        "{}",
        out.stdout_text()
    );
    assert!(
        out.stdout_text().contains("no record to prune"),
        "{}",
        out.stdout_text()
    );
}

#[test]
fn a_task_in_progress_with_a_blank_name_is_refused_and_nothing_is_written() {
    let env = TestEnv::new();
    for task in ["", "   "] {
        let out = env.run_here(
            &[
                "state",
                "set",
                "in_progress",
                task,
                "--session",
                "s1",
                "--yes",
            ],
            "",
        );
        assert_eq!(out.code, Some(1), "{task:?}");
        assert_eq!(
            out.stderr_text(),
            "gk: in_progress needs a task: TASK is empty (name the task, e.g. `gk state set in_progress \"Fix the login test\"`)\n"
        );
        assert!(!env.record("s1").exists());
    }
}
