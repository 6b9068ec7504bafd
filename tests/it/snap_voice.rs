//! What the hooks say, as a matrix: scope (session, global) × this
//! session's record (none, clean, in progress, stale, unreadable) × an
//! earlier session's task in this folder (none, in progress, stale) × gk's
//! pick (none, a model, effort only) × Claude's hint (none, the same, a
//! different one) × channel (settings, plugin, managed). Every cell runs the
//! prompt hook, the Stop hook, the status line and the session hook; for
//! each of the four, the cells that give the same words are grouped and
//! each distinct answer is one reviewed snapshot whose header lists the
//! cells that produce it. A cell whose words change shows up as a snapshot
//! that changed; a new distinct answer as a new file.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::json;

use crate::common::{set_age, TestEnv};
use crate::snapshots::{installed, installed_handler, register, settings};

/// This session, and the earlier one that pointed the folder at itself.
const SESSION: &str = "3f2a9c1e-5b7d-4e8a-9c2f-1a2b3c4d5e6f";
const EARLIER: &str = "0b1c2d3e-4f50-4a6b-8c7d-9e0f1a2b3c4d";

const SCOPES: [&str; 2] = ["session", "global"];
const OWN: [&str; 5] = ["no-record", "clean", "in-progress", "stale", "unreadable"];
const EARLIER_TASK: [&str; 3] = ["none", "in-progress", "stale"];
const PICKS: [&str; 3] = ["none", "match", "effort-only"];
const HINTS: [&str; 3] = ["none", "same", "differs"];
const CHANNELS: [&str; 3] = ["settings", "plugin", "managed"];

/// The prompt for a pick: per session the recommender reads it; in global
/// scope the seed's keywords do.
fn prompt(scope: &str, pick: &str) -> &'static str {
    match (scope, pick) {
        (_, "none") => "please update the readme section about the configuration options so it mentions the new flag",
        ("session", "match") => "there is a deadlock in the scheduler, find the race and fix it",
        (_, "match") => "implement the parser",
        _ => "self-review the parser changes before the release",
    }
}

/// Claude's hint for a pick: naming the model (and effort) gk picks, or
/// another one.
fn hint(pick: &str, hint: &str) -> Option<&'static str> {
    match (hint, pick) {
        ("none", _) => None,
        ("same", "match") => Some("Opus 5.5: the race needs care"),
        ("same", "effort-only") => Some("Sonnet 5 at high effort: review the error paths"),
        ("same", _) => Some("Sonnet 5: more edits of the same kind"),
        _ => Some("Haiku 4.5 at low effort: only a rename is left"),
    }
}

fn state_dir(env: &TestEnv) -> PathBuf {
    env.home().join(".local").join("state").join("gk")
}

fn record_path(env: &TestEnv, session: &str) -> PathBuf {
    state_dir(env).join(gk::testing::paths::record_file_name(session).unwrap())
}

/// A task in progress, `age` seconds old, with Claude's hint.
fn task(env: &TestEnv, name: &str, hint: Option<&str>) -> serde_json::Value {
    let mut v = json!({
        "status": "in_progress",
        "task": name,
        "detail": "step 2 of 3: the error paths",
        "project": "gk",
        "cwd": env.project(),
    });
    if let Some(h) = hint {
        v["next"] = json!(h);
    }
    v
}

