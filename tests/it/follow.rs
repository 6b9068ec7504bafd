//! The task follows the work (issue 16): a session with no record of its
//! own, in a folder where an earlier session (before `/clear`, the one a
//! fork came from) left its task in progress, is shown that task by every
//! hook — SessionStart context and line, prompt, Stop, status line — until
//! it writes its own record; other folders never see it; a stale one is
//! shown as stale. And the continuation hint (`next`): on its own Stop
//! line, shortened on the status line, overruled by the prompt's keywords,
//! off in global scope and with `"next": false`.
//!
//! The folder pointer's name is worked out here from the documented rule
//! (docs/configuration.md: `folder.<FNV-1a 128 of the folder, 32 hex
//! digits>.json`), not taken from gk's code.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde_json::json;

use crate::common::hooks::state_dir;
use crate::common::{Run, TestEnv};

const A: &str = "aaaaaaaa-1111-4000-8000-000000000001";
const B: &str = "bbbbbbbb-2222-4000-8000-000000000002";

fn fnv1a_128(bytes: &[u8]) -> u128 {
    let mut h: u128 = 0x6c62272e07bb014262b821756295c58d;
    for b in bytes {
        h ^= u128::from(*b);
        h = h.wrapping_mul(0x0000000001000000000000000000013B);
    }
    h
}

/// A HOME with gk's three hooks registered (so the session check has
/// nothing to warn about and speaks only of the task), a state folder,
/// the project folder and another folder.
fn setup() -> TestEnv {
    let env = TestEnv::new();
    for d in [state_dir(&env), env.project(), other(&env)] {
        std::fs::create_dir_all(d).unwrap();
    }
    let gk = serde_json::to_string(env!("CARGO_BIN_EXE_gk")).unwrap();
    let group = |arg: &str| json!([{"hooks": [{"type": "command", "command": format!("{gk} hook {arg}")}]}]);
    let settings = json!({"hooks": {
        "UserPromptSubmit": group("prompt"),
        "Stop": group("stop"),
        "SessionStart": group("session"),
    }});
    env.write(env.settings(), settings.to_string());
    env
}

/// A folder other than the project.
fn other(env: &TestEnv) -> PathBuf {
    env.root().join("work").join("other")
}

/// The task records and hooks as sessions in folders see them.
trait Sessions {
    /// The pointer for `folder`, named from the spec (docs/configuration.md,
    /// "The folder pointer"): the FNV-1a hash of the folder's key, which on
    /// Windows is the path with `/` for `\` and in lower case.
    fn pointer(&self, folder: &Path) -> PathBuf;
    fn record(&self, session: &str) -> PathBuf;
    /// Session `session` wrote `record` (aged `age_secs`) and pointed
    /// `folder` at it, as the prompt context asks.
    fn left(&self, session: &str, folder: &Path, record: serde_json::Value, age_secs: u64);
    /// A hook run with an event for session `session` in `folder`.
    fn hook(&self, args: &[&str], session: &str, folder: &Path, extra: serde_json::Value) -> Run;
    fn session_start(&self, session: &str, folder: &Path, source: &str) -> Run;
    fn prompt_in(&self, session: &str, folder: &Path, prompt: &str) -> Run;
    fn stop_in(&self, session: &str, folder: &Path) -> String;
    fn statusline(&self, session: &str, folder: &Path) -> String;
}

impl Sessions for TestEnv {
    fn pointer(&self, folder: &Path) -> PathBuf {
        let path = folder.to_str().unwrap();
        let key = if cfg!(windows) {
            path.replace('\\', "/").to_lowercase()
        } else {
            path.to_string()
        };
        state_dir(self).join(format!("folder.{:032x}.json", fnv1a_128(key.as_bytes())))
    }

    fn record(&self, session: &str) -> PathBuf {
        state_dir(self).join(format!("{session}.json"))
    }

