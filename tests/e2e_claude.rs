//! End-to-end: the real Claude Code client (the version pinned in
//! tests/e2e/claude-version) runs whole turns offline against a loopback
//! Messages API stand-in, with gk installed, doubled, uninstalled. This is
//! where "gk does what Claude Code wants" is checked against Claude Code
//! itself. See docs/maintainers/testing.md for how to run it and what each test proves.
//!
//! A test program of its own (`harness = false`, tests/e2e/harness.rs):
//! without the client (`GK_E2E_CLAUDE` unset or not an executable)
//! `cargo test` reports these tests as ignored, with the reason; under CI
//! (`CI=true`) they run regardless and fail. Turns run one at a time.
//! The client's speed with gk installed is measured by
//! scripts/bench-in-situ.sh, not here.

// This test crate is not gk: starting the client, the mock and gk itself is
// its whole job (clippy.toml forbids process spawning for gk's own code).
#![allow(clippy::disallowed_types, clippy::disallowed_methods)]

#[path = "e2e/harness.rs"]
#[macro_use]
mod harness;
#[path = "e2e/shapes.rs"]
mod shapes;

use harness::{Sandbox, Turn};
use serde_json::{json, Value};

/// The canonical Linux commands `gk install` registers.
const PROMPT_COMMAND: &str = "\"$HOME/.claude/hooks/gk\" hook prompt";
const STOP_COMMAND: &str = "\"$HOME/.claude/hooks/gk\" hook stop";
const SESSION_COMMAND: &str = "\"$HOME/.claude/hooks/gk\" hook session";

/// A user's settings before gk arrives: an `env` block with a credential,
/// and unrelated settings. Install and uninstall must keep `env` as it is.
const USER_SETTINGS_BEFORE: &str = r#"{
  "env": {
    "GK_E2E_PROXY_TOKEN": "e2e-secret-value-4242",
    "GK_E2E_FLAG": "1"
  },
  "permissions": {
    "allow": [
      "Bash(ls:*)"
    ]
  }
}
"#;
const SECRET: &str = "e2e-secret-value-4242";
const ENV_BLOCK: &str = r#""env": {
    "GK_E2E_PROXY_TOKEN": "e2e-secret-value-4242",
    "GK_E2E_FLAG": "1"
  }"#;

/// Where the Linux client and the mock cannot run: inside Wine.
const WINE_GAP: &str = "Wine gap: no python3 (the mock), no tmux and no Linux client inside \
                        Wine; the Windows client runs in tests/e2e_windows.rs";

fn main() -> std::process::ExitCode {
    let skip = if cfg!(gk_wine) {
        Some(WINE_GAP.to_string())
    } else {
        harness::client_missing()
    };
    // The tests that run the older client too (GK_E2E_CLAUDE_OLD).
    let old_skip = skip.clone().or_else(harness::old_client_missing);
    harness::run_groups(vec![
        (
            trials![
                an_older_client_gets_no_switch_events_and_no_warning_after_install,
                install_and_uninstall_with_an_old_then_a_new_client_give_the_settings_back,
                an_older_client_starts_quietly_with_the_managed_dropin_unless_it_has_the_switch_guard,
                an_older_client_loads_gks_plugin_and_fails_only_the_switch_guard_plugin,
            ],
            old_skip,
        ),
        (
            trials![
                client_runs_each_command_spelling_once,
                install_then_one_turn,
                dirty_state_and_check_mode,
                second_spelling_fires_twice_until_doctor_fixes_it,
                identical_string_in_project_runs_once,
                uninstall_gives_the_settings_back,
                claude_writes_its_session_record_without_asking,
                without_the_rules_the_same_write_is_denied,
                home_folder_runs_each_hook_once,
                the_session_check_warns_of_a_second_spelling_until_doctor_fixes_it,
                an_ask_rule_beats_the_allow_rules_and_doctor_names_it,
                sessions_started_in_bypass_mode_need_no_rule_and_doctor_says_so,
                a_fork_sees_the_task_its_parent_left_in_flight,
                the_tui_shows_the_earlier_task_after_clear_until_its_own,
                a_mid_task_clear_shows_the_session_line_above_the_clear_prompt,
                a_model_switch_mid_task_shows_gks_reason_and_no_keeps_the_model,
                a_clean_session_switches_with_no_gk_dialog,
                json_the_client_loads_is_not_called_skipped,
                gk_as_a_plugin_runs_each_hook_once_with_no_hooks_in_settings,
                with_both_plugins_a_model_switch_mid_task_shows_gks_reason,
                the_plugin_route_without_gk_on_path_fails_each_hook_then_advises_once_gk_is_there,
                the_tui_shows_the_clients_line_for_each_hook_when_the_plugin_finds_no_gk,
                the_advice_reads_the_model_of_the_last_reply_from_the_real_transcript,
                a_managed_dropin_runs_gk_under_allow_managed_hooks_only,
                gk_in_a_plugin_and_in_settings_runs_twice_until_doctor_fixes_it,
                a_team_plugins_prompt_hook_beside_install_runs_twice_until_doctor_fixes_it,
                the_client_judges_every_settings_shape_as_recorded_and_as_gk_does,
                a_pasted_block_reaches_the_prompt_hook_as_the_text_itself,
            ],
            skip,
        ),
    ])
}

/// A sandbox with the client (the test fails when it cannot be used).
fn sandbox(test: &str) -> Sandbox {
    Sandbox::new(harness::client(test))
}

fn parse(text: &str, what: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{what} is not JSON ({e}):\n{text}"))
}

/// Every command string registered for one event in a settings file.
fn commands(settings: &Value, event: &str) -> Vec<String> {
    settings["hooks"][event]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|group| group["hooks"].as_array().into_iter().flatten())
        .filter_map(|hook| hook["command"].as_str().map(str::to_string))
        .collect()
}

/// Write the user's settings and run `gk install --yes`.
fn install(sb: &Sandbox) {
    sb.write(&sb.user_settings(), USER_SETTINGS_BEFORE);
    let out = sb.gk_ok(&["install", "--yes"]);
    assert_no_secret(&out);
}

/// The credential in the user's `env` never reaches the screen.
fn assert_no_secret(out: &std::process::Output) {
    for stream in [&out.stdout, &out.stderr] {
        assert!(
            !String::from_utf8_lossy(stream).contains(SECRET),
            "gk printed the env secret:\n{}",
            String::from_utf8_lossy(stream)
        );
    }
}

/// The Stop hook's STATE line: exactly one Stop run, whose systemMessage
/// starts with `STATE [` and is shown to the user.
fn stop_line(turn: &Turn) -> String {
    let messages = turn.system_messages("Stop");
    assert_eq!(
        messages.len(),
        1,
        "expected one Stop hook systemMessage, got {messages:?}\n{}",
        turn.describe_hooks()
    );
    let line = messages[0].clone();
    assert!(line.starts_with("STATE ["), "Stop systemMessage: {line:?}");
    let first_line = line.lines().next().unwrap_or_default();
    assert!(
        turn.notices().iter().any(|n| n.contains(first_line)),
        "the STATE line is not among the notices shown to the user: {:?}",
        turn.notices()
    );
    line
}

fn assert_env_unchanged(sb: &Sandbox) {
    let text = sb.read(&sb.user_settings());
    let now = parse(&text, "settings.json");
    let before = parse(USER_SETTINGS_BEFORE, "the settings fixture");
    assert_eq!(now["env"], before["env"], "env changed:\n{text}");
    assert!(
        text.contains(ENV_BLOCK),
        "the env block's bytes changed:\n{text}"
    );
}