/// One machine per scope and channel: gk's hooks registered through that
/// channel.
fn machine(scope: &str, channel: &str) -> (TestEnv, Option<PathBuf>) {
    let env = installed();
    if scope == "global" {
        env.write_config(r#"{"state": {"scope": "global"}}"#);
    }
    let handlers: Vec<(&str, serde_json::Value)> = ["UserPromptSubmit", "Stop", "SessionStart"]
        .into_iter()
        .map(|e| (e, installed_handler(&env, e)))
        .collect();
    let mut root = None;
    if channel != "settings" && channel != "settings+plugin" {
        let mut user: serde_json::Value = serde_json::from_str(&env.read(env.settings())).unwrap();
        user.as_object_mut().unwrap().remove("hooks");
        env.write(env.settings(), serde_json::to_string_pretty(&user).unwrap());
    }
    if channel == "managed" {
        for (event, h) in &handlers {
            register(&env, &env.managed_settings(), event, h.clone());
        }
    }
    if channel.ends_with("plugin") {
        let mkt = env.home().join("mkt");
        let plugin = mkt.join("plugins").join("gk");
        env.write(
            plugin.join(".claude-plugin").join("plugin.json"),
            json!({"name": "gk"}).to_string(),
        );
        let mut hooks = serde_json::Map::new();
        for (event, h) in &handlers {
            hooks.insert(event.to_string(), json!([{"hooks": [h]}]));
        }
        env.write(
            plugin.join("hooks").join("hooks.json"),
            json!({ "hooks": hooks }).to_string(),
        );
        env.write(
            mkt.join(".claude-plugin").join("marketplace.json"),
            json!({"name": "mkt", "plugins": [{"name": "gk", "source": "./plugins/gk"}]})
                .to_string(),
        );
        env.write(
            env.claude().join("plugins").join("known_marketplaces.json"),
            json!({"mkt": {"source": {"source": "directory", "path": mkt}}}).to_string(),
        );
        let mut v: serde_json::Value = serde_json::from_str(&env.read(env.settings())).unwrap();
        v["enabledPlugins"]["gk@mkt"] = json!(true);
        env.write(env.settings(), serde_json::to_string_pretty(&v).unwrap());
        root = Some(plugin);
    }
    (env, root)
}

/// Write the records of a cell (and remove those of the cell before).
fn records(env: &TestEnv, scope: &str, own: &str, earlier: &str, hint_text: Option<&str>) {
    let dir = state_dir(env);
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_file(env.state_path());
    std::fs::create_dir_all(&dir).unwrap();
    let own_path = if scope == "global" {
        env.state_path()
    } else {
        record_path(env, SESSION)
    };
    let write = |path: &PathBuf, text: String, age: u64| {
        env.write(path, text);
        set_age(path, age);
    };
    match own {
        "clean" => write(
            &own_path,
            json!({"status": "clean", "task": "", "detail": "", "project": "", "cwd": ""})
                .to_string(),
            300,
        ),
        "in-progress" | "stale" => write(
            &own_path,
            serde_json::to_string_pretty(&task(env, "port the parser", hint_text)).unwrap(),
            if own == "stale" { 30 * 3600 } else { 300 },
        ),
        "unreadable" => write(&own_path, "{\"status\": \"in_progr".into(), 300),
        _ => {}
    }
    if earlier != "none" {
        write(
            &record_path(env, EARLIER),
            serde_json::to_string_pretty(&task(env, "write the release notes", hint_text)).unwrap(),
            if earlier == "stale" { 30 * 3600 } else { 600 },
        );
        let key = gk::testing::paths::folder_key(
            gk::testing::platform::Os::current(),
            env.project().to_str().unwrap(),
        )
        .unwrap();
        let pointer = dir.join(gk::testing::paths::folder_pointer_name(&key).unwrap());
        env.write(&pointer, json!({ "session": EARLIER }).to_string());
    }
}

/// What one hook run shows the user and hands Claude, as plain text.
fn shown(stdout: &[u8]) -> String {
    if stdout.is_empty() {
        return "(nothing)\n".into();
    }
    let Ok(v) = serde_json::from_slice::<serde_json::Value>(stdout) else {
        return format!("{}\n", String::from_utf8_lossy(stdout).trim_end());
    };
    let mut out = String::new();
    if let Some(m) = v["systemMessage"].as_str() {
        out.push_str(&format!("--- the user reads\n{m}\n"));
    }
    if let Some(c) = v["hookSpecificOutput"]["additionalContext"].as_str() {
        out.push_str(&format!("--- Claude reads\n{c}\n"));
    }
    if out.is_empty() {
        out.push_str("(nothing)\n");
    }
    out
}

#[test]
fn what_the_hooks_say_in_every_cell() {
    // surface -> answer -> cells
    let mut groups: BTreeMap<&str, BTreeMap<String, Vec<String>>> = BTreeMap::new();
    let mut cells = 0;
    let mut filters = None;
    let pointer_name = regex::Regex::new(r"\bfolder\.[0-9a-f]{32}\.json\b").unwrap();
    for scope in SCOPES {
        for channel in CHANNELS {
            let (env, root) = machine(scope, channel);
            for own in OWN {
                for earlier in EARLIER_TASK {
                    for h in HINTS {
                        for pick in PICKS {
                            let hint_text = hint(pick, h);
                            records(&env, scope, own, earlier, hint_text);
                            let cell = format!(
                                "{scope} {own} earlier={earlier} pick={pick} hint={h} {channel}"
                            );
                            cells += 1;
                            let event = |name: &str, prompt: Option<&str>| {
                                let mut v = json!({
                                    "hook_event_name": name,
                                    "session_id": SESSION,
                                    "cwd": env.project(),
                                });
                                if let Some(p) = prompt {
                                    v["prompt"] = json!(p);
                                }
                                if name == "SessionStart" {
                                    v["source"] = json!("clear");
                                }
                                v.to_string()
                            };
                            let run = |args: &[&str], stdin: String| {
                                let mut gk = env.gk(args.iter().copied());
                                gk.current_dir(env.project()).stdin(stdin);
                                if let Some(r) = &root {
                                    gk.env("CLAUDE_PLUGIN_ROOT", r);
                                }
                                let out = gk.run();
                                if args[0] == "hook" {
                                    out.assert_hook_contract(&cell);
                                } else {
                                    assert!(out.success() && out.stderr.is_empty(), "{cell}");
                                }
                                // Each machine has its own folders: name them alike.
                                let text = shown(&out.stdout);
                                let text = text
                                    .replace(&env.home().display().to_string(), "[HOME]")
                                    .replace(&env.root().display().to_string(), "[ROOT]");
                                pointer_name
                                    .replace_all(&text, "folder.[HASH].json")
                                    .into_owned()
                            };
                            let prompt_out = run(
                                &["hook", "prompt"],
                                event("UserPromptSubmit", Some(prompt(scope, pick))),
                            );
                            groups
                                .entry("prompt")
                                .or_default()
                                .entry(prompt_out)
                                .or_default()
                                .push(cell.clone());
                            // The other surfaces read no prompt: one pick.
                            if pick != "none" {
                                continue;
                            }
                            let cell = cell.replace(" pick=none", "");
                            for (surface, args, name) in [
                                ("stop", &["hook", "stop"][..], "Stop"),
                                ("statusline", &["statusline"][..], "Status"),
                                ("session", &["hook", "session"][..], "SessionStart"),
                            ] {
                                let out = run(args, event(name, None));
                                groups
                                    .entry(surface)
                                    .or_default()
                                    .entry(out)
                                    .or_default()
                                    .push(cell.clone());
                            }
                        }
                    }
                }
            }
            if filters.is_none() {
                filters = Some(env);
            }
        }
    }
    assert_eq!(cells, 2 * 5 * 3 * 3 * 3 * 3);
    let env = filters.unwrap();
    // Per session, the user's lines keep the bounds docs/hooks.md gives:
    // at most 5 (6 with an earlier session's stale task), no file path.
    for (answer, cells) in &groups["prompt"] {
        if !cells.iter().any(|c| c.starts_with("session ")) {
            continue;
        }
        let user: Vec<&str> = answer
            .split("--- Claude reads")
            .next()
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with("--- "))
            .collect();
        let bound = if answer.contains("an earlier session in this folder left") {
            6
        } else {
            5
        };
        assert!(user.len() <= bound, "{cells:?}\n{answer}");
        for l in &user {
            assert!(!l.contains(".json") && !l.contains("[HOME]"), "{l}");
            assert!(!l.contains("record") && !l.contains("none yet"), "{l}");
        }
    }
    let s = settings(&env);
    let mut summary = String::new();
    for (surface, answers) in &groups {
        summary.push_str(&format!("{surface}: {} distinct answers\n", answers.len()));
        for (answer, cells) in answers {
            // Named after the first cell that gives it, so a new answer
            // elsewhere renames nothing.
            let first = cells[0].replace(' ', "__").replace('=', "-");
            let name = format!("voice_{surface}__{first}");
            let body = format!(
                "cells ({}):\n  {}\n{answer}",
                cells.len(),
                cells.join("\n  ")
            );
            s.bind(|| insta::assert_snapshot!(name, body));
        }
    }
    s.bind(|| insta::assert_snapshot!("voice_matrix_summary", summary));
}