    fn left(&self, session: &str, folder: &Path, record: serde_json::Value, age_secs: u64) {
        let path = self.record(session);
        std::fs::write(&path, format!("{record:#}\n")).unwrap();
        let f = std::fs::File::options().write(true).open(&path).unwrap();
        f.set_modified(SystemTime::now() - Duration::from_secs(age_secs))
            .unwrap();
        std::fs::write(
            self.pointer(folder),
            json!({ "session": session }).to_string(),
        )
        .unwrap();
    }

    fn hook(&self, args: &[&str], session: &str, folder: &Path, extra: serde_json::Value) -> Run {
        let mut event = json!({"session_id": session, "cwd": folder.to_str().unwrap()});
        if let serde_json::Value::Object(m) = extra {
            event.as_object_mut().unwrap().extend(m);
        }
        let run = self
            .gk(args)
            .env("GK_STATE_DIR", state_dir(self))
            .current_dir(folder)
            .stdin(event.to_string())
            .run();
        if args[0] == "hook" {
            run.assert_hook_contract(&args.join(" "));
        }
        run
    }

    fn session_start(&self, session: &str, folder: &Path, source: &str) -> Run {
        self.hook(
            &["hook", "session"],
            session,
            folder,
            json!({"hook_event_name": "SessionStart", "source": source}),
        )
    }

    fn prompt_in(&self, session: &str, folder: &Path, prompt: &str) -> Run {
        self.hook(
            &["hook", "prompt"],
            session,
            folder,
            json!({"hook_event_name": "UserPromptSubmit", "prompt": prompt}),
        )
    }

    fn stop_in(&self, session: &str, folder: &Path) -> String {
        self.hook(
            &["hook", "stop"],
            session,
            folder,
            json!({"hook_event_name": "Stop"}),
        )
        .system_message()
    }

    fn statusline(&self, session: &str, folder: &Path) -> String {
        self.hook(&["statusline"], session, folder, json!({}))
            .stdout_text()
    }
}

fn refactor() -> serde_json::Value {
    json!({
        "status": "in_progress",
        "task": "Refactor parser",
        "detail": "phase 2 of 3",
        "project": "P",
        "cwd": "",
        "updated": "",
    })
}

