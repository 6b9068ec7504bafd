//! The hooks' messages, whole: what the user sees (`systemMessage`) and
//! what Claude reads (`additionalContext`), for the prompt and Stop hooks
//! in both state scopes with the task record clean, in progress and stale,
//! and the session check on a healthy and a broken machine. Each snapshot
//! holds the JSON pretty-printed and then the messages as plain text.

use std::path::PathBuf;

use serde_json::json;

use crate::common::{set_age, TestEnv};
use crate::snapshots::{hook_output, installed, settings, trailing_comma_in_settings};

/// The session every per-session run belongs to.
const SESSION: &str = "3f2a9c1e-5b7d-4e8a-9c2f-1a2b3c4d5e6f";

/// A prompt no rule keyword matches, and one that names the high effort
/// keyword `self-review`.
const PLAIN: &str = "rename the variable in utils.py";
const KEYWORD: &str = "self-review the parser changes before the release";

#[derive(Clone, Copy)]
enum Scope {
    /// `"state": {"scope": "global"}`: the one shared record, the v5 bytes.
    Global,
    /// The default: each session its own record in the state folder.
    Session,
}

#[derive(Clone, Copy)]
enum Record {
    Clean,
    InProgress,
    /// In progress, last written 30 hours ago (`stale_hours` is 24).
    Stale,
}

/// The record this session reads in `scope`.
fn record_path(env: &TestEnv, scope: Scope) -> PathBuf {
    match scope {
        Scope::Global => env.state_path(),
        Scope::Session => env
            .home()
            .join(".local")
            .join("state")
            .join("gk")
            .join(gk::testing::paths::record_file_name(SESSION).unwrap()),
    }
}

/// An installed machine in `scope` whose record says `record`.
fn machine(scope: Scope, record: Record) -> TestEnv {
    let env = installed();
    if let Scope::Global = scope {
        env.write_config(r#"{"state": {"scope": "global"}}"#);
    }
    let project = env.project().display().to_string();
    let (text, age) = match record {
        Record::Clean => (
            json!({"status": "clean", "task": "", "detail": "", "project": "", "cwd": "", "updated": "2026-12-04T09:00:00"}),
            300,
        ),
        Record::InProgress | Record::Stale => {
            let mut v = json!({
                "status": "in_progress",
                "task": "port the parser",
                "detail": "step 2 of 3: the error paths",
                "project": "gk",
                "cwd": project,
                "updated": "2026-12-04T09:00:00",
            });
            if let Scope::Session = scope {
                v["next"] = json!("Opus 5.5, high effort: the error paths are subtle");
            }
            let age = if let Record::Stale = record {
                30 * 3600
            } else {
                300
            };
            (v, age)
        }
    };
    let path = record_path(&env, scope);
    env.write(&path, serde_json::to_string_pretty(&text).unwrap());
    set_age(&path, age);
    env
}

/// The event the client sends, in `scope` (per session it carries the
/// session id and the folder).
fn event(env: &TestEnv, scope: Scope, name: &str, prompt: Option<&str>) -> String {
    let mut v = json!({"hook_event_name": name});
    if let Scope::Session = scope {
        v["session_id"] = json!(SESSION);
        v["cwd"] = json!(env.project());
    }
    if let Some(p) = prompt {
        v["prompt"] = json!(p);
    }
    v.to_string()
}

/// The prompt hook on [`PLAIN`] and on [`KEYWORD`], then the Stop hook,
/// in one snapshot.
fn prompts_and_stop(scope: Scope, record: Record, name: &str) {
    let env = machine(scope, record);
    let mut out = String::new();
    for (what, prompt) in [
        ("a prompt with no keyword", PLAIN),
        ("a keyword prompt", KEYWORD),
    ] {
        let run = env
            .gk(["hook", "prompt"])
            .current_dir(env.project())
            .stdin(event(&env, scope, "UserPromptSubmit", Some(prompt)))
            .run();
        out.push_str(&format!(
            "=== hook prompt: {what}: {prompt:?}\n{}\n",
            hook_output(&run)
        ));
    }
    let run = env
        .gk(["hook", "stop"])
        .current_dir(env.project())
        .stdin(event(&env, scope, "Stop", None))
        .run();
    out.push_str(&format!("=== hook stop\n{}", hook_output(&run)));
    settings(&env).bind(|| insta::assert_snapshot!(name, out));
}

#[test]
fn hooks_in_global_scope_with_a_clean_record_say_safe_to_switch() {
    prompts_and_stop(Scope::Global, Record::Clean, "hooks_global_clean");
}

#[test]
fn hooks_in_global_scope_with_a_task_in_progress_say_hold_off() {
    prompts_and_stop(
        Scope::Global,
        Record::InProgress,
        "hooks_global_in_progress",
    );
}

#[test]
fn hooks_in_global_scope_with_a_stale_task_say_it_may_be_stale() {
    prompts_and_stop(Scope::Global, Record::Stale, "hooks_global_stale");
}

#[test]
fn hooks_per_session_with_a_clean_record_name_the_sessions_file() {
    prompts_and_stop(Scope::Session, Record::Clean, "hooks_session_clean");
}

#[test]
fn hooks_per_session_with_a_task_in_progress_say_hold_off_and_next() {
    prompts_and_stop(
        Scope::Session,
        Record::InProgress,
        "hooks_session_in_progress",
    );
}

#[test]
fn hooks_per_session_with_a_stale_task_say_it_may_be_stale() {
    prompts_and_stop(Scope::Session, Record::Stale, "hooks_session_stale");
}

fn session_check(env: &TestEnv, name: &str) {
    let run = env
        .gk(["hook", "session"])
        .current_dir(env.project())
        .stdin(event(env, Scope::Session, "SessionStart", None))
        .run();
    let out = hook_output(&run);
    settings(env).bind(|| insta::assert_snapshot!(name, out));
}

#[test]
fn session_check_on_a_healthy_machine_says_nothing() {
    session_check(&installed(), "hook_session_healthy");
}

#[test]
fn session_check_on_a_settings_file_with_a_trailing_comma_warns_once() {
    let env = installed();
    trailing_comma_in_settings(&env);
    session_check(&env, "hook_session_trailing_comma");
}