/// gk's session hook in the user's settings and in gk's plugin: the client
/// starts both. The settings copy speaks (here: the hooks run twice, and
/// an earlier task); the plugin's copy, which sees the settings copy, says
/// nothing to the user, so each line shows once.
#[test]
fn with_settings_and_the_plugin_the_session_line_shows_once() {
    let (env, root) = machine("session", "settings+plugin");
    records(&env, "session", "no-record", "in-progress", None);
    let run = |plugin: bool| {
        let mut gk = env.gk(["hook", "session"]);
        gk.current_dir(env.project()).stdin(
            json!({"hook_event_name": "SessionStart", "session_id": SESSION, "cwd": env.project(), "source": "clear"})
                .to_string(),
        );
        if plugin {
            gk.env("CLAUDE_PLUGIN_ROOT", root.as_ref().unwrap());
        }
        let out = gk.run();
        out.assert_hook_contract("session");
        (!out.stdout.is_empty()).then(|| out.system_message())
    };
    let settings_copy = run(false).expect("the settings copy speaks");
    assert!(
        settings_copy.contains("gk's session hook runs twice"),
        "{settings_copy}"
    );
    assert!(
        settings_copy.contains("an earlier session in this folder left 'write the release notes'"),
        "{settings_copy}"
    );
    assert_eq!(run(true), None, "the plugin's copy stays silent");
}

