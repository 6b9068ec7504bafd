//! `gk hook pre-model-switch` (PreModelSwitch) and `gk hook
//! post-model-switch` (PostModelSwitch) on the payloads the client sends
//! (measured on 2.1.332: `from_model`, `to_model`, `requested_model`,
//! `source`, `context_tokens`, `prompt_cache_warm`, `cache_ttl`,
//! `estimated_cache_write_usd`), on every source and on hostile ones: the
//! task is the one the prompt hook names, `ask` only for a person at the
//! TUI, nothing for a clean state, `switch` in gk.json obeyed, the hook
//! contract (exit 0, no stderr, one ASCII JSON line) kept on any input.

use std::path::PathBuf;

use serde_json::{json, Value};

use crate::common::{set_age, snapshot_settings, Run, TestEnv};

const SESSION: &str = "3f2a9c1e-5b7d-4e8a-9c2f-1a2b3c4d5e6f";

fn record_path(env: &TestEnv) -> PathBuf {
    env.home()
        .join(".local")
        .join("state")
        .join("gk")
        .join(gk::testing::paths::record_file_name(SESSION).unwrap())
}

/// This session's record: `status`, updated `age` seconds ago.
fn record(env: &TestEnv, status: &str, age: u64) {
    let path = record_path(env);
    env.write(
        &path,
        json!({"status": status, "task": "port the parser", "project": "gk",
               "detail": "step 2 of 3", "cwd": env.project()})
        .to_string(),
    );
    set_age(&path, age);
}

/// The event as the client sends it (2.1.332), with `over` merged in.
fn event(env: &TestEnv, name: &str, over: Value) -> Value {
    let mut v = json!({
        "session_id": SESSION,
        "transcript_path": "",
        "cwd": env.project(),
        "prompt_id": "p-1",
        "hook_event_name": name,
        "from_model": "claude-opus-5-5",
        "to_model": "claude-sonnet-5-5",
        "requested_model": "sonnet",
        "source": "command",
        "context_tokens": 180_000,
        "prompt_cache_warm": true,
        "cache_ttl": "5m",
        "estimated_cache_write_usd": 0.42,
        "pricing": "catalog",
    });
    for (k, val) in over.as_object().unwrap() {
        if val.is_null() {
            v.as_object_mut().unwrap().remove(k);
        } else {
            v[k] = val.clone();
        }
    }
    v
}

fn run(env: &TestEnv, arg: &str, stdin: impl Into<Vec<u8>>) -> Run {
    let r = env
        .gk(["hook", arg])
        .current_dir(env.project())
        .stdin(stdin)
        .run();
    r.assert_hook_contract(arg);
    r
}

fn pre(env: &TestEnv, over: Value) -> Run {
    run(
        env,
        "pre-model-switch",
        event(env, "PreModelSwitch", over).to_string(),
    )
}

fn post(env: &TestEnv, over: Value) -> Run {
    run(
        env,
        "post-model-switch",
        event(env, "PostModelSwitch", over).to_string(),
    )
}

/// `(decision, reason)` of a PreModelSwitch answer; `None`: no answer.
fn decision(r: &Run) -> Option<(String, String)> {
    if r.stdout.is_empty() {
        return None;
    }
    let v = r.json();
    let h = &v["hookSpecificOutput"];
    assert_eq!(h["hookEventName"], "PreModelSwitch", "{v}");
    assert_eq!(v.as_object().unwrap().len(), 1, "{v}");
    Some((
        h["permissionDecision"].as_str().unwrap().to_string(),
        h["permissionDecisionReason"].as_str().unwrap().to_string(),
    ))
}

const SOURCES: [&str; 5] = ["command", "picker", "sdk", "auto", "resume"];

#[test]
fn a_clean_state_gets_no_answer_from_either_hook_whatever_the_source() {
    let env = TestEnv::new();
    for setup in ["no record", "clean", "unreadable"] {
        match setup {
            "clean" => record(&env, "clean", 60),
            "unreadable" => env.write(record_path(&env), "{not json"),
            _ => {}
        }
        for source in SOURCES {
            let over = json!({ "source": source });
            assert_eq!(decision(&pre(&env, over.clone())), None, "{setup} {source}");
            assert!(post(&env, over).stdout.is_empty(), "{setup} {source}");
        }
    }
}