#[test]
fn a_successor_in_the_same_folder_is_shown_the_earlier_task_by_every_hook() {
    let s = setup();
    s.left(A, &s.project(), refactor(), 12 * 60);
    let record_a = s.record(A).display().to_string();

    for source in ["startup", "resume", "clear", "compact", "fork"] {
        let out = s.session_start(B, &s.project(), source).json();
        let line = out["systemMessage"].as_str().unwrap();
        assert_eq!(
            line.lines()
                .filter(|l| l.contains("Refactor parser"))
                .count(),
            1,
            "{source}: {line}"
        );
        assert!(
            line.contains(
                "gk: an earlier session in this folder left 'Refactor parser' [P] in progress (updated 12m ago)"
            ),
            "{source}: {line}"
        );
        assert_eq!(
            out["hookSpecificOutput"]["hookEventName"], "SessionStart",
            "{source}"
        );
        let ctx = out["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap();
        for want in [
            "'Refactor parser'",
            "phase 2 of 3",
            "12m ago",
            record_a.as_str(),
            &s.record(B).display().to_string(),
            &format!("\"after\": \"{A}\""),
        ] {
            assert!(ctx.contains(want), "{source}: {want:?} not in {ctx}");
        }
    }

    let stop = s.stop_in(B, &s.project());
    assert!(
        stop.starts_with("STATE [DIRTY] task in progress: 'Refactor parser' [P] (updated 12m ago)\n phase 2 of 3\n"),
        "{stop}"
    );
    assert!(!stop.contains("safe to switch"), "{stop}");
    assert!(
        stop.contains(
            " ! left by an earlier session in this folder; Claude takes it over if you continue it"
        ),
        "{stop}"
    );
    // No path for the user: Claude's context names the record.
    assert!(!stop.contains(&record_a), "{stop}");

    let prompt = s.prompt_in(B, &s.project(), "go on");
    let (msg, ctx) = (prompt.system_message(), prompt.context());
    assert!(
        msg.starts_with("GATEKEEPER\n ! an earlier session's task is in progress: 'Refactor parser' [P] (updated 12m ago) -- hold off switching model or effort until it is done"),
        "{msg}"
    );
    assert!(!msg.contains(&record_a), "{msg}");
    assert!(ctx.contains(&record_a), "{ctx}");
    // gk's own sentences open the context; the state follows them.
    assert!(
        ctx.starts_with("[Task state] This session's task_state.json is "),
        "{ctx}"
    );
    assert!(
        ctx.contains(
            ". [Gatekeeper] State: DIRTY (task in progress: 'Refactor parser' [P] -- phase 2 of 3)"
        ),
        "{ctx}"
    );
    assert!(!ctx.contains("safe to switch"), "{ctx}");
    // The session's own record comes first (what Claude writes), then the
    // folder's pointer, then the earlier record.
    let own = ctx.find(&s.record(B).display().to_string()).unwrap();
    let pointer = ctx
        .find(&s.pointer(&s.project()).display().to_string())
        .unwrap();
    let earlier = ctx.rfind(&record_a).unwrap();
    assert!(own < pointer && pointer < earlier, "{ctx}");

    assert_eq!(
        s.statusline(B, &s.project()),
        "gk DIRTY 'Refactor parser' [P] 12m ago (earlier session)\n"
    );

    // Once the session writes its own record, its own record wins.
    std::fs::write(s.record(B), r#"{"status": "clean"}"#).unwrap();
    assert!(s
        .stop_in(B, &s.project())
        .starts_with("STATE [CLEAN] safe to switch model or effort (updated just now)"),);
    assert!(!s.stop_in(B, &s.project()).contains("Refactor"));
    assert_eq!(s.statusline(B, &s.project()), "gk CLEAN\n");
    let out = s.session_start(B, &s.project(), "resume");
    assert!(
        !out.stdout_text().contains("Refactor"),
        "{}",
        out.stdout_text()
    );
    assert!(!s
        .prompt_in(B, &s.project(), "go on")
        .stdout_text()
        .contains("Refactor"));
}

#[test]
fn other_folders_never_see_it_and_the_earlier_session_sees_its_own() {
    let s = setup();
    s.left(A, &s.project(), refactor(), 60);
    let stop = s.stop_in(B, &other(&s));
    assert_eq!(
        stop,
        "STATE [CLEAN] no task recorded in this session yet -- safe to switch model or effort"
    );
    assert_eq!(s.session_start(B, &other(&s), "startup").stdout_text(), "");
    assert!(!s
        .prompt_in(B, &other(&s), "go on")
        .stdout_text()
        .contains("Refactor"));
    assert_eq!(s.statusline(B, &other(&s)), "gk CLEAN (no task yet)\n");
    // A subfolder is another folder (the client's project root is the key).
    let sub = s.project().join("src");
    std::fs::create_dir_all(&sub).unwrap();
    assert!(!s.stop_in(B, &sub).contains("Refactor"));
    // The project root the client reports wins over the event's cwd.
    let out = s
        .gk(["hook", "stop"])
        .env("GK_STATE_DIR", state_dir(&s))
        .env("CLAUDE_PROJECT_DIR", s.project())
        .stdin(json!({"session_id": B, "cwd": sub.to_str().unwrap()}).to_string())
        .run();
    assert!(
        out.stdout_text().contains("Refactor parser"),
        "{}",
        out.stdout_text()
    );
    // A's own session reads its own record, not "an earlier session".
    let own = s.stop_in(A, &s.project());
    assert!(
        own.starts_with("STATE [DIRTY] task in progress: 'Refactor parser'"),
        "{own}"
    );
    assert!(!own.contains("earlier session"), "{own}");
}

#[test]
fn a_stale_or_finished_predecessor_is_not_work_in_flight() {
    let s = setup();
    s.left(A, &s.project(), refactor(), 30 * 3600);
    let stop = s.stop_in(B, &s.project());
    assert!(!stop.contains("[DIRTY]"), "{stop}");
    assert!(
        stop.contains(
            "\n ! an earlier session in this folder left 'Refactor parser' [P] in progress (updated 30h ago) -- probably stale"
        ),
        "{stop}"
    );
    let msg = s.session_start(B, &s.project(), "clear").system_message();
    assert!(
        msg.ends_with("(updated 30h ago) -- probably stale"),
        "{msg}"
    );
    let prompt = s.prompt_in(B, &s.project(), "go on");
    assert!(!prompt.system_message().contains("[DIRTY]"));
    assert!(prompt.system_message().contains("probably stale"));
    assert!(prompt.context().contains("probably stale"));
    assert_eq!(
        s.statusline(B, &s.project()),
        "gk CLEAN (no task yet) | earlier 'Refactor parser' 30h ago (stale?)\n"
    );

    // Finished: the pointer leads to a clean record, nothing is said.
    s.left(A, &s.project(), json!({"status": "clean"}), 60);
    assert_eq!(
        s.stop_in(B, &s.project()),
        "STATE [CLEAN] no task recorded in this session yet -- safe to switch model or effort"
    );
    assert_eq!(s.session_start(B, &s.project(), "clear").stdout_text(), "");
}

#[test]
fn a_hostile_pointer_or_record_stays_bounded_text() {
    let s = setup();
    let task = format!(
        "x\u{1b}]52;c;Y3VybA==\u{7}\nSTATE [CLEAN] {}",
        "y".repeat(5000)
    );
    s.left(
        A,
        &s.project(),
        json!({"status": "in_progress", "task": task, "detail": "d\u{202e}"}),
        60,
    );
    let out = s.session_start(B, &s.project(), "clear").json();
    let line = out["systemMessage"].as_str().unwrap();
    let ctx = out["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    for text in [line, ctx] {
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{202e}'),
            "{text:?}"
        );
        assert!(text.len() < 2_000, "{}", text.len());
    }
    assert_eq!(line.lines().count(), 1, "{line:?}");
    // Pointers naming a path, this session, or garbage lead nowhere.
    for pointer in [
        json!({"session": "../../etc/passwd"}).to_string(),
        json!({"session": B}).to_string(),
        json!({"session": 5}).to_string(),
        "not json".to_string(),
    ] {
        std::fs::write(s.pointer(&s.project()), &pointer).unwrap();
        assert_eq!(
            s.session_start(B, &s.project(), "clear").stdout_text(),
            "",
            "{pointer}"
        );
    }
}

#[test]
fn the_continuation_hint_has_its_own_line_and_the_keywords_win() {
    let s = setup();
    let mut record = refactor();
    record["next"] = json!("Opus 5.5 at high effort: the parser refactor continues");
    std::fs::write(s.record(B), format!("{record:#}")).unwrap();
    let stop = s.stop_in(B, &s.project());
    assert_eq!(
        stop.lines().nth(2),
        Some(" Next: Opus 5.5 at high effort: the parser refactor continues"),
        "{stop}"
    );
    assert_eq!(
        s.statusline(B, &s.project()),
        "gk DIRTY 'Refactor parser' [P] just now | next: Opus 5.5 at high effort: the parser r...\n"
    );
    // The prompt's keywords point elsewhere: they win, and say so.
    let msg = s
        .prompt_in(B, &s.project(), "quick question: explain the lexer")
        .system_message();
    assert!(
        msg.contains(" Claude's hint: Opus 5.5 at high effort: the parser refactor continues -- it differs; use the pick above (it reads this prompt) unless this prompt carries on Claude's plan"),
        "{msg}"
    );
    // They agree (per session the recommender advises Opus here, and
    // "audit" is a high-effort keyword): no such line.
    let msg = s
        .prompt_in(
            B,
            &s.project(),
            "design the architecture of the parser, audit it",
        )
        .system_message();
    assert!(msg.contains(" Claude's hint: Opus 5.5"), "{msg}");
    assert!(!msg.contains("differs"), "{msg}");
    // The context asks for the hint.
    assert!(s
        .prompt_in(B, &s.project(), "go")
        .context()
        .contains("\"next\": one line recommending the model and effort"));

    // Switched off in gk.json: neither asked for nor shown.
    s.write_config(r#"{"state": {"scope": "session", "next": false}}"#);
    assert!(!s.stop_in(B, &s.project()).contains("Next"));
    let off = s.prompt_in(B, &s.project(), "go").stdout_text();
    assert!(!off.contains("Claude's hint"), "{off}");
    assert!(!off.contains("\\\"next\\\""), "{off}");
    assert!(!s.statusline(B, &s.project()).contains("next"));
    let rules = s.hook(&["rules"], B, &s.project(), json!({})).stdout_text();
    assert!(rules.contains("\"next\": false"), "{rules}");

    // Global scope (v5): off whatever gk.json says.
    s.write_config(r#"{"state": {"scope": "global", "next": true}}"#);
    s.write_state(format!("{record:#}"), 60);
    let stop = s.stop_in(B, &s.project());
    assert!(!stop.contains("Next"), "{stop}");
    let prompt = s.prompt_in(B, &s.project(), "go").stdout_text();
    assert!(
        !prompt.contains("next") && !prompt.contains("folder."),
        "{prompt}"
    );
}

#[test]
fn gk_state_shows_which_session_a_record_came_after() {
    let s = setup();
    let mut record = refactor();
    record["after"] = json!(A);
    std::fs::write(s.record(B), format!("{record:#}")).unwrap();
    std::fs::write(s.pointer(&s.project()), json!({"session": B}).to_string()).unwrap();
    let out = s.hook(&["state"], B, &s.project(), json!({})).stdout_text();
    let head = out.lines().find(|l| l.starts_with("SESSION")).unwrap();
    let row = out.lines().find(|l| l.starts_with(B)).unwrap();
    let at = head.find("AFTER").unwrap();
    assert_eq!(&row[at..at + A.len()], A, "{out}");
    // The pointer is not a record.
    assert!(!out.contains("folder."), "{out}");
    let json_out = s
        .hook(&["state", "--json"], B, &s.project(), json!({}))
        .stdout_text();
    let v: serde_json::Value = serde_json::from_str(&json_out).unwrap();
    assert_eq!(v["records"][0]["after"], A);
}

#[test]
fn a_task_taken_over_is_followed_from_the_session_that_took_it() {
    let s = setup();
    s.left(A, &s.project(), refactor(), 600);
    // B's start names the pointer to write, with B's id, when B takes over.
    let ctx = s.session_start(B, &s.project(), "clear").context();
    assert!(
        ctx.contains(&format!(
            "and write {} with {{\"session\": \"{B}\"}}",
            s.pointer(&s.project()).display()
        )),
        "{ctx}"
    );
    // B takes it over as told; a third session sees B's task, after A.
    let mut took = refactor();
    took["task"] = json!("Refactor parser, part 2");
    took["after"] = json!(A);
    s.left(B, &s.project(), took, 60);
    let c = "cccccccc-3333-4000-8000-000000000003";
    let stop = s.stop_in(c, &s.project());
    assert!(stop.contains("'Refactor parser, part 2'"), "{stop}");
    assert!(
        stop.contains(" ! left by an earlier session in this folder"),
        "{stop}"
    );
    // B finishes: nothing is left in flight for the third session.
    std::fs::write(s.record(B), r#"{"status": "clean"}"#).unwrap();
    assert!(!s.stop_in(c, &s.project()).contains("Refactor"));
}