/// The Stop line and the status line for the record shapes the matrix does
/// not reach, side by side (both are made by the one composer): a record
/// with no status or a status gk does not know, a clean record with
/// Claude's hint, a task in progress while gk.json is broken, the shared
/// task file of an older setup, and global scope's v5 lines.
#[test]
fn the_stop_and_status_lines_for_each_record_shape() {
    let cases: [(&str, &str, Option<String>, bool); 9] = [
        ("session", "no status field", Some(json!({"task": "t"}).to_string()), false),
        (
            "session",
            "a status gk does not know",
            Some(json!({"status": "done\u{1b}[2J\nSTATE [CLEAN]"}).to_string()),
            false,
        ),
        (
            "session",
            "clean, with Claude's hint",
            Some(json!({"status": "clean", "next": "Haiku 4.5: only renames are left"}).to_string()),
            false,
        ),
        (
            "session",
            "in progress, gk.json broken",
            Some(json!({"status": "in_progress", "task": "port the parser", "project": "gk"}).to_string()),
            true,
        ),
        ("session", "only the shared task file (older setup)", None, false),
        ("global", "the task file install wrote", None, false),
        (
            "global",
            "in progress with a detail",
            Some(json!({"status": "in_progress", "task": "port the parser", "detail": "step 2 of 3", "project": "gk"}).to_string()),
            false,
        ),
        (
            "global",
            "clean",
            Some(json!({"status": "clean"}).to_string()),
            false,
        ),
        ("global", "gk.json broken", Some(json!({"status": "clean"}).to_string()), true),
    ];
    let mut body = String::new();
    for (scope, what, record, broken) in cases {
        let (env, _) = machine(scope, "settings");
        if broken {
            env.write_config("{\"state\": ");
        }
        let path = if scope == "global" {
            env.state_path()
        } else {
            record_path(&env, SESSION)
        };
        if let Some(text) = record {
            env.write(&path, text);
            set_age(&path, 300);
        }
        if what.contains("shared") {
            env.write(
                env.state_path(),
                json!({"status": "in_progress", "task": "an old task"}).to_string(),
            );
            set_age(&env.state_path(), 7200);
        }
        let event = json!({"hook_event_name": "Stop", "session_id": SESSION, "cwd": env.project()})
            .to_string();
        let mut stop = env.gk(["hook", "stop"]);
        stop.current_dir(env.project()).stdin(event.clone());
        let stop = stop.run();
        stop.assert_hook_contract(what);
        let mut status = env.gk(["statusline"]);
        status.current_dir(env.project()).stdin(event);
        let status = status.run();
        assert!(status.success() && status.stderr.is_empty(), "{what}");
        let text = format!(
            "=== {scope}: {what}\n--- Stop\n{}\n--- status line\n{}\n",
            stop.system_message(),
            String::from_utf8_lossy(&status.stdout).trim_end()
        );
        body.push_str(&text.replace(&env.home().display().to_string(), "[HOME]"));
    }
    whole().bind(|| insta::assert_snapshot!("voice_state_lines", body));
}