/// The client facts gk is built on, checked with hooks written by hand (a
/// shell script), so they hold whatever state gk's own commands are in:
/// one spelling runs once even when registered in user and project
/// settings; a second spelling of the same program runs again; the
/// additionalContext reaches the model's input; the Stop hook's
/// systemMessage is shown; and the client reports each hook's duration.
fn client_runs_each_command_spelling_once() {
    let _serial = harness::serial();
    let mut sb = sandbox("client_runs_each_command_spelling_once");
    let script = sb.claude_dir().join("hooks/probe.sh");
    sb.write(
        &script,
        "#!/bin/sh\ncat >/dev/null\nif [ \"$1\" = prompt ]; then\n  \
         printf '%s\\n' '{\"systemMessage\":\"probe prompt\",\"hookSpecificOutput\":{\"hookEventName\":\"UserPromptSubmit\",\"additionalContext\":\"[Gatekeeper] State: probe.\"}}'\n\
         else\n  printf '%s\\n' '{\"systemMessage\":\"STATE [PROBE] stop\"}'\nfi\n",
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let prompt_hook = |cmd: &str| json!({"hooks": [{"type": "command", "command": cmd}]});
    let user = |extra_prompt_groups: Vec<Value>| {
        let mut groups = vec![prompt_hook("$HOME/.claude/hooks/probe.sh prompt")];
        groups.extend(extra_prompt_groups);
        json!({"hooks": {
            "UserPromptSubmit": groups,
            "Stop": [{"hooks": [{"type": "command", "command": "$HOME/.claude/hooks/probe.sh stop", "timeout": 5}]}]
        }})
        .to_string()
    };

    // One registration.
    sb.write(&sb.user_settings(), &user(vec![]));
    let turn = sb.turn("explain the build");
    turn.assert_completed();
    assert_eq!(turn.contexts(), ["[Gatekeeper] State: probe."]);
    assert_eq!(stop_line(&turn), "STATE [PROBE] stop");
    let runs = turn.hook_runs();
    assert_eq!(
        runs.iter()
            .map(|r| (r.event.as_str(), r.status))
            .collect::<Vec<_>>(),
        [("UserPromptSubmit", 0), ("Stop", 0)],
        "{}",
        turn.describe_hooks()
    );
    eprintln!(
        "shell-script hook durations reported by the client: {:?}",
        runs.iter()
            .map(|r| format!("{} {}ms", r.event, r.millis))
            .collect::<Vec<_>>()
    );

    // The identical string again, in the project's settings: still once.
    sb.write(
        &sb.project_settings(),
        &json!({"hooks": {"UserPromptSubmit": [prompt_hook("$HOME/.claude/hooks/probe.sh prompt")]}})
            .to_string(),
    );
    let turn = sb.turn("explain the build");
    assert_eq!(turn.contexts().len(), 1, "{}", turn.describe_hooks());
    std::fs::remove_file(sb.project_settings()).unwrap();

    // A second spelling of the same program (`~` for `$HOME`): twice.
    sb.write(
        &sb.user_settings(),
        &user(vec![prompt_hook("~/.claude/hooks/probe.sh prompt")]),
    );
    let turn = sb.turn("explain the build");
    assert_eq!(turn.contexts().len(), 2, "{}", turn.describe_hooks());
    assert_eq!(turn.hook_responses("UserPromptSubmit").len(), 2);
}

/// A fresh HOME with an `env` block, `gk install --yes`, one
/// turn: the gatekeeper context (with the model the rules pick) reaches the
/// model exactly once, the Stop hook's STATE line is shown, `env` is intact.
fn install_then_one_turn() {
    let _serial = harness::serial();
    let mut sb = sandbox("install_then_one_turn");
    install(&sb);
    assert!(
        sb.claude_dir().join("hooks/gk").is_file(),
        "install put no binary at <claude dir>/hooks/gk"
    );
    let settings = parse(&sb.read(&sb.user_settings()), "settings.json");
    assert_eq!(commands(&settings, "UserPromptSubmit"), [PROMPT_COMMAND]);
    assert_eq!(commands(&settings, "Stop"), [STOP_COMMAND]);
    assert_eq!(commands(&settings, "SessionStart"), [SESSION_COMMAND]);
    assert_env_unchanged(&sb);

    let turn = sb.turn("implement the ontology");
    turn.assert_completed();
    let context = turn.single_context();
    // A fresh install creates the clean state file; per session the
    // recommender advises Opus for this prompt (`gk explain` shows why).
    assert!(
        harness::gatekeeper_part(&context)
            .starts_with("[Gatekeeper] State: clean -- safe to switch model or effort."),
        "context: {context}"
    );
    assert!(
        context.contains("Suggested model: Opus 5.5"),
        "context: {context}"
    );
    let line = stop_line(&turn);
    assert!(
        line.starts_with("STATE [CLEAN] safe to switch model or effort"),
        "STATE line: {line}"
    );
    assert_env_unchanged(&sb);
}

/// A task in progress makes the context say DIRTY and carry
/// the matching instruction to keep the task state; a `[check]` prompt
/// carries CHECK MODE instead.
fn dirty_state_and_check_mode() {
    let _serial = harness::serial();
    let mut sb = sandbox("dirty_state_and_check_mode");
    install(&sb);
    let state = json!({
        "status": "in_progress",
        "task": "Writing bfsi-case.ttl",
        "detail": "Phase P1",
        "project": "BFSI",
        "cwd": sb.project(),
        "updated": chrono::Local::now().to_rfc3339(),
    });
    sb.write(&sb.state_file(), &format!("{state:#}\n"));

    // A prompt the recommender leaves to the default model by a wide
    // margin ("update the readme" is a close call it gives Haiku:
    // docs/maintainers/recommender.md).
    let turn = sb.turn("explain the build");
    turn.assert_completed();
    let context = turn.single_context();
    assert!(
        harness::gatekeeper_part(&context).starts_with(
            "[Gatekeeper] State: DIRTY (task in progress: 'Writing bfsi-case.ttl' [BFSI] -- Phase P1)"
        ),
        "context: {context}"
    );
    assert!(
        context.contains(
            "[Task state] Before ending this turn: if the in-progress task is now COMPLETE"
        ),
        "context: {context}"
    );
    assert!(
        context.contains(
            "Suggested model: Sonnet 5 (`/model claude-sonnet-5`; no strong sign for another model, so the default"
        ),
        "context: {context}"
    );
    assert!(!context.contains("CHECK MODE"), "context: {context}");
    let line = stop_line(&turn);
    assert!(
        line.starts_with("STATE [DIRTY] task in progress: 'Writing bfsi-case.ttl' [BFSI]"),
        "STATE line: {line}"
    );

    let turn = sb.turn("[check] implement the ontology");
    turn.assert_completed();
    let context = turn.single_context();
    assert!(
        harness::gatekeeper_part(&context).starts_with("[Gatekeeper] State: DIRTY"),
        "context: {context}"
    );
    assert!(
        context.contains("CHECK MODE. The user prefixed this prompt with [check]."),
        "context: {context}"
    );
    assert!(
        !context.contains("Before ending this turn"),
        "context: {context}"
    );
}

/// The prompt hook registered a second time under another
/// spelling (`~/` instead of `"$HOME/"`) fires twice — the bug doctor
/// exists for; doctor names it `hook-fires-twice`, `--fix` repairs it, and
/// the next turn gets the context once.
fn second_spelling_fires_twice_until_doctor_fixes_it() {
    let _serial = harness::serial();
    let mut sb = sandbox("second_spelling_fires_twice_until_doctor_fixes_it");
    install(&sb);
    // The user pastes a second entry at the top of the array in an editor:
    // every other byte of the file stays as install left it.
    let text = sb.read(&sb.user_settings());
    let array = "\"UserPromptSubmit\": [";
    let at = text
        .find(array)
        .expect("install registered UserPromptSubmit")
        + array.len();
    let pasted = "\n      {\"hooks\": [{\"type\": \"command\", \"command\": \"~/.claude/hooks/gk hook prompt\"}]},";
    sb.write(
        &sb.user_settings(),
        &format!("{}{pasted}{}", &text[..at], &text[at..]),
    );
    let settings = parse(&sb.read(&sb.user_settings()), "hand-edited settings.json");
    assert_eq!(commands(&settings, "UserPromptSubmit").len(), 2);

    let turn = sb.turn("explain the build");
    turn.assert_completed();
    assert_eq!(
        turn.contexts().len(),
        2,
        "two spellings should both run:\n{}",
        turn.describe_hooks()
    );

    let (code, codes) = sb.doctor_codes();
    assert!(
        codes.iter().any(|c| c == "hook-fires-twice"),
        "doctor findings: {codes:?}"
    );
    assert_eq!(code, Some(2), "doctor exits 2 on an error finding");

    let fix = sb.gk(&["doctor", "--fix", "--yes"]);
    assert_no_secret(&fix);
    let (_, codes) = sb.doctor_codes();
    assert!(
        !codes.iter().any(|c| c == "hook-fires-twice"),
        "after --fix, doctor findings: {codes:?}\n--fix said ({}):\n{}{}",
        fix.status,
        String::from_utf8_lossy(&fix.stdout),
        String::from_utf8_lossy(&fix.stderr)
    );
    let settings = parse(&sb.read(&sb.user_settings()), "settings.json");
    assert_eq!(commands(&settings, "UserPromptSubmit"), [PROMPT_COMMAND]);
    assert_env_unchanged(&sb);

    let turn = sb.turn("explain the build");
    turn.assert_completed();
    turn.single_context();
}

/// The identical command string also in the project's
/// settings runs once; doctor calls it `hook-redundant`, not
/// `hook-fires-twice`.
fn identical_string_in_project_runs_once() {
    let _serial = harness::serial();
    let mut sb = sandbox("identical_string_in_project_runs_once");
    install(&sb);
    let settings = parse(&sb.read(&sb.user_settings()), "settings.json");
    let registered = commands(&settings, "UserPromptSubmit");
    assert_eq!(registered.len(), 1, "user prompt hooks: {registered:?}");
    sb.write(
        &sb.project_settings(),
        &format!(
            "{:#}\n",
            json!({"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": registered[0]}]}]}})
        ),
    );

    let turn = sb.turn("explain the build");
    turn.assert_completed();
    turn.single_context();

    let (_, codes) = sb.doctor_codes();
    assert!(
        codes.iter().any(|c| c == "hook-redundant"),
        "doctor findings: {codes:?}"
    );
    assert!(
        !codes.iter().any(|c| c == "hook-fires-twice"),
        "doctor findings: {codes:?}"
    );
}

/// After `gk uninstall --yes` no gatekeeper context reaches the
/// model, no STATE line is shown, the turn still completes, and
/// settings.json is byte for byte what it was before install.
fn uninstall_gives_the_settings_back() {
    let _serial = harness::serial();
    let mut sb = sandbox("uninstall_gives_the_settings_back");
    install(&sb);
    let turn = sb.turn("explain the build");
    turn.single_context();

    let out = sb.gk_ok(&["uninstall", "--yes"]);
    assert_no_secret(&out);
    assert_eq!(sb.read(&sb.user_settings()), USER_SETTINGS_BEFORE);
    assert!(
        !sb.claude_dir().join("hooks/gk").exists(),
        "uninstall left the binary"
    );

    let turn = sb.turn("explain the build");
    turn.assert_completed();
    assert_eq!(turn.contexts(), Vec::<String>::new());
    assert_eq!(turn.hook_responses("UserPromptSubmit").len(), 0);
    assert_eq!(turn.hook_responses("Stop").len(), 0);
    assert_eq!(turn.hook_responses("SessionStart").len(), 0);
    assert!(
        !turn.notices().iter().any(|n| n.contains("STATE [")),
        "notices: {:?}",
        turn.notices()
    );
}

/// Claude Code started in the home folder reads
/// `~/.claude/settings.json` as user and as project settings, yet gk's
/// hooks run once each; `gk doctor` there says so (info) and exits 0
/// instead of warning.
fn home_folder_runs_each_hook_once() {
    let _serial = harness::serial();
    let mut sb = sandbox("home_folder_runs_each_hook_once");
    install(&sb);
    sb.work_in(sb.home());
    let turn = sb.turn("explain the build");
    turn.assert_completed();
    turn.single_context();
    stop_line(&turn);

    let home = sb.home();
    let out = sb.gk(&[
        "doctor",
        "--json",
        "--no-smoke",
        "--project",
        home.to_str().expect("utf-8 temp path"),
    ]);
    let report = parse(&String::from_utf8_lossy(&out.stdout), "gk doctor --json");
    assert_eq!(out.status.code(), Some(0), "{report}");
    assert_eq!(report["findings"][0]["code"], "home-is-project", "{report}");
    assert_eq!(report["findings"][0]["severity"], "info", "{report}");
}