#[test]
fn a_task_in_progress_asks_a_person_and_never_a_headless_session() {
    let env = TestEnv::new();
    record(&env, "in_progress", 600);
    for source in SOURCES {
        let got = decision(&pre(&env, json!({ "source": source })));
        match source {
            "command" | "picker" => {
                let (d, reason) = got.unwrap();
                assert_eq!(d, "ask");
                assert!(reason.contains("'port the parser' [gk]"), "{reason}");
                assert!(reason.contains("updated 10m ago"), "{reason}");
                assert!(reason.lines().count() <= 3, "{reason}");
            }
            _ => assert_eq!(got, None, "{source}"),
        }
    }
    // A source gk does not know, a wrong type, none at all: nobody to ask.
    for source in [
        json!("Command"),
        json!("tui"),
        json!(1),
        json!(["command"]),
        Value::Null,
    ] {
        assert_eq!(
            decision(&pre(&env, json!({ "source": source }))),
            None,
            "{source}"
        );
    }
}

#[test]
fn a_stale_task_asks_too_and_says_it_is_probably_done() {
    let env = TestEnv::new();
    record(&env, "in_progress", 30 * 3600);
    let (d, reason) = decision(&pre(&env, json!({}))).unwrap();
    assert_eq!(d, "ask");
    assert!(reason.contains("probably done"), "{reason}");
}

#[test]
fn the_task_is_the_one_the_prompt_hook_names_the_shared_file_when_the_session_has_none() {
    let env = TestEnv::new();
    env.write_state(
        r#"{"status":"in_progress","task":"shared work","project":"p"}"#,
        60,
    );
    let (_, reason) = decision(&pre(&env, json!({}))).unwrap();
    assert!(reason.contains("'shared work'"), "{reason}");
    let prompt = env.prompt("hello");
    assert!(prompt.system_message().contains("'shared work'"));
    // Its own record, once written, speaks instead.
    record(&env, "clean", 5);
    assert_eq!(decision(&pre(&env, json!({}))), None);
}

#[test]
fn the_cost_line_needs_a_warm_cache_and_an_estimate_above_five_cents() {
    let env = TestEnv::new();
    record(&env, "in_progress", 60);
    let reason = |over: Value| decision(&pre(&env, over)).unwrap().1;
    let warm = reason(json!({}));
    assert!(
        warm.ends_with("~$0.42 to re-read 180k tokens on claude-sonnet-5-5."),
        "{warm}"
    );
    assert_eq!(warm.lines().count(), 3);
    for over in [
        json!({"prompt_cache_warm": false}),
        json!({"prompt_cache_warm": null}),
        json!({"estimated_cache_write_usd": 0.04}),
        json!({"estimated_cache_write_usd": -1}),
        json!({"estimated_cache_write_usd": 1e308}),
        json!({"estimated_cache_write_usd": "NaN"}),
        json!({"estimated_cache_write_usd": null}),
    ] {
        let r = reason(over.clone());
        assert!(!r.contains('$'), "{over}: {r}");
        assert_eq!(r.lines().count(), 2, "{over}");
    }
    // A token count that makes no sense drops the count, not the cost.
    for tokens in [json!(-5), json!(1e30), json!("many"), Value::Null] {
        let r = reason(json!({ "context_tokens": tokens }));
        assert!(
            r.ends_with("~$0.42 to re-read the conversation on claude-sonnet-5-5."),
            "{r}"
        );
    }
}