/// A transcript whose last reply ran on `model` at `effort` (the lines the
/// client writes, shortened: a reply, then the Stop hook's bookkeeping).
fn transcript_on(env: &TestEnv, model: &str, effort: Option<&str>) -> PathBuf {
    let path = env
        .home()
        .join(".claude")
        .join("projects")
        .join("-work-project")
        .join(format!("{SESSION}.jsonl"));
    let mut reply = json!({
        "type": "assistant", "isSidechain": false, "sessionId": SESSION,
        "message": {"model": model, "role": "assistant", "content": [{"type": "text", "text": "Done."}]},
    });
    if let Some(e) = effort {
        reply["effort"] = json!(e);
    }
    let lines = [
        json!({"type": "user", "message": {"role": "user", "content": "hello"}}),
        reply,
        json!({"type": "system", "subtype": "stop_hook_summary", "hookCount": 1}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    env.write(&path, text);
    path
}

/// Per session the prompt hook reads the model and effort of the last
/// reply from the transcript's tail and does not advise what the user is
/// already on: on the advised tier the model line says the current one
/// fits (no `/model`, no purpose), at the advised effort there is no
/// effort line; on another model, or with no transcript, the advice is as
/// before. Global scope keeps v5's bytes whatever the transcript says.
/// (scope, what, prompt, the last reply's model and effort, a task in progress)
type Case<'a> = (
    &'a str,
    &'a str,
    &'a str,
    Option<(&'a str, Option<&'a str>)>,
    bool,
);

#[test]
fn the_advice_knows_the_model_the_last_reply_ran_on() {
    let race = prompt("session", "match");
    let review = prompt("session", "effort-only");
    let cases: [Case; 7] = [
        (
            "session",
            "on the advised model",
            race,
            Some(("claude-opus-5-5", Some("medium"))),
            false,
        ),
        (
            "session",
            "on another model",
            race,
            Some(("claude-sonnet-5", Some("medium"))),
            false,
        ),
        ("session", "no transcript", race, None, false),
        (
            "session",
            "on the advised model and effort",
            review,
            Some(("claude-sonnet-5", Some("high"))),
            false,
        ),
        (
            "session",
            "on the advised model, at another effort",
            review,
            Some(("claude-sonnet-5", Some("low"))),
            false,
        ),
        (
            "session",
            "on the advised model, a task in progress",
            race,
            Some(("claude-opus-5-5", None)),
            true,
        ),
        (
            "global",
            "on the advised model",
            prompt("global", "match"),
            Some(("claude-opus-5-5", None)),
            false,
        ),
    ];
    let mut body = String::new();
    for (scope, what, text, on, in_progress) in cases {
        let (env, _) = machine(scope, "settings");
        records(
            &env,
            scope,
            if in_progress { "in-progress" } else { "clean" },
            "none",
            None,
        );
        let mut event = json!({
            "hook_event_name": "UserPromptSubmit",
            "session_id": SESSION,
            "cwd": env.project(),
            "prompt": text,
        });
        let path = on.map(|(model, effort)| transcript_on(&env, model, effort));
        event["transcript_path"] = json!(path.unwrap_or_else(|| env.home().join("none.jsonl")));
        let mut gk = env.gk(["hook", "prompt"]);
        gk.current_dir(env.project()).stdin(event.to_string());
        let out = gk.run();
        out.assert_hook_contract(what);
        let user = out.system_message();
        let on = on.map_or("no transcript".to_string(), |(m, e)| {
            format!("last reply: {m}, effort {}", e.unwrap_or("not recorded"))
        });
        body.push_str(&format!(
            "=== {scope}: {what} ({on})\n{text}\n---\n{user}\n"
        ));
    }
    whole().bind(|| insta::assert_snapshot!("voice_current_model", body));
}

/// The settings of a snapshot built from many machines (each case puts its
/// own placeholders in): the file named as its siblings are.
fn whole() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_prepend_module_to_snapshot(false);
    s.set_omit_expression(true);
    if cfg!(windows) {
        // `/` after `[HOME]`, as in every other snapshot (one a pass).
        for _ in 0..8 {
            s.add_filter(r"(\[HOME\][^\s\\`'\x22]*)\\+", "${1}/");
        }
    }
    s
}