/// The session check. A healthy install: the SessionStart
/// hook runs once, exits 0 and prints nothing. The prompt hook pasted in a
/// second spelling (`~/` beside `"$HOME/"`): the next session's SessionStart
/// answer is one `systemMessage` line naming the hook, both places and the
/// doctor command; `gk doctor --fix` (the command it names): gone again.
fn the_session_check_warns_of_a_second_spelling_until_doctor_fixes_it() {
    let _serial = harness::serial();
    let mut sb = sandbox("the_session_check_warns_of_a_second_spelling_until_doctor_fixes_it");
    install(&sb);

    let turn = sb.turn("explain the build");
    turn.assert_completed();
    let session = turn.hook_responses("SessionStart");
    assert_eq!(session.len(), 1, "{}", turn.describe_hooks());
    assert_eq!(session[0]["exit_code"], 0, "{}", session[0]);
    assert_eq!(session[0]["stdout"], "", "a healthy install says nothing");
    assert_eq!(session[0]["hook_name"], "SessionStart:startup");
    turn.single_context();

    // The user pastes a second spelling of the prompt hook.
    let text = sb.read(&sb.user_settings());
    let array = "\"UserPromptSubmit\": [";
    let at = text.find(array).expect("UserPromptSubmit registered") + array.len();
    let pasted = "\n      {\"hooks\": [{\"type\": \"command\", \"command\": \"~/.claude/hooks/gk hook prompt\"}]},";
    sb.write(
        &sb.user_settings(),
        &format!("{}{pasted}{}", &text[..at], &text[at..]),
    );
    let turn = sb.turn("explain the build");
    turn.assert_completed();
    assert_eq!(turn.contexts().len(), 2, "{}", turn.describe_hooks());
    let warnings = turn.system_messages("SessionStart");
    assert_eq!(warnings.len(), 1, "{}", turn.describe_hooks());
    let user = sb.user_settings().display().to_string();
    assert_eq!(
        warnings[0],
        format!(
            "gk: gk's prompt hook runs twice on every UserPromptSubmit: it is registered under 2 different commands (user settings {user}:4 and :7) -- gk doctor --fix"
        )
    );
    assert!(!warnings[0].contains(SECRET));
    eprintln!(
        "SessionStart in stream-json: {}\nnotices shown in -p mode: {:?}",
        turn.hook_responses("SessionStart")[0],
        turn.notices()
    );

    let fix = sb.gk(&["doctor", "--fix", "--yes"]);
    assert_no_secret(&fix);
    assert!(
        fix.status.success(),
        "{}",
        String::from_utf8_lossy(&fix.stdout)
    );
    let turn = sb.turn("explain the build");
    turn.assert_completed();
    turn.single_context();
    let session = turn.hook_responses("SessionStart");
    assert_eq!(session.len(), 1, "{}", turn.describe_hooks());
    assert_eq!(session[0]["stdout"], "", "{}", session[0]);
    assert_eq!(turn.system_messages("SessionStart"), Vec::<String>::new());
    assert_env_unchanged(&sb);
}

/// The model's part in the per-session scenarios: write the record the
/// gatekeeper context names (the mock fills in `{{RECORD}}`), as the
/// CLAUDE.md block tells Claude to when substantial work starts.
fn write_the_named_record(task: &str) -> Value {
    let record = json!({
        "status": "in_progress",
        "task": task,
        "detail": "written by the model",
        "project": "E2E",
        "cwd": "",
        "updated": "",
    });
    json!([{"tool": "Write", "input": {"file_path": "{{RECORD}}", "content": format!("{record:#}\n")}}])
}

/// This session's record, as the context named it: the first `.json`
/// path; the only other one is the folder's pointer (`folder.<hex>.json`
/// in the same folder), which Claude writes beside it.
fn record_named_in(context: &str) -> std::path::PathBuf {
    let re = regex::Regex::new(r"/[^\s'`]*?\.json").expect("valid regex");
    let paths: Vec<&str> = re.find_iter(context).map(|m| m.as_str()).collect();
    assert!(
        !paths.is_empty() && paths.len() <= 2,
        "the context must name this session's record and at most the folder's pointer: {context}"
    );
    let record = std::path::PathBuf::from(paths[0]);
    if let Some(pointer) = paths.get(1) {
        let pointer = std::path::Path::new(pointer);
        assert_eq!(pointer.parent(), record.parent(), "{context}");
        let name = pointer.file_name().unwrap().to_str().unwrap();
        assert!(
            name.starts_with("folder.") && name.len() == "folder.".len() + 32 + ".json".len(),
            "{context}"
        );
    }
    record
}

/// The model starts a task: it writes this session's record in progress
/// and points the folder at it, as the context asks (the mock fills in the
/// paths and the session id the context names).
fn start_a_task(task: &str, next: Option<&str>) -> Value {
    let mut record = json!({
        "status": "in_progress",
        "task": task,
        "detail": "written by the model",
        "project": "E2E",
        "cwd": "",
        "updated": "",
    });
    if let Some(next) = next {
        record["next"] = json!(next);
    }
    json!([
        {"tool": "Write", "input": {"file_path": "{{RECORD}}", "content": format!("{record:#}\n")}},
        {"tool": "Write", "input": {"file_path": "{{POINTER}}", "content": "{\"session\": \"{{SESSION}}\"}\n"}},
    ])
}

/// Session A starts a task in the
/// project (the mock plays both Writes: record and folder pointer, no
/// permission prompt); `--resume A --fork-session` starts session B in the
/// same folder: B's SessionStart context names A's task and record and
/// reaches the model, its line is shown, and B's Stop line shows A's task,
/// not "safe to switch". A new session in another folder: CLEAN as before.
fn a_fork_sees_the_task_its_parent_left_in_flight() {
    let _serial = harness::serial();
    let mut sb = sandbox("a_fork_sees_the_task_its_parent_left_in_flight");
    install(&sb);
    let project = sb.project();
    let a = sb.turn_with(
        "implement the parser refactor",
        &project,
        Some(&start_a_task("Refactor parser", None)),
    );
    a.assert_completed();
    assert_eq!(
        a.permission_denials(),
        Vec::<(String, String)>::new(),
        "tool results: {:?}",
        a.tool_results()
    );
    let record_a = record_named_in(&a.first_request_context());
    let state_dir = record_a.parent().unwrap().to_path_buf();
    let pointers: Vec<_> = std::fs::read_dir(&state_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with("folder."))
        .collect();
    assert_eq!(pointers.len(), 1, "{pointers:?}");
    let pointer = parse(&sb.read(&state_dir.join(&pointers[0])), "the pointer");
    assert_eq!(pointer["session"], a.session_id().as_str());
    assert!(stop_line(&a).starts_with("STATE [DIRTY] task in progress: 'Refactor parser' [E2E]"));

    let id_a = a.session_id();
    let b = sb.turn_with_args(
        "what is left to do?",
        &project,
        None,
        &["--resume", &id_a, "--fork-session"],
    );
    b.assert_completed();
    assert_ne!(b.session_id(), id_a, "a fork gets a new session id");
    let lines = b.system_messages("SessionStart");
    assert_eq!(lines.len(), 1, "{lines:?}\n{}", b.describe_hooks());
    assert!(
        lines[0].contains(
            "gk: an earlier session in this folder left 'Refactor parser' [E2E] in progress"
        ),
        "{lines:?}"
    );
    let contexts = b.hook_contexts("SessionStart");
    assert_eq!(contexts.len(), 1, "{}", b.describe_hooks());
    let ctx = &contexts[0];
    assert!(ctx.contains(&format!("(session {id_a})")), "{ctx}");
    assert!(ctx.contains(&record_a.display().to_string()), "{ctx}");
    assert!(
        b.model_saw("[Task state] An earlier session in this folder"),
        "the SessionStart context did not reach the model"
    );
    let line = stop_line(&b);
    assert!(
        line.starts_with("STATE [DIRTY] task in progress: 'Refactor parser' [E2E]"),
        "STATE line: {line}"
    );
    assert!(!line.contains("safe to switch"), "STATE line: {line}");
    assert!(
        line.contains("left by an earlier session in this folder"),
        "STATE line: {line}"
    );

    // (b) A new session in another folder: nothing of A's.
    let other = sb.home().join("other-project");
    let c = sb.turn_with("what is left to do?", &other, None);
    c.assert_completed();
    assert_eq!(c.system_messages("SessionStart"), Vec::<String>::new());
    let line = stop_line(&c);
    assert!(
        line.starts_with("STATE [CLEAN] safe to switch model or effort"),
        "STATE line: {line}"
    );
    assert!(!line.contains("Refactor"), "STATE line: {line}");
}

/// After `gk install`, Claude writes its session's
/// task record without a permission prompt or denial: the context names
/// `<home>/.local/state/gk/<session id>.json`, the scripted Write of that
/// path goes through (`permission_denials: []`), the file holds the task,
/// and the same turn's Stop line says DIRTY with it. A second session, in
/// another project, shows CLEAN: the records do not mix.
fn claude_writes_its_session_record_without_asking() {
    let _serial = harness::serial();
    let mut sb = sandbox("claude_writes_its_session_record_without_asking");
    install(&sb);
    let settings = parse(&sb.read(&sb.user_settings()), "settings.json");
    let allow = settings["permissions"]["allow"].clone();
    assert_eq!(
        allow,
        json!([
            "Read(~/.local/state/gk/*.json)",
            "Edit(~/.local/state/gk/*.json)",
            "Bash(ls:*)"
        ])
    );
    assert_env_unchanged(&sb);

    let project = sb.project();
    let turn = sb.turn_with(
        "implement the ontology",
        &project,
        Some(&write_the_named_record("e2e ontology work")),
    );
    turn.assert_completed();
    let context = turn.first_request_context();
    let record = record_named_in(&context);
    assert_eq!(
        record,
        sb.home()
            .join(".local/state/gk")
            .join(format!("{}.json", turn.session_id())),
        "context: {context}"
    );
    assert_eq!(
        turn.permission_denials(),
        Vec::<(String, String)>::new(),
        "tool results: {:?}",
        turn.tool_results()
    );
    let written = parse(&sb.read(&record), "the session record");
    assert_eq!(written["status"], "in_progress");
    assert_eq!(written["task"], "e2e ontology work");
    let line = stop_line(&turn);
    assert!(
        line.starts_with("STATE [DIRTY] task in progress: 'e2e ontology work' [E2E]"),
        "STATE line: {line}"
    );
    assert!(!line.contains("shared record"), "STATE line: {line}");

    // A second session in another project: its own (absent) record, so the
    // shared clean state install created; not the first session's task.
    let other = sb.home().join("other-project");
    let turn = sb.turn_with("explain the build", &other, None);
    turn.assert_completed();
    let context = turn.single_context();
    assert!(
        harness::gatekeeper_part(&context)
            .starts_with("[Gatekeeper] State: clean -- safe to switch model or effort."),
        "context: {context}"
    );
    assert_ne!(record_named_in(&context), record);
    let line = stop_line(&turn);
    assert!(
        line.starts_with("STATE [CLEAN] safe to switch model or effort"),
        "STATE line: {line}"
    );
    // And the first session's record is as it left it.
    assert_eq!(
        parse(&sb.read(&record), "the record")["task"],
        "e2e ontology work"
    );
}

/// The canary for a future client: without gk's
/// allow rules (`--no-permissions`) the same scripted write of the record
/// is refused in `-p` mode — the reason install adds them. If a client
/// version ever lets this through, the rules may no longer be needed; if
/// `claude_writes_its_session_record_without_asking` fails while this
/// passes, the rule form stopped matching.
fn without_the_rules_the_same_write_is_denied() {
    let _serial = harness::serial();
    let mut sb = sandbox("without_the_rules_the_same_write_is_denied");
    sb.write(&sb.user_settings(), USER_SETTINGS_BEFORE);
    let out = sb.gk_ok(&["install", "--yes", "--no-permissions"]);
    assert_no_secret(&out);
    let settings = parse(&sb.read(&sb.user_settings()), "settings.json");
    assert_eq!(settings["permissions"]["allow"], json!(["Bash(ls:*)"]));

    let project = sb.project();
    let turn = sb.turn_with(
        "implement the ontology",
        &project,
        Some(&write_the_named_record("should not land")),
    );
    turn.assert_completed();
    let record = record_named_in(&turn.first_request_context());
    assert_eq!(
        turn.permission_denials(),
        vec![("Write".to_string(), record.display().to_string())],
        "tool results: {:?}",
        turn.tool_results()
    );
    assert!(!record.exists(), "the record was written without the rules");
    let line = stop_line(&turn);
    assert!(line.starts_with("STATE [CLEAN]"), "STATE line: {line}");
}