#[test]
fn switch_in_gk_json_warn_block_and_off() {
    let env = TestEnv::new();
    record(&env, "in_progress", 60);
    env.write_config(r#"{"switch": "block"}"#);
    for source in SOURCES {
        let (d, _) = decision(&pre(&env, json!({ "source": source }))).unwrap();
        assert_eq!(d, "deny", "{source}");
    }
    env.write_config(r#"{"switch": "warn"}"#);
    assert_eq!(decision(&pre(&env, json!({}))), None);
    let after = post(&env, json!({}));
    assert!(after.system_message().starts_with("gk: Task in progress"));
    env.write_config(r#"{"switch": "off"}"#);
    assert_eq!(decision(&pre(&env, json!({}))), None);
    assert!(post(&env, json!({})).stdout.is_empty());
    // A broken gk.json that still says off is obeyed; a wrong value is a
    // broken file, so the default (ask) holds.
    env.write_config(r#"{"switch": "off", "stale_hours": "x"}"#);
    assert_eq!(decision(&pre(&env, json!({}))), None);
    env.write_config(r#"{"switch": "never"}"#);
    assert_eq!(decision(&pre(&env, json!({}))).unwrap().0, "ask");
}

#[test]
fn after_a_switch_mid_task_claude_gets_one_line_naming_the_record() {
    let env = TestEnv::new();
    record(&env, "in_progress", 60);
    for source in ["command", "picker", "sdk", "auto", "resume"] {
        let r = post(&env, json!({ "source": source }));
        let v = r.json();
        assert_eq!(v.get("systemMessage"), None);
        assert_eq!(v["hookSpecificOutput"]["hookEventName"], "PostModelSwitch");
        let ctx = r.context();
        assert!(!ctx.contains('\n'), "{ctx}");
        assert!(
            ctx.contains("changed from claude-opus-5-5 to claude-sonnet-5-5 during task 'port the parser' [gk]"),
            "{ctx}"
        );
        assert!(
            ctx.contains(&record_path(&env).display().to_string()),
            "{ctx}"
        );
    }
    let bare = post(&env, json!({"from_model": null, "to_model": 7}));
    assert!(bare
        .context()
        .contains("changed from another model to this model"));
}

#[test]
fn hostile_payloads_keep_the_contract_and_no_control_character_gets_through() {
    let env = TestEnv::new();
    record(&env, "in_progress", 60);
    let nasty = "claude-\u{1b}[2J\u{1b}]0;owned\u{7}sonnet\r\n\u{202e}x";
    for over in [
        json!({"to_model": nasty, "from_model": nasty}),
        json!({"session_id": "abc\u{0}\n../../etc", "to_model": "x".repeat(100_000)}),
        json!({"context_tokens": -1, "estimated_cache_write_usd": -0.0}),
        json!({"context_tokens": 1e308, "estimated_cache_write_usd": 9e15}),
        json!({"prompt_cache_warm": "yes", "source": {"a": 1}}),
        json!({"cwd": 5, "transcript_path": [1], "hook_event_name": null}),
    ] {
        for r in [pre(&env, over.clone()), post(&env, over.clone())] {
            let text = r.stdout_text();
            let v: Value = if text.is_empty() {
                continue;
            } else {
                r.json()
            };
            let h = &v["hookSpecificOutput"];
            for field in [
                &h["permissionDecisionReason"],
                &h["additionalContext"],
                &v["systemMessage"],
            ] {
                if let Some(s) = field.as_str() {
                    assert!(
                        !s.chars()
                            .any(|c| c != '\n' && gk::testing::text::is_unsafe(c)),
                        "{over}: {s:?}"
                    );
                    assert!(s.len() < 2_000, "{over}: {} bytes", s.len());
                }
            }
        }
    }
    // Not JSON, empty, binary, far over the read budget: exit 0, quiet.
    for stdin in [
        b"".to_vec(),
        b"not json".to_vec(),
        vec![0xff, 0xfe, 0x00],
        b"[1,2,3]".to_vec(),
        format!(
            r#"{{"source":"command","to_model":"{}"}}"#,
            "a".repeat(4 << 20)
        )
        .into_bytes(),
    ] {
        for arg in ["pre-model-switch", "post-model-switch"] {
            run(&env, arg, stdin.clone());
        }
    }
}

/// The guard's reason, as a matrix: the task (in progress, stale) × the
/// source (command, picker) × the cache (warm, cold) × the estimate
/// (above and below the threshold). Cells with the same words are grouped;
/// headless sources and a clean state give no answer (asserted above).
#[test]
fn the_guard_s_reason_in_every_cell() {
    let mut groups: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for state in ["in-progress", "stale"] {
        let env = TestEnv::new();
        record(
            &env,
            "in_progress",
            if state == "stale" {
                30 * 3600
            } else {
                2 * 3600
            },
        );
        for source in ["command", "picker"] {
            for cache in ["warm", "cold"] {
                for cost in ["0.42", "0.01"] {
                    let over = json!({
                        "source": source,
                        "prompt_cache_warm": cache == "warm",
                        "estimated_cache_write_usd": cost.parse::<f64>().unwrap(),
                    });
                    let (d, reason) = decision(&pre(&env, over)).unwrap();
                    groups
                        .entry(format!("{d}\n{reason}"))
                        .or_default()
                        .push(format!("{state} x {source} x {cache} x ${cost}"));
                }
            }
        }
    }
    let mut body = String::new();
    for (answer, cells) in &groups {
        body.push_str(&format!("# {}\n{answer}\n\n", cells.join(", ")));
    }
    let env = TestEnv::new();
    snapshot_settings(&env).bind(|| insta::assert_snapshot!("switch_guard_reasons", body));
}

/// A folder holding a stand-in `claude` that prints `version` for
/// `--version`, for `PATH` (`None`: a folder without one).
#[cfg(unix)]
fn client_dir(env: &TestEnv, version: Option<&str>) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let dir = env
        .root()
        .join(format!("bin-{}", version.unwrap_or("none")));
    std::fs::create_dir_all(&dir).unwrap();
    if let Some(v) = version {
        let path = dir.join("claude");
        env.write(&path, format!("#!/bin/sh\necho '{v} (Claude Code)'\n"));
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    dir
}

/// `gk <args>` with `PATH` holding the client of `version` first.
#[cfg(unix)]
fn with_client(env: &TestEnv, version: Option<&str>, args: &[&str]) -> Run {
    let path = format!("{}:/usr/bin:/bin", client_dir(env, version).display());
    env.gk(args).env("PATH", path).run()
}

#[cfg(unix)]
fn switch_events(env: &TestEnv) -> Vec<String> {
    let v: Value = serde_json::from_str(&env.read(env.settings())).unwrap();
    ["PreModelSwitch", "PostModelSwitch"]
        .into_iter()
        .filter(|e| v["hooks"].get(e).is_some())
        .map(|e| {
            let cmd = v["hooks"][e][0]["hooks"][0]["command"].as_str().unwrap();
            format!("{e}: {cmd}")
        })
        .collect()
}

#[cfg(unix)]
#[test]
fn install_registers_the_switch_hooks_only_for_a_client_that_knows_them_and_uninstall_takes_them_out(
) {
    let env = TestEnv::new();
    // A new client: both events, in the canonical spelling.
    let out = with_client(&env, Some("2.1.332"), &["install", "--yes", "--no-smoke"]).ok();
    assert!(
        out.contains("Claude Code 2.1.332 knows PreModelSwitch"),
        "{out}"
    );
    assert_eq!(
        switch_events(&env),
        [
            "PreModelSwitch: \"$HOME/.claude/hooks/gk\" hook pre-model-switch",
            "PostModelSwitch: \"$HOME/.claude/hooks/gk\" hook post-model-switch",
        ]
    );
    // Again with the same client: nothing to do.
    let again = with_client(&env, Some("2.1.332"), &["install", "--yes", "--no-smoke"]).ok();
    assert!(!again.contains("edited"), "{again}");
    // No client on PATH: what an earlier install added is left as it is.
    let none = with_client(&env, None, &["install", "--yes", "--no-smoke"]).ok();
    assert!(
        none.contains("no `claude` on PATH told its version"),
        "{none}"
    );
    assert_eq!(switch_events(&env).len(), 2);
    // The client went back to an older version: doctor says so, with the
    // fix; install takes both events out.
    let doctor = with_client(&env, Some("2.1.250"), &["doctor"]);
    let text = doctor.stdout_text();
    assert!(
        text.contains("Claude Code 2.1.250 does not know PreModelSwitch"),
        "{text}"
    );
    assert!(text.contains("Unknown hook event"), "{text}");
    let old = with_client(&env, Some("2.1.250"), &["install", "--yes", "--no-smoke"]).ok();
    assert!(
        old.contains("Claude Code 2.1.250 predates PreModelSwitch (2.1.251)"),
        "{old}"
    );
    assert!(
        switch_events(&env).is_empty(),
        "{}",
        env.read(env.settings())
    );
    let doctor = with_client(&env, Some("2.1.250"), &["doctor"]).stdout_text();
    assert!(!doctor.contains("PreModelSwitch"), "{doctor}");
    // Back to a new client, then uninstall: nothing of gk's is left.
    with_client(&env, Some("2.1.400"), &["install", "--yes", "--no-smoke"]).ok();
    assert_eq!(switch_events(&env).len(), 2);
    with_client(&env, Some("2.1.400"), &["uninstall", "--yes"]).ok();
    let left = std::fs::read_to_string(env.settings()).unwrap_or_default();
    assert!(
        !left.contains("model-switch") && !left.contains("ModelSwitch"),
        "{left}"
    );
}

#[cfg(unix)]
#[test]
fn with_an_old_client_doctor_sends_a_managed_dropins_switch_hooks_to_the_managed_install() {
    let env = TestEnv::new();
    with_client(
        &env,
        Some("2.1.332"),
        &[
            "install",
            "--managed",
            "--with-switch-guard",
            "--yes",
            "--no-smoke",
        ],
    )
    .ok();
    let dropin = env.read(managed_dropin(&env));
    assert!(dropin.contains("PreModelSwitch"), "{dropin}");
    // The client went back to an older version: the drop-in is what
    // names the events, and the user install does not edit it.
    let doctor = with_client(&env, Some("2.1.250"), &["doctor"]).stdout_text();
    assert!(
        doctor.contains("Claude Code 2.1.250 does not know PreModelSwitch"),
        "{doctor}"
    );
    assert!(doctor.contains("`gk install --managed`"), "{doctor}");
    assert!(!doctor.contains("run `gk install` again"), "{doctor}");
    // Doing what it says takes the events out, and doctor no longer names them.
    with_client(
        &env,
        Some("2.1.250"),
        &["install", "--managed", "--yes", "--no-smoke"],
    )
    .ok();
    let dropin = env.read(managed_dropin(&env));
    assert!(!dropin.contains("ModelSwitch"), "{dropin}");
    let doctor = with_client(&env, Some("2.1.250"), &["doctor"]).stdout_text();
    assert!(!doctor.contains("PreModelSwitch"), "{doctor}");
}

#[cfg(unix)]
fn managed_dropin(env: &TestEnv) -> std::path::PathBuf {
    env.managed_settings()
        .parent()
        .unwrap()
        .join("managed-settings.d")
        .join("gk.json")
}

#[cfg(unix)]
#[test]
fn a_fresh_install_with_an_old_client_or_none_adds_no_switch_event() {
    for version in [Some("2.1.250"), None, Some("not a version")] {
        let env = TestEnv::new();
        with_client(&env, version, &["install", "--yes", "--no-smoke"]).ok();
        assert!(switch_events(&env).is_empty(), "{version:?}");
    }
}

#[cfg(unix)]
#[test]
fn the_first_client_version_that_knows_the_events_gets_them() {
    let env = TestEnv::new();
    let out = with_client(&env, Some("2.1.251"), &["install", "--yes", "--no-smoke"]).ok();
    assert!(
        out.contains("Claude Code 2.1.251 knows PreModelSwitch"),
        "{out}"
    );
    assert_eq!(switch_events(&env).len(), 2, "{}", env.read(env.settings()));
}