/// An `ask` rule for the records beside gk's allow rules.
/// Claude Code weighs `ask` above `allow`, so in `-p` mode (nobody to ask)
/// the scripted write of the record is refused, as with no rule at all —
/// and `gk doctor` says so (`state-permission-missing`, naming the rule).
fn an_ask_rule_beats_the_allow_rules_and_doctor_names_it() {
    let _serial = harness::serial();
    let mut sb = sandbox("an_ask_rule_beats_the_allow_rules_and_doctor_names_it");
    install(&sb);
    let text = sb.read(&sb.user_settings());
    let permissions = "\"permissions\": {";
    let at = text.find(permissions).expect("permissions") + permissions.len();
    let ask = "\n    \"ask\": [\"Edit(~/.local/state/gk/**)\"],";
    sb.write(
        &sb.user_settings(),
        &format!("{}{ask}{}", &text[..at], &text[at..]),
    );

    let project = sb.project();
    let turn = sb.turn_with(
        "implement the ontology",
        &project,
        Some(&write_the_named_record("should not land")),
    );
    turn.assert_completed();
    let record = record_named_in(&turn.first_request_context());
    eprintln!(
        "denials: {:?}\ntool results: {:?}",
        turn.permission_denials(),
        turn.tool_results()
    );
    assert_eq!(
        turn.permission_denials(),
        vec![("Write".to_string(), record.display().to_string())],
        "tool results: {:?}",
        turn.tool_results()
    );
    assert!(!record.exists(), "written despite the ask rule");

    let out = sb.gk(&["doctor", "--json", "--no-smoke"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let finding = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "state-permission-missing")
        .unwrap_or_else(|| panic!("no state-permission-missing: {report}"));
    assert!(
        finding["message"]
            .as_str()
            .unwrap()
            .contains("`Edit(~/.local/state/gk/**)`"),
        "{finding}"
    );
    assert_env_unchanged(&sb);
}

/// The mode sessions start in (`permissions.defaultMode`).
/// Installed with `--no-permissions`, a session that starts in
/// bypassPermissions mode writes its record with no allow rule, and doctor
/// says so as a note (exit 0); a local settings file that starts sessions
/// in acceptEdits mode instead gets the write refused (acceptEdits covers
/// the working folders only) and doctor's warning back. The client refuses
/// bypassPermissions to root unless `IS_SANDBOX=1` (its own switch for
/// sandboxes, which CI is), so the scenario sets it.
fn sessions_started_in_bypass_mode_need_no_rule_and_doctor_says_so() {
    let _serial = harness::serial();
    let mut sb = sandbox("sessions_started_in_bypass_mode_need_no_rule_and_doctor_says_so");
    sb.set_env("IS_SANDBOX", "1");
    sb.write(
        &sb.user_settings(),
        &USER_SETTINGS_BEFORE.replace(
            "\"permissions\": {",
            "\"permissions\": {\n    \"defaultMode\": \"bypassPermissions\",",
        ),
    );
    let out = sb.gk_ok(&["install", "--yes", "--no-permissions"]);
    assert_no_secret(&out);
    let project = sb.project();
    let turn = sb.turn_with(
        "implement the ontology",
        &project,
        Some(&write_the_named_record("bypass mode work")),
    );
    turn.assert_completed();
    let record = record_named_in(&turn.first_request_context());
    assert_eq!(
        turn.permission_denials(),
        Vec::<(String, String)>::new(),
        "tool results: {:?}",
        turn.tool_results()
    );
    assert_eq!(
        parse(&sb.read(&record), "the session record")["task"],
        "bypass mode work"
    );
    let out = sb.gk(&["doctor", "--json", "--no-smoke"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{report}");
    let notes: Vec<&Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "state-permission-missing")
        .collect();
    assert_eq!(notes.len(), 1, "{report}");
    assert_eq!(notes[0]["severity"], "info", "{report}");

    let local = project.join(".claude/settings.local.json");
    sb.write(&local, r#"{"permissions": {"defaultMode": "acceptEdits"}}"#);
    let turn = sb.turn_with(
        "implement the ontology",
        &project,
        Some(&write_the_named_record("should not land")),
    );
    turn.assert_completed();
    let record = record_named_in(&turn.first_request_context());
    assert_eq!(
        turn.permission_denials(),
        vec![("Write".to_string(), record.display().to_string())],
        "tool results: {:?}",
        turn.tool_results()
    );
    assert!(
        !record.exists(),
        "written in acceptEdits mode without a rule"
    );
    let out = sb.gk(&["doctor", "--json", "--no-smoke"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(1), "{report}");
    assert!(
        report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["code"] == "state-permission-missing" && f["severity"] == "warning"),
        "{report}"
    );
    assert_env_unchanged(&sb);
}

/// The text from the last `marker` on `screen` to the end.
fn after_last<'s>(screen: &'s str, marker: &str) -> &'s str {
    screen.rfind(marker).map_or("", |at| &screen[at..])
}

/// The interactive
/// client in tmux, the mock as the API. A turn starts a task (the model
/// writes its record with a `next` hint, and the folder pointer): the
/// screen shows the DIRTY Stop line, the hint on its own line, and the
/// status line with both. `/clear` starts a new session: its SessionStart
/// line names the earlier task, and after the next prompt the Stop line
/// and the status line show the earlier task, not "safe to switch". Then
/// Claude writes this session's own record: the screen shows its own task.
fn the_tui_shows_the_earlier_task_after_clear_until_its_own() {
    let _serial = harness::serial();
    let mut sb = sandbox("the_tui_shows_the_earlier_task_after_clear_until_its_own");
    sb.write(&sb.user_settings(), USER_SETTINGS_BEFORE);
    assert_no_secret(&sb.gk_ok(&["install", "--yes", "--statusline"]));
    let mut start = start_a_task(
        "Refactor parser",
        Some("Opus 5.5, high: the refactor goes on"),
    );
    let own = json!({"status": "in_progress", "task": "Parser wrap-up", "detail": "", "project": "E2E", "cwd": "", "updated": ""});
    let tools = json!({
        "implement the parser refactor": start.take(),
        "take the parser over": [
            {"tool": "Write", "input": {"file_path": "{{RECORD}}", "content": format!("{own:#}\n")}}
        ],
    });
    let project = sb.project();
    let tui = harness::Tui::start(&mut sb, &project, &tools);

    tui.send("implement the parser refactor");
    let screen = tui.wait_until("the DIRTY Stop line and status line", |s| {
        s.contains("STATE [DIRTY] task in progress: 'Refactor parser' [E2E]")
            && s.contains("gk DIRTY 'Refactor parser' [E2E]")
    });
    assert!(
        screen.contains(" Next: Opus 5.5, high: the refactor goes on"),
        "the hint's own line is not on the screen:\n{screen}"
    );
    assert!(
        screen.contains("| next: Opus 5.5, high: the refactor goes on"),
        "the status line does not show the hint:\n{screen}"
    );

    tui.send("/clear");
    let screen = tui.wait_until("the SessionStart line of the new session", |s| {
        s.contains("gk: an earlier session in this folder left 'Refactor parser' [E2E] in progress")
    });
    eprintln!("after /clear:\n{screen}");

    tui.send("what is left to do?");
    let screen = tui.wait_until("the Stop line of the new session", |s| {
        s.contains("left by an earlier session in this folder") && s.contains("(earlier session)")
    });
    let last = after_last(&screen, "STATE [");
    assert!(
        last.starts_with("STATE [DIRTY] task in progress: 'Refactor parser' [E2E]"),
        "the Stop line after /clear:\n{screen}"
    );
    assert!(!last.contains("safe to switch"), "{screen}");

    tui.send("take the parser over");
    let screen = tui.wait_until("this session's own task", |s| {
        s.contains("STATE [DIRTY] task in progress: 'Parser wrap-up' [E2E]")
            && s.contains("gk DIRTY 'Parser wrap-up' [E2E]")
    });
    let last = after_last(&screen, "STATE [");
    assert!(
        !last.contains("earlier session"),
        "its own record speaks now:\n{screen}"
    );
    eprintln!("at the end:\n{screen}");
}

/// What the screen shows after a mid-task `/clear` in the interactive
/// client (docs/usage.md quotes it): the client redraws the screen, and
/// gk's SessionStart line, as `SessionStart:clear says: gk: …`, is on it
/// above the `/clear` the user typed; the task's Stop line from before is
/// gone from the redrawn screen.
fn a_mid_task_clear_shows_the_session_line_above_the_clear_prompt() {
    let _serial = harness::serial();
    let mut sb = sandbox("a_mid_task_clear_shows_the_session_line_above_the_clear_prompt");
    assert_no_secret(&sb.gk_ok(&["install", "--yes", "--statusline"]));
    let tools = json!({"implement the parser refactor": start_a_task("Refactor parser", None)});
    let project = sb.project();
    let tui = harness::Tui::start(&mut sb, &project, &tools);

    tui.send("implement the parser refactor");
    tui.wait_until("the DIRTY Stop line", |s| {
        s.contains("STATE [DIRTY] task in progress: 'Refactor parser' [E2E]")
    });

    tui.send("/clear");
    let line = "SessionStart:clear says: gk: an earlier session in this folder left 'Refactor parser' [E2E] in progress";
    let screen = tui.wait_until("the SessionStart line of the new session", |s| {
        s.contains(line)
    });
    eprintln!("after /clear:\n{screen}");
    let said = screen.find(line).expect("waited for it");
    let typed = screen
        .rfind("\u{276f} /clear")
        .expect("the /clear prompt on the screen");
    assert!(
        said < typed,
        "the line is not above the /clear prompt:\n{screen}"
    );
    assert!(
        !screen.contains("Stop says: STATE [DIRTY]"),
        "the screen was not redrawn:\n{screen}"
    );
}

/// The switch guard on the pinned client (which knows PreModelSwitch):
/// `gk install` with the client on PATH registers it; mid-task, `/model
/// sonnet` opens the client's "Switch model?" dialog with gk's reason in
/// it; "No, go back" keeps the model; "Yes" switches, and the next request
/// carries gk's PostModelSwitch context for Claude.
fn a_model_switch_mid_task_shows_gks_reason_and_no_keeps_the_model() {
    let _serial = harness::serial();
    let mut sb = sandbox("a_model_switch_mid_task_shows_gks_reason_and_no_keeps_the_model");
    sb.client_on_path();
    let out = sb.gk_ok(&["install", "--yes", "--statusline"]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("knows PreModelSwitch"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let settings = parse(
        &std::fs::read_to_string(sb.user_settings()).unwrap(),
        "settings",
    );
    assert_eq!(
        commands(&settings, "PreModelSwitch").len(),
        1,
        "{settings:#}"
    );
    assert_eq!(
        commands(&settings, "PostModelSwitch").len(),
        1,
        "{settings:#}"
    );
    let tools = json!({"implement the parser refactor": start_a_task("Refactor parser", None)});
    let project = sb.project();
    let tui = harness::Tui::start(&mut sb, &project, &tools);
    mid_task_switch_shows_gks_reason_and_no_keeps_the_model(&tui, &sb);

    tui.send("/model sonnet");
    tui.wait_until("the dialog again", |s| s.contains("asked you to confirm"));
    tui.press(&["Enter"]);
    tui.wait_until("the dialog gone", |s| !s.contains("asked you to confirm"));
    let started = std::time::Instant::now();
    while saved_model(&sb).is_none() && started.elapsed().as_secs() < 30 {
        std::thread::sleep(std::time::Duration::from_millis(250));
    }
    assert_eq!(
        saved_model(&sb).as_deref(),
        Some("sonnet"),
        "Yes did not switch"
    );
    tui.send("what is left to do?");
    tui.wait_until("the next Stop line", |s| {
        after_last(s, "what is left to do?").contains("STATE [DIRTY]")
    });
    let requests = tui.requests();
    assert!(
        requests.contains("[Gatekeeper] The model changed from")
            && requests.contains("during task 'Refactor parser' [E2E]"),
        "the next request does not carry gk's PostModelSwitch context"
    );
}

/// A turn that starts a task, then `/model sonnet`: the client's "Switch
/// model?" dialog shows gk's reason, and "No, go back" (Escape) closes it
/// with no switch saved (`/model` writes the model into the user settings
/// when it switches).
fn mid_task_switch_shows_gks_reason_and_no_keeps_the_model(tui: &harness::Tui, sb: &Sandbox) {
    tui.send("implement the parser refactor");
    tui.wait_until("the DIRTY Stop line", |s| {
        s.contains("STATE [DIRTY] task in progress: 'Refactor parser' [E2E]")
    });
    tui.send("/model sonnet");
    let screen = tui.wait_until("the switch dialog with gk's reason", |s| {
        s.contains("A PreModelSwitch hook asked you to confirm")
            && s.contains("gk: Task in progress: 'Refactor parser' [E2E]")
    });
    eprintln!("the dialog:\n{screen}");
    assert!(
        screen.contains("Switching now hands half-done work"),
        "{screen}"
    );
    tui.press(&["Escape"]);
    tui.wait_until("the dialog gone", |s| !s.contains("asked you to confirm"));
    std::thread::sleep(std::time::Duration::from_secs(2));
    assert_eq!(saved_model(sb), None, "No switched the model");
}

/// The model `/model` saved in the user settings, if any.
fn saved_model(sb: &Sandbox) -> Option<String> {
    let text = std::fs::read_to_string(sb.user_settings()).ok()?;
    parse(&text, "settings")["model"]
        .as_str()
        .map(str::to_string)
}

/// A session with no task in flight: `/model sonnet` gets no dialog of
/// gk's (the client's own cache confirm, if any, is its own).
fn a_clean_session_switches_with_no_gk_dialog() {
    let _serial = harness::serial();
    let mut sb = sandbox("a_clean_session_switches_with_no_gk_dialog");
    sb.client_on_path();
    sb.gk_ok(&["install", "--yes", "--statusline"]);
    let project = sb.project();
    let tui = harness::Tui::start(&mut sb, &project, &json!({}));
    tui.send("say hello");
    tui.wait_until("the CLEAN Stop line", |s| s.contains("STATE [CLEAN]"));
    // The conversation is cached: the client's own confirm, and no
    // reason of gk's in it.
    tui.send("/model sonnet");
    tui.wait_until("the client's own confirm", |s| {
        s.contains("Switch model?") && s.contains("This conversation is cached")
    });
    // The hook has had its time to answer.
    std::thread::sleep(std::time::Duration::from_secs(2));
    let screen = tui.screen();
    eprintln!("{screen}");
    assert!(
        !screen.contains("PreModelSwitch hook asked") && !screen.contains("gk: Task"),
        "{screen}"
    );
    tui.press(&["Enter"]);
    tui.wait_until("the switch done", |s| !s.contains("Switch model?"));
    let started = std::time::Instant::now();
    while saved_model(&sb).is_none() && started.elapsed().as_secs() < 30 {
        std::thread::sleep(std::time::Duration::from_millis(250));
    }
    assert_eq!(saved_model(&sb).as_deref(), Some("sonnet"));
}

/// What the older client shows when its settings name an event it does
/// not know (measured: a "Settings Warning" dialog at every start).
fn warns_of_an_unknown_event(screen: &str) -> bool {
    screen.contains("Settings Warning") || screen.contains("Unknown hook event")
}

/// The TUI at its prompt, or showing the unknown-event dialog.
fn started_or_warned(screen: &str) -> bool {
    warns_of_an_unknown_event(screen)
        || (screen.contains("Claude Code v")
            && screen
                .lines()
                .any(|l| l.trim_start().starts_with('\u{276f}')))
}

/// The client's TUI started in the project folder: no unknown-event
/// dialog at its start, and a prompt answered with gk's hooks running
/// (the prompt hook's context reaches the model, the Stop line shows).
/// The screen at the start.
fn starts_quietly_and_runs_gk(sb: &mut Sandbox) -> String {
    let project = sb.project();
    let tui = harness::Tui::start_until(sb, &project, &json!({}), started_or_warned);
    // A dialog would open at start: give it the time it took when measured.
    std::thread::sleep(std::time::Duration::from_secs(3));
    let screen = tui.screen();
    assert!(!warns_of_an_unknown_event(&screen), "{screen}");
    tui.send("say hello");
    tui.wait_until("the CLEAN Stop line", |s| s.contains("STATE [CLEAN]"));
    assert!(
        tui.requests().contains(harness::CONTEXT_MARKER),
        "the prompt hook's context did not reach the model"
    );
    screen
}

/// The older client (tests/e2e/claude-version-old, which predates
/// PreModelSwitch) first on PATH: `gk install` registers the three hooks
/// it knows, leaves the switch events out and says why; its TUI starts
/// with no "Unknown hook event" dialog, and a prompt is answered with gk's
/// hooks running (the context reaches the model, the Stop line shows).
/// Then the same settings with the switch events added by hand: the same
/// client opens the dialog, so the check above can see one.
fn an_older_client_gets_no_switch_events_and_no_warning_after_install() {
    let _serial = harness::serial();
    let test = "an_older_client_gets_no_switch_events_and_no_warning_after_install";
    let mut sb = Sandbox::new(harness::old_client(test));
    sb.client_on_path();
    sb.write(&sb.user_settings(), USER_SETTINGS_BEFORE);
    let out = sb.gk_ok(&["install", "--yes", "--statusline"]);
    let said = String::from_utf8_lossy(&out.stdout);
    let old = harness::old_client_version();
    assert!(
        said.contains(&format!("Claude Code {old} predates PreModelSwitch")),
        "{said}"
    );
    let settings = parse(&sb.read(&sb.user_settings()), "settings");
    for event in ["PreModelSwitch", "PostModelSwitch"] {
        assert!(commands(&settings, event).is_empty(), "{settings:#}");
    }
    assert_eq!(commands(&settings, "Stop"), [STOP_COMMAND], "{settings:#}");

    let project = sb.project();
    let screen = starts_quietly_and_runs_gk(&mut sb);
    assert!(screen.contains(&format!("Claude Code v{old}")), "{screen}");

    // The control: the switch events added by hand, as a newer client's
    // install writes them; the same client now warns at its start.
    let mut with_events = settings.clone();
    for (event, arg) in [
        ("PreModelSwitch", "pre-model-switch"),
        ("PostModelSwitch", "post-model-switch"),
    ] {
        with_events["hooks"][event] = json!([{"hooks": [{"type": "command",
            "command": format!("\"$HOME/.claude/hooks/gk\" hook {arg}")}]}]);
    }
    sb.write(
        &sb.user_settings(),
        &serde_json::to_string_pretty(&with_events).unwrap(),
    );
    let tui = harness::Tui::start_until(&mut sb, &project, &json!({}), started_or_warned);
    let screen = tui.wait_until("the unknown-event dialog", warns_of_an_unknown_event);
    assert!(screen.contains("PreModelSwitch"), "{screen}");
}

/// `gk install` and `gk uninstall` with the older client on PATH, then
/// with the pinned one: each uninstall gives the user's settings back
/// byte for byte; the older client's install has no switch event, the
/// pinned one's has both.
fn install_and_uninstall_with_an_old_then_a_new_client_give_the_settings_back() {
    let _serial = harness::serial();
    let test = "install_and_uninstall_with_an_old_then_a_new_client_give_the_settings_back";
    let old = harness::old_client(test);
    let mut sb = sandbox(test);
    sb.write(&sb.user_settings(), USER_SETTINGS_BEFORE);
    let events = |sb: &Sandbox| {
        let settings = parse(&sb.read(&sb.user_settings()), "settings");
        ["PreModelSwitch", "PostModelSwitch"].map(|e| commands(&settings, e).len())
    };

    sb.put_on_path(&old);
    let out = sb.gk_ok(&["install", "--yes"]);
    assert_no_secret(&out);
    assert_eq!(events(&sb), [0, 0], "{}", sb.read(&sb.user_settings()));
    sb.gk_ok(&["uninstall", "--yes"]);
    assert_eq!(sb.read(&sb.user_settings()), USER_SETTINGS_BEFORE);

    sb.client_on_path();
    let out = sb.gk_ok(&["install", "--yes"]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("knows PreModelSwitch"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(events(&sb), [1, 1], "{}", sb.read(&sb.user_settings()));
    sb.gk_ok(&["uninstall", "--yes"]);
    assert_eq!(sb.read(&sb.user_settings()), USER_SETTINGS_BEFORE);
}

/// A test policy folder shown to the client at /etc/claude-code
/// ([`Sandbox::with_managed_policy`]), returned, with gk's machine-wide
/// program in place (here inside the sandbox: `--output` does not copy it,
/// the administrator's tools do) and gk's managed commands pointed at both.
fn managed_policy_with_gk(sb: &mut Sandbox) -> std::path::PathBuf {
    let policy = sb.with_managed_policy();
    let program = sb.home().join("opt/gk/gk");
    std::fs::create_dir_all(program.parent().unwrap()).expect("create the program folder");
    std::fs::copy(env!("CARGO_BIN_EXE_gk"), &program).expect("put gk in place");
    let path = |p: &std::path::Path| p.to_str().expect("utf-8 temp path").to_string();
    sb.set_env("GK_MANAGED_PROGRAM", &path(&program));
    sb.set_env(
        "GK_MANAGED_SETTINGS",
        &path(&policy.join("managed-settings.json")),
    );
    policy
}

/// The managed drop-in and the older client (a private mount namespace
/// shows the test's policy folder at /etc/claude-code, as in
/// `a_managed_dropin_runs_gk_under_allow_managed_hooks_only`): `gk install
/// --managed` leaves the switch guard out and says why, and the older
/// client's TUI starts with no dialog and runs gk's hooks from the
/// drop-in; with `--with-switch-guard` the drop-in names the switch events
/// and the same client opens its "Unknown hook event" dialog at start,
/// naming the drop-in (why the guard is an opt-in there).
fn an_older_client_starts_quietly_with_the_managed_dropin_unless_it_has_the_switch_guard() {
    let _serial = harness::serial();
    let test =
        "an_older_client_starts_quietly_with_the_managed_dropin_unless_it_has_the_switch_guard";
    let mut sb = Sandbox::new(harness::old_client(test));
    let policy = managed_policy_with_gk(&mut sb);
    let path = |p: &std::path::Path| p.to_str().expect("utf-8 temp path").to_string();
    let shipped = path(&sb.home().join("to-ship/gk.json"));
    let dropin = policy.join("managed-settings.d/gk.json");
    let project = sb.project();

    let out = sb.gk_ok(&["install", "--managed", "--output", &shipped, "--yes"]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("the switch guard (PreModelSwitch, PostModelSwitch) is left out"),
        "{said}"
    );
    sb.write(&dropin, &sb.read(std::path::Path::new(&shipped)));
    starts_quietly_and_runs_gk(&mut sb);

    let out = sb.gk_ok(&[
        "install",
        "--managed",
        "--with-switch-guard",
        "--output",
        &shipped,
        "--yes",
    ]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("as --with-switch-guard asks"), "{said}");
    let text = sb.read(std::path::Path::new(&shipped));
    assert!(
        text.contains("PreModelSwitch") && text.contains("PostModelSwitch"),
        "{text}"
    );
    sb.write(&dropin, &text);
    let tui = harness::Tui::start_until(&mut sb, &project, &json!({}), started_or_warned);
    let screen = tui.wait_until("the unknown-event dialog", warns_of_an_unknown_event);
    assert!(
        screen.contains("managed-settings.d/gk.json") && screen.contains("PreModelSwitch"),
        "{screen}"
    );
}

/// JSON the client's parser takes and serde_json / jsonc-parser refused
/// (docs/maintainers/claude-code-facts.md): a number past a double's range,
/// a lone surrogate escape, nesting 5,000 levels deep, each in the user's
/// settings.json beside gk's hooks. The client loads the file (gk's prompt
/// hook still gives its context, once), and gk's session check agrees: it
/// says nothing (it does not call the file skipped).
fn json_the_client_loads_is_not_called_skipped() {
    let _serial = harness::serial();
    let mut sb = sandbox("json_the_client_loads_is_not_called_skipped");
    install(&sb);
    let installed = sb.read(&sb.user_settings());
    let deep = format!("{}{}", "[".repeat(5_000), "]".repeat(5_000));
    for x in ["1e400".to_string(), r#""\ud83d""#.to_string(), deep] {
        let text = installed.replacen('{', &format!("{{\n  \"x\": {x},"), 1);
        sb.write(&sb.user_settings(), &text);
        let turn = sb.turn("explain the build");
        turn.assert_completed();
        turn.single_context();
        let session = turn.hook_responses("SessionStart");
        assert_eq!(session.len(), 1, "{:.20}: {}", x, turn.describe_hooks());
        assert_eq!(session[0]["stdout"], "", "{:.20}: {}", x, session[0]);
    }
}

/// The repository's marketplace files copied to a folder of their own (as
/// a clone would hold them), added as a marketplace, gk's plugin installed
/// with the client's own commands, and the gk cargo built on PATH (as
/// `cargo install` puts it). Returns the plugin's id.
fn install_gk_plugin(sb: &mut Sandbox) -> String {
    put_gk_on_path(sb);
    add_gk_plugin(sb)
}

/// The gk cargo built in a folder put first on the sandbox's PATH.
fn put_gk_on_path(sb: &mut Sandbox) {
    let bin = sb.home().join("bin");
    std::fs::create_dir_all(&bin).expect("create the bin folder");
    std::fs::copy(env!("CARGO_BIN_EXE_gk"), bin.join("gk")).expect("put gk on PATH");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    sb.set_env("PATH", &path);
}

/// The repository's marketplace files copied to a folder of their own,
/// added as a marketplace, and gk's plugin installed, with the client's
/// own commands (docs/install.md's plugin route). Returns the plugin's id.
fn add_gk_plugin(sb: &mut Sandbox) -> String {
    use gk::testing::plugin;
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let market = sb.home().join("gk-marketplace");
    for (rel, _) in plugin::files() {
        let text = sb.read(&repo.join(&rel));
        sb.write(&market.join(&rel), &text);
    }
    sb.claude_ok(&[
        "plugin",
        "marketplace",
        "add",
        market.to_str().expect("utf-8 temp path"),
    ]);
    let id = format!("{}@{}", plugin::PLUGIN, plugin::MARKETPLACE);
    sb.claude_ok(&["plugin", "install", &id]);
    id
}

/// gk's switch guard plugin installed from the marketplace
/// [`add_gk_plugin`] added (the opt-in: `claude plugin install
/// gk-switch-guard@gk`). Returns its id.
fn add_switch_guard_plugin(sb: &mut Sandbox) -> String {
    use gk::testing::plugin;
    let id = format!("{}@{}", plugin::SWITCH_PLUGIN, plugin::MARKETPLACE);
    sb.claude_ok(&["plugin", "install", &id]);
    id
}

/// Both of gk's plugins on the pinned client (which knows
/// PreModelSwitch), gk on PATH and `gk install` beside them (the rules,
/// no hooks in settings): mid-task, `/model sonnet` opens the client's
/// "Switch model?" dialog with gk's reason, from the opt-in plugin.
fn with_both_plugins_a_model_switch_mid_task_shows_gks_reason() {
    let _serial = harness::serial();
    let mut sb = sandbox("with_both_plugins_a_model_switch_mid_task_shows_gks_reason");
    sb.without_managed_policy();
    install_gk_plugin(&mut sb);
    add_switch_guard_plugin(&mut sb);
    sb.gk_ok(&["install", "--yes", "--no-smoke"]);
    let settings = parse(&sb.read(&sb.user_settings()), "settings.json");
    assert_eq!(settings.get("hooks"), None, "{settings:#}");
    assert_eq!(settings["enabledPlugins"]["gk-switch-guard@gk"], true);

    let tools = json!({"implement the parser refactor": start_a_task("Refactor parser", None)});
    let project = sb.project();
    // No status line here (a plugin cannot carry one): ready at the prompt.
    let tui = harness::Tui::start_until(&mut sb, &project, &tools, started_or_warned);
    mid_task_switch_shows_gks_reason_and_no_keeps_the_model(&tui, &sb);
}

/// Both of gk's plugins on the older client (which predates
/// PreModelSwitch). Measured on 2.1.250: both install (exit 0);
/// `claude plugin list` shows gk-switch-guard@gk "✘ failed to load" with
/// "Hook load failed" naming `PreModelSwitch` and `PostModelSwitch`, and
/// gk@gk "✔ enabled". A turn runs the main plugin's three hooks once each
/// (the prompt hook's context reaches the model), and gk doctor names the
/// opt-in plugin as not loaded.
fn an_older_client_loads_gks_plugin_and_fails_only_the_switch_guard_plugin() {
    let _serial = harness::serial();
    let test = "an_older_client_loads_gks_plugin_and_fails_only_the_switch_guard_plugin";
    let mut sb = Sandbox::new(harness::old_client(test));
    sb.without_managed_policy();
    let main = install_gk_plugin(&mut sb);
    let opt_in = add_switch_guard_plugin(&mut sb);
    // The older client beside gk on PATH, for doctor to ask its version.
    let old = std::env::var("GK_E2E_CLAUDE_OLD").expect("GK_E2E_CLAUDE_OLD");
    #[cfg(unix)]
    std::os::unix::fs::symlink(old, sb.home().join("bin/claude")).expect("link the client");
    // (This file's trials drive the Linux client; built for Windows, as
    // `scripts/windows-cross-test.sh clippy` builds every target, a copy.)
    #[cfg(not(unix))]
    std::fs::copy(old, sb.home().join("bin/claude")).expect("copy the client");
    let list = sb.claude_ok(&["plugin", "list"]);
    let listed = String::from_utf8_lossy(&list.stdout).into_owned();
    eprintln!("claude plugin list:\n{}", &listed[..listed.len().min(600)]);
    let status_of = |id: &str| -> String {
        let at = listed
            .find(&format!("\u{276f} {id}"))
            .unwrap_or_else(|| panic!("{id} not listed:\n{listed}"));
        listed[at..]
            .lines()
            .find(|l| l.trim_start().starts_with("Status:"))
            .unwrap_or_default()
            .trim()
            .to_string()
    };
    assert_eq!(status_of(&opt_in), "Status: \u{2718} failed to load");
    assert_eq!(status_of(&main), "Status: \u{2714} enabled");
    assert!(
        listed.contains("Hook load failed") && listed.contains("\"PreModelSwitch\""),
        "{listed}"
    );

    let turn = sb.turn("explain the build");
    turn.assert_completed();
    // Each of the three ran once, and settings hold no hooks: they ran
    // from the main plugin (this client's debug log does not tag a
    // plugin's runs, so the runs are counted from the stream).
    turn.assert_gk_hooks_ran(1);
    let settings = parse(&sb.read(&sb.user_settings()), "settings.json");
    assert_eq!(settings.get("hooks"), None, "{settings:#}");
    assert!(turn.model_saw(harness::CONTEXT_MARKER));

    let doctor = sb.gk(&["doctor"]);
    let said = String::from_utf8_lossy(&doctor.stdout);
    assert!(
        said.contains(&format!(
            "plugin {opt_in} registers PreModelSwitch and PostModelSwitch, which Claude Code {} does not know",
            harness::old_client_version()
        )),
        "{said}"
    );
}

/// gk as a plugin. The repository's marketplace files
/// (copied to a folder of their own, as a clone would hold them) added as
/// a marketplace and gk's plugin installed with the client's own commands;
/// the gk cargo built on PATH, as `cargo install` puts it. One turn runs
/// each of gk's hooks once, from the plugin; settings.json gets no hooks
/// (the client itself adds the marketplace and `enabledPlugins`). The
/// session check does not call the plugin's hooks unregistered, and gives
/// Claude the Task State Convention, which a plugin cannot put into
/// CLAUDE.md. Runs with no managed policy (see `without_managed_policy`).
fn gk_as_a_plugin_runs_each_hook_once_with_no_hooks_in_settings() {
    let _serial = harness::serial();
    let mut sb = sandbox("gk_as_a_plugin_runs_each_hook_once_with_no_hooks_in_settings");
    sb.without_managed_policy();
    let id = install_gk_plugin(&mut sb);

    let turn = sb.turn("explain the build");
    turn.assert_completed();
    turn.assert_gk_hooks_ran(1);
    // Each from the plugin (the debug log tags a plugin's hook runs), none
    // from a settings file.
    assert_eq!(turn.plugin_runs(&id), 3, "{}", turn.describe_hooks());
    assert_eq!(turn.hook_runs().len(), 0, "{}", turn.describe_hooks());
    turn.single_context();
    // No "not registered" warning: the session check prints no message.
    let convention = turn.convention_given_silently();
    assert!(turn.model_saw(&convention));

    let settings = parse(&sb.read(&sb.user_settings()), "settings.json");
    assert_eq!(settings.get("hooks"), None, "{settings:#}");
    assert_eq!(settings["enabledPlugins"][&id], true, "{settings:#}");
    assert!(!sb.claude_dir().join("CLAUDE.md").exists());
}

/// The plugin route with gk not yet on PATH. The plugin's hooks
/// are the exec form of the bare name `gk`: the client reports each of the
/// three as `Executable not found in $PATH: "gk"` (exit 1, a non-blocking
/// error) and the turn completes. Once gk is on PATH and `gk install` has
/// added what a plugin cannot carry (no program copy, no hooks in
/// settings), the next turn gets the advice and the Stop line, once each.
fn the_plugin_route_without_gk_on_path_fails_each_hook_then_advises_once_gk_is_there() {
    let _serial = harness::serial();
    let mut sb = sandbox(
        "the_plugin_route_without_gk_on_path_fails_each_hook_then_advises_once_gk_is_there",
    );
    sb.without_managed_policy();
    // A PATH with no gk on it (the client itself is started by its path).
    let bare = sb.home().join("no-gk-bin");
    std::fs::create_dir_all(&bare).expect("create an empty bin folder");
    sb.set_env("PATH", &format!("{}:/usr/bin:/bin", bare.display()));
    for dir in ["/usr/bin", "/bin"] {
        assert!(
            !std::path::Path::new(dir).join("gk").exists(),
            "a gk in {dir} would be found"
        );
    }
    let id = add_gk_plugin(&mut sb);

    let turn = sb.turn("design the schema for multi-tenant billing and explain the tradeoffs");
    turn.assert_completed();
    for event in ["SessionStart", "UserPromptSubmit", "Stop"] {
        let runs = turn.hook_responses(event);
        assert_eq!(runs.len(), 1, "{event}: {}", turn.describe_hooks());
        let r = runs[0];
        assert_eq!(r["exit_code"], 1, "{event}: {r}");
        assert_eq!(r["outcome"], "error", "{event}: {r}");
        assert!(
            r["stderr"]
                .as_str()
                .unwrap_or_default()
                .contains("Executable not found in $PATH: \"gk\""),
            "{event}: {r}"
        );
    }
    assert!(turn.contexts().is_empty(), "{}", turn.describe_hooks());

    put_gk_on_path(&mut sb);
    sb.gk_ok(&["install", "--yes"]);
    assert!(
        !sb.claude_dir().join("hooks/gk").exists(),
        "install beside the plugin copied a second program"
    );
    let settings = parse(&sb.read(&sb.user_settings()), "settings.json");
    assert_eq!(settings.get("hooks"), None, "{settings:#}");
    assert_eq!(settings["enabledPlugins"][&id], true, "{settings:#}");

    let turn = sb.turn("design the schema for multi-tenant billing and explain the tradeoffs");
    turn.assert_completed();
    assert_eq!(turn.plugin_runs(&id), 3, "{}", turn.describe_hooks());
    let advice = turn.system_messages("UserPromptSubmit");
    assert_eq!(advice.len(), 1, "{}", turn.describe_hooks());
    assert!(advice[0].contains("/model"), "{advice:?}");
    let line = stop_line(&turn);
    assert!(line.starts_with("STATE [CLEAN]"), "STATE line: {line}");
}

/// What a user of gk's plugin sees in the interactive client when gk is
/// not on PATH (docs/limitations.md): for each of the three hooks the
/// client's own failure line, with `Executable not found in $PATH: "gk"`
/// on the line under it; the prompt is still answered. The line names gk
/// and PATH, not the plugin: no gk runs to say more, and the exec form
/// (no shell) is what works on every platform.
fn the_tui_shows_the_clients_line_for_each_hook_when_the_plugin_finds_no_gk() {
    let _serial = harness::serial();
    let mut sb =
        sandbox("the_tui_shows_the_clients_line_for_each_hook_when_the_plugin_finds_no_gk");
    sb.without_managed_policy();
    let bare = sb.home().join("no-gk-bin");
    std::fs::create_dir_all(&bare).expect("create an empty bin folder");
    sb.set_env("PATH", &format!("{}:/usr/bin:/bin", bare.display()));
    add_gk_plugin(&mut sb);
    let project = sb.project();
    let tui = harness::Tui::start_until(&mut sb, &project, &json!({}), |s| {
        s.contains('\u{276f}') && s.contains("SessionStart:startup hook failed")
    });
    tui.send("explain the build");
    let screen = tui.wait_until("the Stop hook's failure", |s| {
        s.contains("Stop hook failed")
    });
    eprintln!("gk not on PATH:\n{screen}");
    let missing =
        "Error occurred while executing hook command: Executable not found in $PATH: \"gk\"";
    for failed in [
        "SessionStart:startup hook failed",
        "UserPromptSubmit hook failed",
        "Stop hook failed",
    ] {
        let at = screen
            .find(failed)
            .unwrap_or_else(|| panic!("{failed}:\n{screen}"));
        let under = screen[at..].lines().nth(1).unwrap_or_default().trim();
        assert_eq!(under, missing, "under {failed}:\n{screen}");
    }
    assert_eq!(screen.matches(missing).count(), 3, "{screen}");
    assert!(screen.contains("\u{25cf} Done."), "no answer:\n{screen}");
    assert!(
        !screen.contains("gk@gk"),
        "the client names the plugin now:\n{screen}"
    );
}

/// The prompt hook takes the model of the session's last reply from the
/// transcript the client writes (`transcript_path`): the first prompt of
/// a session on Opus (no reply yet) is advised `/model claude-opus-5-5`;
/// the same prompt in that session once a reply ran on Opus is told the
/// current model fits, with no `/model` to type.
fn the_advice_reads_the_model_of_the_last_reply_from_the_real_transcript() {
    let _serial = harness::serial();
    let mut sb = sandbox("the_advice_reads_the_model_of_the_last_reply_from_the_real_transcript");
    install(&sb);
    let project = sb.project();
    let race = "there is a deadlock in the scheduler, find the race and fix it";
    let first = sb.turn_with_args(race, &project, None, &["--model", "claude-opus-5-5"]);
    first.assert_completed();
    let advice = first.system_messages("UserPromptSubmit");
    assert_eq!(advice.len(), 1, "{}", first.describe_hooks());
    assert!(
        advice[0].contains(" Model : /model claude-opus-5-5"),
        "no reply yet: {advice:?}"
    );
    let id = first.session_id();
    let second = sb.turn_with_args(
        race,
        &project,
        None,
        &["--resume", &id, "--model", "claude-opus-5-5"],
    );
    second.assert_completed();
    let advice = second.system_messages("UserPromptSubmit");
    assert_eq!(advice.len(), 1, "{}", second.describe_hooks());
    assert!(
        advice[0].contains(" Model : the current model fits ("),
        "after a reply on Opus: {advice:?}"
    );
    assert!(!advice[0].contains("/model"), "{advice:?}");
}

/// The managed channel. `gk install --managed --output FILE`
/// writes the drop-in an administrator ships; placed in the managed folder
/// the client reads (a test folder shown at /etc/claude-code in a private
/// mount namespace), beside a managed file that sets
/// `allowManagedHooksOnly`: each of gk's hooks runs once from the drop-in,
/// the user's own hook does not run, and doctor calls gk's hooks neither
/// missing nor doubled. `gk uninstall --managed --output FILE` takes the
/// file back out.
fn a_managed_dropin_runs_gk_under_allow_managed_hooks_only() {
    let _serial = harness::serial();
    let mut sb = sandbox("a_managed_dropin_runs_gk_under_allow_managed_hooks_only");
    let policy = managed_policy_with_gk(&mut sb);
    let path = |p: &std::path::Path| p.to_str().expect("utf-8 temp path").to_string();
    let shipped = sb.home().join("to-ship/gk.json");
    let out = sb.gk_ok(&["install", "--managed", "--output", &path(&shipped), "--yes"]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("it is not copied by --output"), "{said}");
    assert!(
        !sb.user_settings().exists(),
        "a managed install left the user's settings alone"
    );

    sb.write(
        &policy.join("managed-settings.json"),
        "{\n  \"allowManagedHooksOnly\": true\n}\n",
    );
    sb.write(
        &policy.join("managed-settings.d/gk.json"),
        &sb.read(&shipped),
    );
    // A hook of the user's own, which the policy switches off.
    let marker = sb.home().join("user-hook-ran");
    sb.write(
        &sb.user_settings(),
        &json!({"hooks": {"UserPromptSubmit": [{"hooks": [
            {"type": "command", "command": format!("touch {}", path(&marker))}
        ]}]}})
        .to_string(),
    );

    let turn = sb.turn("implement the ontology");
    turn.assert_completed();
    turn.assert_gk_hooks_ran(1);
    assert!(turn.single_context().contains("[Gatekeeper] State: clean"));
    // No user has a task record yet (a drop-in carries none): the normal
    // start of a session, which is the clean state.
    let stop = stop_line(&turn);
    assert_eq!(
        stop,
        "STATE [CLEAN] no task recorded in this session yet -- safe to switch model or effort"
    );
    assert!(
        !marker.exists(),
        "the user's hook ran under allowManagedHooksOnly"
    );

    let (_, codes) = sb.doctor_codes();
    for code in ["hook-missing", "hook-fires-twice", "hook-redundant"] {
        assert!(!codes.iter().any(|c| c == code), "{code} in {codes:?}");
    }

    sb.gk_ok(&[
        "uninstall",
        "--managed",
        "--output",
        &path(&shipped),
        "--yes",
    ]);
    assert!(!shipped.exists(), "the drop-in held only gk's entries");
}

/// gk installed into settings.json, then gk's plugin
/// too. The client runs each hook twice (it never merges a plugin's copy
/// with a settings file's); `gk doctor` reports `hook-in-plugin-and-settings`
/// (an error: exit 2) naming the plugin and settings.json; `gk doctor --fix
/// --yes` takes install's entries out of settings.json (never the plugin's
/// files), and each hook runs once again, from the plugin, `env` intact.
fn gk_in_a_plugin_and_in_settings_runs_twice_until_doctor_fixes_it() {
    let _serial = harness::serial();
    let mut sb = sandbox("gk_in_a_plugin_and_in_settings_runs_twice_until_doctor_fixes_it");
    sb.without_managed_policy();
    install(&sb);
    let id = install_gk_plugin(&mut sb);

    let turn = sb.turn("implement the ontology");
    turn.assert_completed();
    turn.assert_gk_hooks_ran(2);
    let gatekeeper: Vec<String> = turn
        .contexts()
        .into_iter()
        .filter(|c| c.contains("[Gatekeeper]"))
        .collect();
    assert_eq!(gatekeeper.len(), 2, "{}", turn.describe_hooks());
    // The session check says so at the start, naming the plugin (each of
    // its two runs prints the same line).
    turn.assert_session_warned_of_plugin(&id);

    let (code, codes) = sb.doctor_codes();
    assert_eq!(code, Some(2), "{codes:?}");
    assert!(
        codes.iter().any(|c| c == "hook-in-plugin-and-settings"),
        "{codes:?}"
    );
    let out = sb.gk(&["doctor", "--no-smoke"]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains(&format!("plugin {id}")), "{said}");
    assert!(
        said.contains(&sb.user_settings().display().to_string()),
        "{said}"
    );
    let plugin_files: Vec<String> = gk::testing::plugin::files()
        .into_iter()
        .map(|(rel, _)| sb.read(&sb.home().join("gk-marketplace").join(rel)))
        .collect();
    let out = sb.gk_ok(&["doctor", "--fix", "--yes"]);
    assert_no_secret(&out);

    let settings = sb.read(&sb.user_settings());
    assert!(!settings.contains("hook prompt"), "{settings}");
    assert!(settings.contains(ENV_BLOCK), "{settings}");
    let after: Vec<String> = gk::testing::plugin::files()
        .into_iter()
        .map(|(rel, _)| sb.read(&sb.home().join("gk-marketplace").join(rel)))
        .collect();
    assert_eq!(after, plugin_files, "--fix never edits the plugin's files");
    let turn = sb.turn("implement the ontology");
    turn.assert_completed();
    turn.assert_gk_hooks_ran(1);
    let (_, codes) = sb.doctor_codes();
    assert!(!codes.iter().any(|c| c.starts_with("hook-")), "{codes:?}");
}

/// A team plugin that registers gk's prompt hook and not the others, beside
/// `gk install`: the client runs the prompt hook twice (the plugin's copy
/// and settings.json's), Stop and SessionStart once. `gk doctor --fix
/// --yes` takes settings.json's prompt entry out and says which plugin
/// carries it now (the plugin's files untouched, install's Stop and
/// SessionStart entries kept); the next turn runs each hook once, the
/// prompt hook from the plugin.
fn a_team_plugins_prompt_hook_beside_install_runs_twice_until_doctor_fixes_it() {
    let _serial = harness::serial();
    let mut sb =
        sandbox("a_team_plugins_prompt_hook_beside_install_runs_twice_until_doctor_fixes_it");
    sb.without_managed_policy();
    install(&sb);
    let market = sb.home().join("team-marketplace");
    let gk = sb.claude_dir().join("hooks").join("gk");
    sb.write(
        &market.join(".claude-plugin/marketplace.json"),
        &json!({"name": "team", "owner": {"name": "team"},
                "plugins": [{"name": "team", "source": "./team", "version": "1.0.0"}]})
        .to_string(),
    );
    sb.write(
        &market.join("team/.claude-plugin/plugin.json"),
        &json!({"name": "team", "version": "1.0.0"}).to_string(),
    );
    let hooks = json!({"hooks": {"UserPromptSubmit": [{"hooks": [
        {"type": "command", "command": gk, "args": ["hook", "prompt"]}]}]}});
    let hooks_file = market.join("team/hooks/hooks.json");
    sb.write(&hooks_file, &hooks.to_string());
    sb.claude_ok(&[
        "plugin",
        "marketplace",
        "add",
        market.to_str().expect("utf-8 temp path"),
    ]);
    let id = "team@team";
    sb.claude_ok(&["plugin", "install", id]);

    let turn = sb.turn("implement the ontology");
    turn.assert_completed();
    let runs = |turn: &Turn, event: &str| turn.hook_responses(event).len();
    assert_eq!(
        runs(&turn, "UserPromptSubmit"),
        2,
        "{}",
        turn.describe_hooks()
    );
    assert_eq!(runs(&turn, "Stop"), 1, "{}", turn.describe_hooks());
    assert_eq!(runs(&turn, "SessionStart"), 1, "{}", turn.describe_hooks());
    let (code, codes) = sb.doctor_codes();
    assert_eq!(code, Some(2), "{codes:?}");
    assert!(
        codes.iter().any(|c| c == "hook-in-plugin-and-settings"),
        "{codes:?}"
    );

    let hooks_before = sb.read(&hooks_file);
    let out = sb.gk_ok(&["doctor", "--fix", "--yes"]);
    assert_no_secret(&out);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains(&format!("plugin {id} now carries gk's prompt hook")),
        "{said}"
    );
    let settings = sb.read(&sb.user_settings());
    assert!(!settings.contains("hook prompt"), "{settings}");
    assert!(
        settings.contains(&serde_json::to_string(STOP_COMMAND).unwrap()),
        "{settings}"
    );
    assert!(
        settings.contains(&serde_json::to_string(SESSION_COMMAND).unwrap()),
        "{settings}"
    );
    assert!(settings.contains(ENV_BLOCK), "{settings}");
    assert_eq!(
        sb.read(&hooks_file),
        hooks_before,
        "--fix never edits a plugin's files"
    );

    let turn = sb.turn("implement the ontology");
    turn.assert_completed();
    turn.assert_gk_hooks_ran(1);
    assert_eq!(turn.plugin_runs(id), 1, "{}", turn.describe_hooks());
    let (_, codes) = sb.doctor_codes();
    assert!(!codes.iter().any(|c| c.starts_with("hook-")), "{codes:?}");
}

/// The generator of tests/fixtures/settings-shapes/verdicts.tsv, and its
/// check: each shape as the project's settings file, one text-mode turn
/// per shape, the client's verdict read from its stderr. It must equal the
/// recorded one (else the client moved: re-measure with
/// scripts/measure-settings-shapes.sh, which sets `GK_RECORD_SHAPES=1` to
/// write the file instead) and gk's own (`gk::testing::verdict::of`).
fn the_client_judges_every_settings_shape_as_recorded_and_as_gk_does() {
    let _serial = harness::serial();
    let mut sb = sandbox("the_client_judges_every_settings_shape_as_recorded_and_as_gk_does");
    sb.without_managed_policy();
    let recording = std::env::var("GK_RECORD_SHAPES").is_ok_and(|v| v == "1");
    let (_, recorded) = shapes::recorded_or_empty(recording);
    let path = sb.project_settings();
    let mut measured = std::collections::BTreeMap::new();
    let mut wrong = Vec::new();
    for (name, bytes) in shapes::fixtures() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &bytes).unwrap();
        let client = shapes::from_client(&sb.text_turn_stderr("hi"), &path);
        let gk = gk::testing::verdict::of(&String::from_utf8_lossy(&bytes));
        if let Err(e) = shapes::agrees(&gk, &client) {
            wrong.push(format!("{name}: {e}"));
        }
        if !recording && recorded.get(&name) != Some(&client) {
            wrong.push(format!(
                "{name}: the client now says {client:?}, recorded {:?}",
                recorded.get(&name)
            ));
        }
        measured.insert(name, client);
    }
    if recording {
        std::fs::write(
            shapes::dir().join(shapes::RECORDED),
            shapes::render(harness::client_version(), &measured),
        )
        .unwrap();
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// What the prompt hook receives when the user pastes a block of text into
/// the interactive client, which shows it as a placeholder (`[Pasted text
/// #1 +30 lines]`, also what its history keeps): the pasted text itself,
/// between `<pasted_content id="…">` tags, which gk's recommender drops.
fn a_pasted_block_reaches_the_prompt_hook_as_the_text_itself() {
    let _serial = harness::serial();
    let mut sb = sandbox("a_pasted_block_reaches_the_prompt_hook_as_the_text_itself");
    sb.gk_ok(&["install", "--yes", "--statusline"]);
    let seen = sb.home().join("prompt-event.json");
    let mut settings = parse(&sb.read(&sb.user_settings()), "settings");
    let spy =
        json!({"hooks": [{"type": "command", "command": format!("cat > '{}'", seen.display())}]});
    settings["hooks"]["UserPromptSubmit"]
        .as_array_mut()
        .unwrap()
        .push(spy);
    sb.write(&sb.user_settings(), &format!("{settings:#}\n"));
    let project = sb.project();
    let tui = harness::Tui::start(&mut sb, &project, &json!({}));
    let block: String = (1..=30)
        .map(|i| format!("  at parser.rs:{i}: unexpected token {i}\n"))
        .collect();
    tui.press(&["-l", "why does the parser fail here? "]);
    tui.paste(&block, "[Pasted text");
    tui.press(&["-l", " fix it"]);
    std::thread::sleep(std::time::Duration::from_millis(500));
    tui.press(&["Enter"]);
    let started = std::time::Instant::now();
    while !seen.exists() && started.elapsed().as_secs() < 60 {
        std::thread::sleep(std::time::Duration::from_millis(250));
    }
    let event = parse(&sb.read(&seen), "the prompt hook's input");
    let prompt = event["prompt"].as_str().unwrap_or_default();
    eprintln!("the hook's prompt: {prompt:?}");
    // The typed text, then the paste whole between the client's tags, then
    // what was typed after it.
    assert!(
        prompt.starts_with("why does the parser fail here? ")
            && prompt.contains("at parser.rs:30: unexpected token 30")
            && prompt.trim_end().ends_with("fix it")
            && !prompt.contains("[Pasted text"),
        "{prompt:?}"
    );
    let open = prompt
        .find("<pasted_content id=\"")
        .expect("the opening tag");
    let close = prompt
        .find("</pasted_content id=\"")
        .expect("the closing tag");
    assert!(open < close, "{prompt:?}");
    // gk's recommender reads the paste, never the tags.
    let out = sb.gk_ok(&["explain", prompt]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("'parser'") && !said.contains("pasted"),
        "{said}"
    );
}
